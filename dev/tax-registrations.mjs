// ApeWall's demo tax registrations, created through Stripe's Tax Registrations API: on the local
// stand-in (npm start and every test lane call this) or on real Stripe test mode. Lists first and
// creates only what is missing, so running it twice changes nothing. Switzerland and Ohio are left
// out on purpose: places where ApeWall is not registered (Stripe answers `not_collecting`).
// Run: STRIPE_API_BASE=… STRIPE_SECRET_KEY=sk_test_… node dev/tax-registrations.mjs
// See docs/tax.md ("Registrations", "The stand-in").

/**
 * What ApeWall (head office in the US, selling digital goods) is registered for: the EU's non-Union
 * One-Stop Shop (identified in Ireland; it covers every member state), the UK, Norway, Australia,
 * Canada's simplified GST/HST regime, and four US states.
 */
export const DEMO_REGISTRATIONS = [
  { country: "IE", options: { type: "oss_non_union" } },
  { country: "GB", options: { type: "standard" } },
  { country: "NO", options: { type: "standard" } },
  { country: "AU", options: { type: "standard" } },
  { country: "CA", options: { type: "simplified" } },
  ...["WA", "TX", "NY", "PA"].map((state) => ({ country: "US", options: { type: "state_sales_tax", state } })),
];

/** Creates the demo registrations missing on the account behind `secretKey`; returns what it created. */
export async function createTaxRegistrations({ apiBase = "https://api.stripe.com", secretKey }) {
  if (!/^(sk|rk)_test_/.test(secretKey ?? "")) throw new Error("tax-registrations: a test-mode secret key is needed");
  const call = async (method, path, body) => {
    const res = await fetch(`${apiBase}${path}`, {
      method,
      headers: { authorization: `Bearer ${secretKey}`, "content-type": "application/x-www-form-urlencoded" },
      body: body && new URLSearchParams(body),
    });
    const json = await res.json();
    if (!res.ok) throw new Error(`tax-registrations: ${method} ${path} -> ${res.status} ${json.error?.message}`);
    return json;
  };
  const existing = [];
  let after;
  do {
    const page = await call(
      "GET",
      `/v1/tax/registrations?status=all&limit=100${after ? `&starting_after=${after}` : ""}`,
    );
    existing.push(...page.data);
    after = page.has_more ? page.data.at(-1).id : undefined;
  } while (after);
  const live = existing.filter((r) => r.status === "active" || r.status === "scheduled");
  const created = [];
  for (const { country, options } of DEMO_REGISTRATIONS) {
    const key = country.toLowerCase();
    const has = live.some((r) => {
      const o = r.country_options?.[key];
      return r.country === country && o?.type === options.type && (o?.state ?? null) === (options.state ?? null);
    });
    if (has) continue;
    const body = { country, active_from: "now", [`country_options[${key}][type]`]: options.type };
    if (options.state) body[`country_options[${key}][state]`] = options.state;
    created.push(await call("POST", "/v1/tax/registrations", body));
  }
  return created;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const apiBase = process.env.STRIPE_API_BASE ?? "http://127.0.0.1:12111";
  const created = await createTaxRegistrations({
    apiBase,
    secretKey: process.env.STRIPE_SECRET_KEY ?? "sk_test_standin",
  });
  const names = created.map((r) => r.country + (r.country_options.us?.state ? `-${r.country_options.us.state}` : ""));
  console.log(`tax registrations on ${apiBase}: ${created.length ? `created ${names.join(", ")}` : "all present"}`);
}
