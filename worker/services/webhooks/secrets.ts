// Webhook endpoints' signing secrets at rest: AES-256-GCM (WebCrypto) under a key derived (HKDF)
// from the Worker secret WEBHOOK_SECRETS_KEY, with the endpoint's id as associated data so a sealed
// secret cannot be copied onto another endpoint. A database dump or a leaked backup then holds no
// secret that could forge a creator's webhooks.
// Stored form: `enc1:` + base64(12-byte IV) + `:` + base64(ciphertext). A row written before this
// (`whsec_…` in the clear) is still read as it is; the reader seals it (`sealIfPlain`), and the
// daily sweep seals any left (`sealPlainSecrets`).
const PREFIX = "enc1:";
/** Local runs may leave the key unset (an older .dev.vars); every other deployment must set it. */
const LOCAL_DEVELOPMENT_KEY = "apewall-local-development-webhook-secrets-key";

export type SecretBox = {
  seal(plain: string, endpointId: string): Promise<string>;
  open(stored: string, endpointId: string): Promise<string>;
};

const isSealed = (stored: string) => stored.startsWith(PREFIX);

const keys = new Map<string, Promise<CryptoKey>>();

function aesKey(secret: string): Promise<CryptoKey> {
  let key = keys.get(secret);
  if (!key) {
    key = crypto.subtle.importKey("raw", new TextEncoder().encode(secret), "HKDF", false, ["deriveKey"]).then((base) =>
      crypto.subtle.deriveKey(
        {
          name: "HKDF",
          hash: "SHA-256",
          salt: new Uint8Array(),
          info: new TextEncoder().encode("apewall webhook endpoint secrets v1"),
        },
        base,
        { name: "AES-GCM", length: 256 },
        false,
        ["encrypt", "decrypt"],
      ),
    );
    keys.set(secret, key);
  }
  return key;
}

const b64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
const unb64 = (text: string) => Uint8Array.from(atob(text), (ch) => ch.charCodeAt(0));

/** The box for this deployment; without WEBHOOK_SECRETS_KEY it refuses to work outside APP_ENV=development. */
export function secretBox(env: { APP_ENV?: string; WEBHOOK_SECRETS_KEY?: string }): SecretBox {
  const secret = env.WEBHOOK_SECRETS_KEY || (env.APP_ENV === "development" ? LOCAL_DEVELOPMENT_KEY : null);
  const key = () => {
    if (!secret) throw new Error("WEBHOOK_SECRETS_KEY is not set: webhook signing secrets cannot be read or written");
    return aesKey(secret);
  };
  return {
    async seal(plain, endpointId) {
      const iv = crypto.getRandomValues(new Uint8Array(12));
      const sealed = await crypto.subtle.encrypt(
        { name: "AES-GCM", iv, additionalData: new TextEncoder().encode(endpointId) },
        await key(),
        new TextEncoder().encode(plain),
      );
      return `${PREFIX}${b64(iv)}:${b64(new Uint8Array(sealed))}`;
    },
    async open(stored, endpointId) {
      if (!isSealed(stored)) return stored;
      const [iv, data] = stored.slice(PREFIX.length).split(":");
      const plain = await crypto.subtle.decrypt(
        { name: "AES-GCM", iv: unb64(iv), additionalData: new TextEncoder().encode(endpointId) },
        await key(),
        unb64(data),
      );
      return new TextDecoder().decode(plain);
    },
  };
}

/** Writes `plain` back sealed when the row still holds it in the clear (a no-op for sealed rows). */
export async function sealIfPlain(d1: D1Database, box: SecretBox, endpointId: string, stored: string): Promise<void> {
  if (isSealed(stored)) return;
  await d1
    .prepare("update webhook_endpoints set secret = ? where id = ? and secret = ?")
    .bind(await box.seal(stored, endpointId), endpointId, stored)
    .run();
}

/** The daily sweep's part: seals up to `limit` secrets still stored in the clear. */
export async function sealPlainSecrets(d1: D1Database, box: SecretBox, limit = 500): Promise<{ sealed: number }> {
  const { results } = await d1
    .prepare(`select id, secret from webhook_endpoints where secret not like '${PREFIX}%' limit ?`)
    .bind(limit)
    .all<{ id: string; secret: string }>();
  for (const r of results) await sealIfPlain(d1, box, r.id, r.secret);
  return { sealed: results.length };
}
