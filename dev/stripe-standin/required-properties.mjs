// Writes required-properties.json: for each object type the stand-in returns, and the objects nested
// in it, the properties Stripe's schema marks required for the pinned `stripe` package's API version,
// read from that package's type declarations. Run: node dev/stripe-standin/required-properties.mjs
// What it lists and why that source: docs/payments.md ("Stripe and the local stand-in").
import { readFileSync, writeFileSync } from "node:fs";

const root = new URL("../../node_modules/stripe/", import.meta.url);
const resources = new URL("esm/resources/", root);
const OPENAPI_MIRROR_COMMIT = "f6c2a48fbac2819d1feba8143d942ffc65e1c0d2";

/** Stripe object name -> [declaration file, interface]. */
const TYPES = {
  account: ["Accounts.d.ts", "Account"],
  account_link: ["AccountLinks.d.ts", "AccountLink"],
  balance: ["Balance.d.ts", "Balance"],
  bank_account: ["BankAccounts.d.ts", "BankAccount"],
  charge: ["Charges.d.ts", "Charge"],
  confirmation_token: ["ConfirmationTokens.d.ts", "ConfirmationToken"],
  customer: ["Customers.d.ts", "Customer"],
  dispute: ["Disputes.d.ts", "Dispute"],
  event: ["Events.d.ts", "EventBase"],
  invoice: ["Invoices.d.ts", "Invoice"],
  invoice_payment: ["InvoicePayments.d.ts", "InvoicePayment"],
  line_item: ["InvoiceLineItems.d.ts", "InvoiceLineItem"],
  login_link: ["LoginLinks.d.ts", "LoginLink"],
  payment_intent: ["PaymentIntents.d.ts", "PaymentIntent"],
  payment_method: ["PaymentMethods.d.ts", "PaymentMethod"],
  price: ["Prices.d.ts", "Price"],
  product: ["Products.d.ts", "Product"],
  refund: ["Refunds.d.ts", "Refund"],
  subscription: ["Subscriptions.d.ts", "Subscription"],
  subscription_item: ["SubscriptionItems.d.ts", "SubscriptionItem"],
  "tax.association": ["Tax/Associations.d.ts", "Association"],
  "tax.calculation": ["Tax/Calculations.d.ts", "Calculation"],
  "tax.calculation_line_item": ["Tax/CalculationLineItems.d.ts", "CalculationLineItem"],
  "tax.registration": ["Tax/Registrations.d.ts", "Registration"],
  "tax.transaction": ["Tax/Transactions.d.ts", "Transaction"],
  "tax.transaction_line_item": ["Tax/TransactionLineItems.d.ts", "TransactionLineItem"],
  "test_helpers.test_clock": ["TestHelpers/TestClocks.d.ts", "TestClock"],
  transfer: ["Transfers.d.ts", "Transfer"],
  transfer_reversal: ["TransferReversals.d.ts", "TransferReversal"],
};

/**
 * Optional properties (not always sent by Stripe) whose nested objects are checked when the stand-in
 * sends them: the account's profile and requirements, a charge's card or Link details.
 */
const NESTED_OPTIONAL = {
  account: [
    "business_profile",
    "capabilities",
    "controller",
    "requirements",
    "settings",
    "settings.payouts",
    "settings.payouts.schedule",
    "tos_acceptance",
  ],
  charge: ["payment_method_details.card", "payment_method_details.link"],
  confirmation_token: ["payment_method_preview.card", "payment_method_preview.link"],
  payment_method: ["card", "link"],
  "tax.calculation_line_item": ["tax_breakdown"],
};
const MAX_DEPTH = 4;

/**
 * Every interface of a declaration file by qualified name (`Charge.PaymentMethodDetails.Card`), with
 * its properties and the namespace it sits in. The files are generated, one member per line, four
 * spaces per level, which is what this reads.
 */
