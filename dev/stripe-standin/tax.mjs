// Stripe Tax for Payment Intents, Stripe-shaped (API 2026-10-28): tax calculations (POST
// /v1/tax/calculations, retrieve, line items), the account's tax registrations, and the
// `hooks[inputs][tax][calculation]` a PaymentIntent carries. The tax transactions Stripe records
// from them (and the reversals of refunds) are in tax-transactions.mjs; rates in tax-rates.mjs.
// Tax is charged only where an active registration covers the place (else `not_collecting`); the
// stand-in starts with none, as a new account does. See docs/tax.md ("The stand-in").
// Stand-in control: POST /_standin/tax/calculations/{id}/expire makes a calculation expire now.
import { badParam, missingParam, StripeError, unexpectedState } from "./errors.mjs";
import { EU_COUNTRIES, isB2B, locate, placeName, rateAt, taxTypeAt, validTaxId } from "./tax-rates.mjs";
import { DAY, expandOf, int, metadata, now, page, rid } from "./wire.mjs";

// Where the account's head office is (its Tax settings): a sale to a business elsewhere is a reverse charge.
const HEAD_OFFICE_COUNTRY = "US";
// The account's preset tax code: electronically supplied services.
const DEFAULT_TAX_CODE = "txcd_10000000";
const NONTAXABLE_TAX_CODE = "txcd_00000000";
const CALCULATION_LIFETIME = 90 * DAY;
const OVERRIDES = ["none", "customer_exempt", "reverse_charge"];
const OSS = ["oss_union", "oss_non_union"];
// Stripe writes a rate with at least one decimal: "20.0", "10.25".
const percentageDecimal = (n) => (Number.isInteger(n) ? n.toFixed(1) : String(n));

