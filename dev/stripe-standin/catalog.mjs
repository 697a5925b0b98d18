// Products and prices, Stripe-shaped: what the Pro plan and funnel offers are sold as.
// A resource module of the stand-in: `kit` carries server.mjs's state and helpers.

/** @param {any} kit */
export function catalogRoutes(kit) {
  const { db, get, metadata, int, rid, now, list, badParam, missingParam, emit } = kit;

  function createProduct(p) {
    if (!p.name) throw missingParam("name");
    const product = {
      id: p.id ?? rid("prod", 14),
      object: "product",
      active: p.active !== "false",
      created: now(),
      default_price: null,
      description: p.description || null,
      images: [],
      livemode: false,
      marketing_features: [],
      metadata: metadata(p.metadata),
      name: p.name,
      package_dimensions: null,
      shippable: null,
      statement_descriptor: null,
      tax_code: null,
      tax_details: null,
      type: "service",
      unit_label: null,
      updated: now(),
      url: null,
    };
    db.products.set(product.id, product);
    emit("product.created", product);
    if (p.default_price_data) {
      const price = createPrice({ ...p.default_price_data, product: product.id });
      product.default_price = price.id;
    }
    return product;
  }

  function createPrice(p) {
    if (!p.currency) throw missingParam("currency");
    let product = p.product;
    if (!product && p.product_data) product = createProduct(p.product_data).id;
    if (!product) throw missingParam("product");
    get("products", product);
    const unitAmount = int(p.unit_amount, "unit_amount");
    if (unitAmount === undefined) throw missingParam("unit_amount");
    const recurring = p.recurring
      ? {
          interval: p.recurring.interval,
          interval_count: Number(p.recurring.interval_count ?? 1),
          meter: null,
          trial_period_days: null,
          usage_type: "licensed",
        }
      : null;
    if (recurring && !["day", "week", "month", "year"].includes(recurring.interval))
      throw badParam("recurring[interval]", "Invalid recurring[interval]: must be one of day, week, month, or year");
    const price = {
      id: rid("price", 24),
      object: "price",
      active: true,
      billing_scheme: "per_unit",
      created: now(),
      currency: String(p.currency).toLowerCase(),
      custom_unit_amount: null,
      livemode: false,
      lookup_key: p.lookup_key ?? null,
      metadata: metadata(p.metadata),
      nickname: p.nickname ?? null,
      product,
      recurring,
      tax_behavior: "unspecified",
      tiers_mode: null,
      transform_quantity: null,
      type: recurring ? "recurring" : "one_time",
      unit_amount: unitAmount,
      unit_amount_decimal: String(unitAmount),
    };
    if (price.lookup_key) {
      for (const other of db.prices.values()) {
        if (other.lookup_key === price.lookup_key) {
          if (p.transfer_lookup_key !== "true")
            throw badParam("lookup_key", `A price (\`${other.id}\`) already uses that lookup key.`);
          other.lookup_key = null;
        }
      }
    }
    db.prices.set(price.id, price);
    emit("price.created", price);
    return price;
  }

  return [
    ["POST", /^\/v1\/products$/, "secret", (p) => createProduct(p)],
    ["GET", /^\/v1\/products\/(prod_\w+)$/, "secret", (_p, m) => get("products", m[1])],
    ["GET", /^\/v1\/products$/, "secret", (p) => list([...db.products.values()].reverse(), p, "/v1/products")],
    ["POST", /^\/v1\/prices$/, "secret", (p) => createPrice(p)],
    ["GET", /^\/v1\/prices\/(price_\w+)$/, "secret", (_p, m) => get("prices", m[1])],
    [
      "GET",
      /^\/v1\/prices$/,
      "secret",
      (p) => {
        let items = [...db.prices.values()].reverse();
        if (p.product) items = items.filter((x) => x.product === p.product);
        if (p.lookup_keys) {
          const keys = Object.values(p.lookup_keys);
          items = items.filter((x) => keys.includes(x.lookup_key));
        }
        return list(items, p, "/v1/prices");
      },
    ],
  ];
}
