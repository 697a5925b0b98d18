// The page's Content-Security-Policy nonce, from the tag the Worker adds to each page
// (worker/routes/spa.ts): a <style> element the app adds carries it, or the policy refuses it.
export const cspNonce = (): string | undefined =>
  (typeof document === "undefined"
    ? undefined
    : document.querySelector<HTMLMetaElement>('meta[property="csp-nonce"]')?.nonce) || undefined;
