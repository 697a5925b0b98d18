/* The stand-in Payment Element's billing fields, as the real one collects them for a card by default
   (fields.billingDetails.address "auto"): Country, defaulted from the browser's language region (or
   defaultValues.billingDetails.address.country), and the postal code where card networks check it
   (US "ZIP", Canada and the UK "Postal code"), required there. stripe-js.js (served after this file
   at /v3) puts them into the PaymentMethod's billing_details.address. See docs/tax.md ("The stand-in"). */
(() => {
  // biome-ignore format: a table
  var COUNTRIES = ("AE AR AT AU BE BG BR CA CH CL CN CO CY CZ DE DK EE EG ES FI FR GB GR HK HR HU ID IE IL IN IS IT JP " +
    "KE KR LI LT LU LV MA MT MX MY NG NL NO NZ PE PH PK PL PT RO RS SA SE SG SI SK TH TR TW UA US VN ZA").split(" ");
  var POSTAL = {
    US: { label: "ZIP", placeholder: "12345", valid: /^\d{5}(-?\d{4})?$/, noun: "ZIP" },
    CA: { label: "Postal code", placeholder: "A1A 1A1", valid: /^[A-Z]\d[A-Z] ?\d[A-Z]\d$/i, noun: "postal code" },
    GB: {
      label: "Postal code",
      placeholder: "WS11 1DB",
      valid: /^[A-Z]{1,2}\d[A-Z\d]? ?\d[A-Z]{2}$/i,
      noun: "postal code",
    },
  };
  var names = (() => {
    var display = null;
    try {
      display = new Intl.DisplayNames([navigator.language || "en"], { type: "region" });
    } catch (_e) {}
    return (cc) => display?.of(cc) || cc;
  })();

  function defaultCountry(opts) {
    var given = opts?.defaultValues?.billingDetails?.address?.country;
    var region = String(navigator.language || "").split("-")[1];
    var cc = String(given || region || "US").toUpperCase();
    return COUNTRIES.indexOf(cc) >= 0 ? cc : "US";
  }

  var box =
    "width:100%;box-sizing:border-box;height:40px;border:1px solid #d1d5db;border-radius:8px;padding:0 12px;font-size:15px;font-family:inherit;background:#fff";
  var labelStyle = "display:block;font-size:13px;font-weight:500;margin:0 0 4px;color:#374151";

  /** The fields' markup for element `uid`; none when the page collects the address itself ("never"). */
  function markup(uid, opts) {
    if (opts?.fields?.billingDetails === "never" || opts?.fields?.billingDetails?.address === "never") return "";
    var chosen = defaultCountry(opts);
    var options = COUNTRIES.map((cc) => ({ cc: cc, name: names(cc) }))
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((c) => `<option value="${c.cc}"${c.cc === chosen ? " selected" : ""}>${c.name}</option>`)
      .join("");
    var postal = opts?.defaultValues?.billingDetails?.address?.postal_code || "";
    return (
      '<div data-billing style="display:grid;grid-template-columns:1fr 1fr;gap:12px"><div>' +
      `<label for="${uid}-country" style="${labelStyle}">Country</label>` +
      `<select id="${uid}-country" autocomplete="country" style="${box}">${options}</select></div>` +
      `<div data-postal><label for="${uid}-postal" style="${labelStyle}"></label>` +
      `<input id="${uid}-postal" autocomplete="postal-code" value="${String(postal).replace(/"/g, "")}" style="${box}" /></div></div>`
    );
  }

  /** Shows the postal code field with the chosen country's label, or hides it where none is asked. */
  function sync(root, uid) {
    var select = root.querySelector(`#${uid}-country`);
    if (!select) return;
    var rule = POSTAL[select.value];
    var wrap = root.querySelector("[data-postal]");
    wrap.style.display = rule ? "" : "none";
    // Country takes the whole row where no postal code is asked.
    root.querySelector("[data-billing]").style.gridTemplateColumns = rule ? "1fr 1fr" : "1fr";
    if (!rule) return;
    wrap.querySelector("label").textContent = rule.label;
    var input = wrap.querySelector("input");
    input.placeholder = rule.placeholder;
    input.setAttribute("inputmode", select.value === "US" ? "numeric" : "text");
  }

  /** What the fields hold: `{ address: { country, postal_code } }`, or null where they are not shown. */
  function values(root, uid) {
    var select = root?.querySelector(`#${uid}-country`);
    if (!select) return null;
    var postal = root.querySelector(`#${uid}-postal`).value.trim();
    return { address: { country: select.value, postal_code: POSTAL[select.value] && postal ? postal : null } };
  }

  /** The validation error Stripe.js gives for the fields, or null when they are complete. */
  function problem(root, uid) {
    var v = values(root, uid);
    var rule = v && POSTAL[v.address.country];
    if (!rule) return null;
    var code = v.address.country === "US" ? "zip" : "postal_code";
    if (!v.address.postal_code)
      return { type: "validation_error", code: `incomplete_${code}`, message: `Your ${rule.noun} is incomplete.` };
    if (!rule.valid.test(v.address.postal_code))
      return { type: "validation_error", code: `invalid_${code}`, message: `Your ${rule.noun} is invalid.` };
    return null;
  }

  /** Billing details the page passes win over what the fields collected, field by field (the address too). */
  function merge(collected, given) {
    var c = collected || {};
    var g = given || {};
    var address = c.address || g.address ? Object.assign({}, c.address, g.address) : undefined;
    return Object.assign({}, c, g, { address: address });
  }

  window.__stripeStandinBilling = { markup: markup, sync: sync, values: values, problem: problem, merge: merge };
})();
