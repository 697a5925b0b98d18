// The server-rendered pages' built shells (paywall-shell.html and shells/*.html, built by
// vite.paywall.config.ts): each read once per isolate through the ASSETS binding, its stylesheet
// inlined, cut at its two slots (docs/pages.md).
import type { Bindings as EnvBindings } from "./env";

type Bindings = Pick<EnvBindings, "ASSETS">;

/** A built shell cut at its two slots: start <!--app-head--> middle <!--app-html--> end. */
export type Template = { start: string; middle: string; end: string; hash: string; styleHash: string };

const sha256 = async (text: string) =>
  new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));

/**
 * A shell as Vite built it, with its stylesheet inlined (one request fewer before the first paint),
 * split where the page's head tags and body go. It changes only with a deploy, and each deploy gets
 * fresh isolates: each shell is read once. `shell` is its path as the assets binding names it
 * (without ".html": "/paywall-shell", "/shells/landing").
 */
const templates = new Map<string, Promise<Template>>();
export function shellTemplate(env: Bindings, requestUrl: string, shell: string): Promise<Template> {
  const asset = async (path: string) => {
    const res = await env.ASSETS.fetch(new Request(new URL(path, requestUrl)));
    if (!res.ok) throw new Error(`${path} answered ${res.status}`);
    return res.text();
  };
  let template = templates.get(shell);
  if (template) return template;
  template = (async () => {
    let html = await asset(shell);
    // The inline stylesheet's hash, for the page's Content-Security-Policy.
    let styleHash = "";
    const link = /<link rel="stylesheet"[^>]*href="([^"]+)"[^>]*>/.exec(html);
    if (link) {
      const css = (await asset(link[1])).replace(/<\/style/gi, "<\\/style");
      html = html.replace(link[0], () => `<style>${css}</style>`);
      styleHash = `sha256-${btoa(String.fromCharCode(...(await sha256(css))))}`;
    }
    const hash = Array.from((await sha256(html)).slice(0, 8), (b) => b.toString(16).padStart(2, "0")).join("");
    const [start, rest = ""] = html.split("<!--app-head-->");
    const [middle, end] = rest.split("<!--app-html-->");
    if (end === undefined) throw new Error(`${shell} lacks <!--app-head--> or <!--app-html-->`);
    return { start, middle, end, hash, styleHash };
  })().catch((err) => {
    templates.delete(shell);
    throw err;
  });
  templates.set(shell, template);
  return template;
}
