/** Escapes text for HTML element content and quoted attribute values. */
export const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch]!);

/**
 * A small page the Worker answers itself, outside the SPA (a sign-in link opened in another browser,
 * unsubscribing from reminders): ApeWall's mark, a heading and `bodyHtml` (already escaped), in a card.
 */
export function messagePage(title: string, bodyHtml: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title><link rel="icon" href="/favicon.svg"><meta name="robots" content="noindex">
<style>body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;background:#f6f5fa;font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:#1f1d2b}
main{background:#fff;border:1px solid #e7e5ee;border-radius:14px;padding:32px;max-width:380px;width:90%;text-align:center;box-shadow:0 10px 30px #0000000d}
h1{font-size:22px;margin:12px 0 8px}p{color:#6b6880;margin:0 0 20px;line-height:1.5}
button{width:100%;height:44px;border:0;border-radius:10px;background:linear-gradient(135deg,#7c3aed,#db2777);color:#fff;font-size:15px;font-weight:600;cursor:pointer}
a{color:#6b6880;font-size:13px}</style></head><body><main>
<img src="/favicon.svg" alt="" width="44" height="44">
<h1>${escapeHtml(title)}</h1>
${bodyHtml}
</main></body></html>`;
}
