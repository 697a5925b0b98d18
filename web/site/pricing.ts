// The pricing page's island (docs/pages.md): for a signed-in creator already on Pro, the Pro card
// says so ("You're on Pro", the renewal as Stripe last told it, 'Manage subscription' in place of
// 'Upgrade to Pro'), as the SPA's page did. 'Go to Dashboard' for any signed-in visitor comes from the
// shared island. Everything changes in place: the renewal line's room is in the Worker's HTML.
import { sessionProbe } from "./common";
import { ON_PRO, PRICING_PART as PART, PRICING_TEXT, renewalText } from "@shared/pricing-page";

/** GET /api/subscription as far as this page reads it (shared/subscription.ts). */
type Plan = { plan: "free" | "pro"; currentPeriodEnd: string | null; cancelAtPeriodEnd: boolean };

const part = (name: string) => document.querySelector(`[data-part="${name}"]`) as HTMLElement;

async function showPlan() {
  if (!(await sessionProbe)?.user) return;
  const res = await fetch("/api/subscription", { credentials: "same-origin" });
  if (!res.ok) return;
  const plan = (await res.json()) as Plan;
  if (plan.plan !== "pro") return;
  const badge = part(PART.onPro);
  badge.textContent = ON_PRO;
  badge.hidden = false;
  part(PART.renewal).textContent = renewalText(plan) ?? "";
  const action = part(PART.proAction) as HTMLAnchorElement;
  action.textContent = PRICING_TEXT.manage;
  action.href = "/settings";
  part(PART.creatorCard).classList.remove("border-primary", "shadow-lg");
  part(PART.proCard).classList.add("border-emerald-500", "shadow-lg");
}
showPlan().catch(() => {
  // Offline or refused: the page stays as it was sent.
});