function interfacesOf(file) {
  const lines = readFileSync(new URL(file, resources), "utf8").split("\n");
  const out = new Map();
  const stack = [];
  for (const line of lines) {
    const open = /^( *)(?:export )?(?:declare )?(interface|namespace) (\w+)\b.*\{$/.exec(line);
    if (open) {
      const scope = stack.map((s) => s.name);
      stack.push({ kind: open[2], name: open[3], indent: open[1].length });
      if (open[2] === "interface") out.set([...scope, open[3]].join("."), { scope, props: [] });
      continue;
    }
    const top = stack.at(-1);
    if (!top) continue;
    if (new RegExp(`^ {${top.indent}}\\}$`).test(line)) {
      stack.pop();
      continue;
    }
    const prop = new RegExp(`^ {${top.indent + 4}}(\\w+)(\\?)?: (.+);$`).exec(line);
    if (prop && top.kind === "interface")
      out.get(stack.map((s) => s.name).join(".")).props.push({ name: prop[1], optional: !!prop[2], type: prop[3] });
  }
  return out;
}

/**
 * The nested interface a property's type names (TypeScript's lookup: innermost namespace first), and
 * whether it is an array of it. A top-level one (an expandable `string | Invoice`) is another object, checked on its own.
 */
function resolve(interfaces, scope, type) {
  for (const ref of type.match(/\b[A-Z]\w*(?:\.\w+)*/g) ?? []) {
    for (let i = scope.length; i >= 0; i--) {
      const name = [...scope.slice(0, i), ref].join(".");
      if (interfaces.has(name)) return name.includes(".") ? { name, array: /^Array</.test(type) } : null;
    }
  }
  return null;
}

/** Required property names of `name`, and of each nested object under it by dotted path. */
function requiredOf(file, name, object) {
  const interfaces = interfacesOf(file);
  if (!interfaces.has(name)) throw new Error(`${name} not found in ${file}`);
  const optional = new Set(NESTED_OPTIONAL[object] ?? []);
  const nested = {};
  const walk = (qualified, path, depth) => {
    const { scope, props } = interfaces.get(qualified);
    if (path)
      nested[path] = props
        .filter((p) => !p.optional)
        .map((p) => p.name)
        .sort();
    if (depth >= MAX_DEPTH) return;
    for (const p of props) {
      const at = path ? `${path}.${p.name}` : p.name;
      if (p.optional && !optional.has(at.replace(/\[\]/g, ""))) continue;
      const target = resolve(interfaces, [...scope, qualified.split(".").at(-1)], p.type);
      if (target) walk(target.name, target.array ? `${at}[]` : at, depth + 1);
    }
  };
  walk(name, "", 0);
  const top = interfaces
    .get(name)
    .props.filter((p) => !p.optional)
    .map((p) => p.name)
    .sort();
  return { top, nested };
}

const pkg = JSON.parse(readFileSync(new URL("package.json", root), "utf8"));
const apiVersion = /ApiVersion = '([^']+)'/.exec(readFileSync(new URL("esm/apiVersion.js", root), "utf8"))[1];
const out = {
  generatedBy: "dev/stripe-standin/required-properties.mjs",
  source: `stripe@${pkg.version} type declarations, generated by Stripe from OpenAPI spec ${readFileSync(new URL("OPENAPI_VERSION", root), "utf8").trim()}`,
  apiVersion,
  openapiMirrorCommit: OPENAPI_MIRROR_COMMIT,
  objects: {},
  nested: {},
};
for (const [object, [file, name]] of Object.entries(TYPES)) {
  const { top, nested } = requiredOf(file, name, object);
  out.objects[object] = top;
  if (Object.keys(nested).length) out.nested[object] = nested;
}
writeFileSync(new URL("./required-properties.json", import.meta.url), `${JSON.stringify(out, null, 2)}\n`);
console.log(`required-properties.json: ${Object.keys(out.objects).length} object types for API ${apiVersion}`);