/** @param {any} kit */
export function tax(kit) {
  const { db, get, save } = kit;

  const locationInvalid = () =>
    new StripeError(
      400,
      "invalid_request_error",
      "We could not determine the customer's tax location based on the provided customer address.",
      {
        code: "customer_tax_location_invalid",
        doc_url: "https://docs.stripe.com/error-codes#customer-tax-location-invalid",
        param: "customer_details[address]",
      },
      { validation: true },
    );

  // ---- Registrations ----
  const statusOf = (r, at = now()) =>
    r.expires_at !== null && r.expires_at <= at ? "expired" : r.active_from > at ? "scheduled" : "active";
  const publicRegistration = (r) => ({ ...r, status: statusOf(r) });

  /** Whether an active registration covers `place` (one OSS registration covers every EU member state). */
  function registered(place) {
    return [...db.tax_registrations.values()].some((r) => {
      if (statusOf(r) !== "active") return false;
      const option = r.country_options[r.country.toLowerCase()] ?? {};
      if (EU_COUNTRIES.includes(place.country) && OSS.includes(option.type)) return true;
      if (r.country !== place.country) return false;
      if (place.country === "US") return option.state === place.state;
      if (place.country === "CA") return ["standard", "simplified"].includes(option.type);
      return true;
    });
  }

  const timeParam = (v, param) => (v === "now" ? now() : int(v, param));

  function createRegistration(p) {
    if (p.active_from === undefined) throw missingParam("active_from");
    if (!p.country) throw missingParam("country");
    if (!p.country_options || typeof p.country_options !== "object") throw missingParam("country_options");
    const country = String(p.country).toUpperCase();
    const key = country.toLowerCase();
    const option = p.country_options[key];
    if (!option || Object.keys(p.country_options).length !== 1)
      throw badParam("country_options", `country_options must contain exactly one entry, for ${key}.`);
    if (!option.type) throw missingParam(`country_options[${key}][type]`);
    if (country === "US" && !option.state) throw missingParam("country_options[us][state]");
    const r = {
      id: rid("taxreg"),
      object: "tax.registration",
      active_from: timeParam(p.active_from, "active_from"),
      country,
      country_options: { [key]: { ...option } },
      created: now(),
      expires_at: p.expires_at ? timeParam(p.expires_at, "expires_at") : null,
      livemode: false,
      status: "active",
      _seq: db.tax_registrations.size,
    };
    db.tax_registrations.set(r.id, r);
    return publicRegistration(r);
  }

  function updateRegistration(r, p) {
    if (p.active_from !== undefined) r.active_from = timeParam(p.active_from, "active_from");
    if (p.expires_at !== undefined) r.expires_at = p.expires_at === "" ? null : timeParam(p.expires_at, "expires_at");
    return publicRegistration(r);
  }

  // ---- Calculations ----
  function customerDetails(p) {
    const d = p.customer_details ?? {};
    let address = d.address;
    if (!address && p.customer) address = get("customers", p.customer).address ?? undefined;
    if (address && !address.country) throw missingParam("customer_details[address][country]");
    if (d.address_source !== undefined && !["billing", "shipping"].includes(d.address_source))
      throw badParam("customer_details[address_source]", "Invalid address_source: must be one of billing, shipping");
    const taxIds = Object.values(d.tax_ids ?? {}).map((t, i) => {
      if (!t?.type) throw missingParam(`customer_details[tax_ids][${i}][type]`);
      if (!t.value) throw missingParam(`customer_details[tax_ids][${i}][value]`);
      if (!validTaxId(t.type, t.value))
        throw new StripeError(
          400,
          "invalid_request_error",
          `Invalid value for ${t.type}.`,
          { code: "tax_id_invalid", param: `customer_details[tax_ids][${i}][value]` },
          { validation: true },
        );
      return { type: t.type, value: t.value };
    });
    const override = d.taxability_override ?? "none";
    if (!OVERRIDES.includes(override))
      throw badParam(
        "customer_details[taxability_override]",
        `Invalid taxability_override: must be one of ${OVERRIDES.join(", ")}`,
      );
    if (!address && !d.ip_address) throw missingParam("customer_details[address]");
    const field = (k) => (address?.[k] === undefined || address[k] === "" ? null : String(address[k]));
    return {
      address: address
        ? {
            city: field("city"),
            country: String(address.country).toUpperCase(),
            line1: field("line1"),
            line2: field("line2"),
            postal_code: field("postal_code"),
            state: field("state"),
          }
        : null,
      // A Customer's own address is its billing address.
      address_source: d.address_source ?? (address && !d.address ? "billing" : null),
      ip_address: d.ip_address ?? null,
      tax_ids: taxIds,
      taxability_override: override,
    };
  }

  /** Why a line is taxed as it is at `place`, and at what rate. */
  function treatment(place, details, taxCode) {
    const rate = rateAt(place);
    if (!registered(place)) return { reason: "not_collecting", rate: null };
    if (details.taxability_override === "customer_exempt") return { reason: "customer_exempt", rate: null };
    if (details.taxability_override === "reverse_charge") return { reason: "reverse_charge", rate: null };
    if (taxCode === NONTAXABLE_TAX_CODE) return { reason: "product_exempt", rate: null };
    if (!rate) return { reason: "not_subject_to_tax", rate: null };
    if (place.country !== HEAD_OFFICE_COUNTRY && isB2B(place.country, details.tax_ids))
      return { reason: "reverse_charge", rate: null };
    return { reason: "standard_rated", rate };
  }

  function lineItem(raw, i, place, details) {
    const at = (k) => `line_items[${i}][${k}]`;
    if (raw?.amount === undefined) throw missingParam(at("amount"));
    const amount = int(raw.amount, at("amount"));
    const behavior = raw.tax_behavior ?? "exclusive";
    if (!["exclusive", "inclusive"].includes(behavior))
      throw badParam(at("tax_behavior"), "Invalid tax_behavior: must be one of exclusive, inclusive");
    const taxCode = raw.tax_code ?? DEFAULT_TAX_CODE;
    if (!/^txcd_\d{8}$/.test(taxCode)) throw badParam(at("tax_code"), `Invalid tax code: ${taxCode}`);
    const quantity = int(raw.quantity, at("quantity")) ?? 1;
    const { reason, rate } = treatment(place, details, taxCode);
    const pct = rate?.percentage ?? 0;
    const amountTax =
      behavior === "inclusive" ? Math.round((amount * pct) / (100 + pct)) : Math.round((amount * pct) / 100);
    const id = rid("tax_li", 14);
    return {
      id,
      object: "tax.calculation_line_item",
      amount,
      amount_tax: amountTax,
      livemode: false,
      metadata: metadata(raw.metadata),
      performance_location: null,
      product: raw.product ?? null,
      quantity,
      reference: raw.reference ?? id,
      tax_behavior: behavior,
      tax_breakdown: [
        {
          amount: amountTax,
          jurisdiction: {
            country: place.country,
            display_name: rate?.jurisdiction ?? placeName(place),
            level: rate?.level ?? (place.state ? "state" : "country"),
            state: place.state,
          },
          sourcing: "destination",
          tax_rate_details: rate
            ? { display_name: rate.displayName, percentage_decimal: percentageDecimal(pct), tax_type: rate.taxType }
            : null,
          taxability_reason: reason,
          taxable_amount: behavior === "inclusive" ? amount - amountTax : amount,
        },
      ],
      tax_code: taxCode,
      _percentage: pct,
    };
  }

  /** The calculation's tax_breakdown: its lines' taxes summed per rate, place and reason. */
  function breakdownOf(lines, place) {
    const groups = new Map();
    for (const line of lines) {
      const b = line.tax_breakdown[0];
      const inclusive = line.tax_behavior === "inclusive";
      const key = `${inclusive}|${line._percentage}|${b.taxability_reason}`;
      const g = groups.get(key) ?? {
        amount: 0,
        inclusive,
        tax_rate_details: {
          country: place.country,
          flat_amount: null,
          percentage_decimal: percentageDecimal(line._percentage),
          rate_type: "percentage",
          state: place.state,
          tax_type: b.tax_rate_details?.tax_type ?? taxTypeAt(place),
        },
        taxability_reason: b.taxability_reason,
        taxable_amount: 0,
      };
      g.amount += b.amount;
      g.taxable_amount += b.taxable_amount;
      groups.set(key, g);
    }
    return [...groups.values()];
  }

  function createCalculation(p) {
    if (!p.currency) throw missingParam("currency");
    const rawLines = Array.isArray(p.line_items) ? p.line_items : Object.values(p.line_items ?? {});
    if (!rawLines.length) throw missingParam("line_items");
    const details = customerDetails(p);
    // The stand-in can't geolocate an IP address: without an address it can't place the customer.
    const place = details.address ? locate(details.address) : null;
    if (!place) throw locationInvalid();
    const taxDate = p.tax_date === undefined ? now() : int(p.tax_date, "tax_date");
    if (Math.abs(taxDate - now()) > 31 * DAY)
      throw badParam("tax_date", "tax_date must be within 31 days of the current date.");
    const lines = rawLines.map((raw, i) => lineItem(raw, i, place, details));
    const refs = lines.map((l) => l.reference);
    if (new Set(refs).size !== refs.length)
      throw badParam("line_items", "Line item references must be unique within a calculation.");
    const exclusive = lines.filter((l) => l.tax_behavior === "exclusive").reduce((a, l) => a + l.amount_tax, 0);
    const inclusive = lines.filter((l) => l.tax_behavior === "inclusive").reduce((a, l) => a + l.amount_tax, 0);
    const created = now();
    const calc = {
      id: rid("taxcalc"),
      object: "tax.calculation",
      amount_total: lines.reduce((a, l) => a + l.amount, 0) + exclusive,
      currency: String(p.currency).toLowerCase(),
      customer: p.customer ?? null,
      customer_details: details,
      expires_at: created + CALCULATION_LIFETIME,
      livemode: false,
      ship_from_details: null,
      shipping_cost: null,
      tax_amount_exclusive: exclusive,
      tax_amount_inclusive: inclusive,
      tax_breakdown: breakdownOf(lines, place),
      tax_date: taxDate,
      _lines: lines,
      _place: place,
    };
    db.tax_calculations.set(calc.id, calc);
    return calc;
  }

  /** A calculation that hasn't expired (Stripe answers `resource_missing` for one that has). */
  function liveCalculation(id, param = "id") {
    const calc = db.tax_calculations.get(id);
    if (!calc || calc.expires_at <= now())
      throw new StripeError(
        404,
        "invalid_request_error",
        `No such tax calculation: '${id}'`,
        { code: "resource_missing", param },
        { validation: true },
      );
    return calc;
  }

  const lineView = (line, withBreakdown) => {
    const { tax_breakdown, ...rest } = line;
    return withBreakdown ? line : rest;
  };
  const linesList = (calc, p, prefix) => {
    const withBreakdown = expandOf(p).includes(`${prefix}data.tax_breakdown`);
    return page(calc._lines, p, `/v1/tax/calculations/${calc.id}/line_items`, (l) => lineView(l, withBreakdown));
  };
  function calculationView(calc, p) {
    const expand = expandOf(p);
    if (!expand.some((e) => e === "line_items" || e.startsWith("line_items."))) return calc;
    return { ...calc, line_items: linesList(calc, { limit: 100, expand }, "line_items.") };
  }

  // ---- The PaymentIntent hook ----
  /**
   * Applies `hooks[inputs][tax][calculation]` from a create, update, confirm or capture of `pi`
   * (before the PaymentIntent changes): an existing calculation, or "" to unlink; only until the
   * PaymentIntent succeeds.
   */
  function linkTaxCalculation(pi, p) {
    if (p.hooks === undefined) return;
    const input = p.hooks?.inputs?.tax;
    if (!input || input.calculation === undefined) throw missingParam("hooks[inputs][tax][calculation]");
    if (pi && ["succeeded", "canceled"].includes(pi.status))
      throw unexpectedState(
        `You cannot link a tax calculation to this PaymentIntent because it has a status of ${pi.status}.`,
        pi,
      );
    const calc =
      input.calculation === "" ? null : liveCalculation(input.calculation, "hooks[inputs][tax][calculation]");
    return {
      hooks: calc ? { inputs: { tax: { calculation: calc.id } } } : undefined,
      /** Sets (or removes) the hook on `target`, and its tax association (one per PaymentIntent). */
      apply(target) {
        const a = db.tax_associations.get(target.id);
        if (!calc) {
          delete target.hooks;
          if (a && !a.tax_transaction_attempts) db.tax_associations.delete(target.id);
          return;
        }
        target.hooks = { inputs: { tax: { calculation: calc.id } } };
        if (a) a.calculation = calc.id;
        else
          db.tax_associations.set(target.id, {
            id: rid("taxa"),
            object: "tax.association",
            calculation: calc.id,
            payment_intent: target.id,
            tax_transaction_attempts: null,
          });
      },
    };
  }

  const routes = [
    ["POST", /^\/v1\/tax\/calculations$/, "secret", (p) => calculationView(createCalculation(p), p)],
    ["GET", /^\/v1\/tax\/calculations\/(taxcalc_\w+)$/, "secret", (p, m) => calculationView(liveCalculation(m[1]), p)],
    [
      "GET",
      /^\/v1\/tax\/calculations\/(taxcalc_\w+)\/line_items$/,
      "secret",
      (p, m) => linesList(liveCalculation(m[1]), p, ""),
    ],
    [
      "POST",
      /^\/_standin\/tax\/calculations\/(taxcalc_\w+)\/expire$/,
      "secret",
      (_p, m) => {
        const calc = get("tax_calculations", m[1]);
        calc.expires_at = now();
        save();
        return calc;
      },
    ],
    ["POST", /^\/v1\/tax\/registrations$/, "secret", (p) => createRegistration(p)],
    [
      "GET",
      /^\/v1\/tax\/registrations$/,
      "secret",
      (p) => {
        const status = p.status ?? "all";
        if (!["active", "all", "expired", "scheduled"].includes(status))
          throw badParam("status", "Invalid status: must be one of active, all, expired, scheduled");
        const items = [...db.tax_registrations.values()]
          .filter((r) => status === "all" || statusOf(r) === status)
          .sort((a, b) => b._seq - a._seq);
        return page(items, p, "/v1/tax/registrations", publicRegistration);
      },
    ],
    [
      "GET",
      /^\/v1\/tax\/registrations\/(taxreg_\w+)$/,
      "secret",
      (_p, m) => publicRegistration(get("tax_registrations", m[1])),
    ],
    [
      "POST",
      /^\/v1\/tax\/registrations\/(taxreg_\w+)$/,
      "secret",
      (p, m) => updateRegistration(get("tax_registrations", m[1]), p),
    ],
  ];

  return { linkTaxCalculation, liveCalculation, routes };
}
