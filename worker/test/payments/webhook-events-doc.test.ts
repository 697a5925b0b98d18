// The Stripe webhook endpoints' event lists (docs/operations.md) name every event the webhook
// handles: an event left out there is never sent by Stripe in production.
import { describe, expect, it } from "vitest";
import operations from "../../../docs/operations.md?raw";
import webhook from "../../routes/stripe-webhook.ts?raw";

/** `charge.dispute.created|updated` → both names; each backticked event of one bullet. */
function eventsOf(bullet: string): Set<string> {
  const names = new Set<string>();
  for (const [, code] of bullet.matchAll(/`([a-z_]+\.[a-z_.|]+)`/g)) {
    const [first, ...rest] = code.split("|");
    names.add(first);
    const stem = first.slice(0, first.lastIndexOf(".") + 1);
    for (const tail of rest) names.add(stem + tail);
  }
  return names;
}

describe("webhook events in the operations guide", () => {
  it("every event the webhook handles is in its endpoint's list", () => {
    const handled = [...webhook.matchAll(/case "([a-z_.]+)":/g)].map((m) => m[1]);
    expect(handled).toContain("charge.failed");
    const account = operations.match(/- \*\*Your account\*\*[\s\S]*?(?=\n- \*\*)/)?.[0] ?? "";
    const connect = operations.match(/- \*\*Connected accounts\*\*[^\n]*/)?.[0] ?? "";
    const listed = new Set([...eventsOf(account), ...eventsOf(connect)]);
    expect(handled.filter((e) => !listed.has(e))).toEqual([]);
    expect(eventsOf(connect)).toEqual(new Set(["account.updated"]));
  });
});
