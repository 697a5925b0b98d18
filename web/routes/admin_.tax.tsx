import { createFileRoute } from "@tanstack/react-router";
import { periodFromQuery } from "@/features/admin/tax/queries";
import { TaxPage } from "@/features/admin/tax/tax-page";

function TaxRoute() {
  const { month } = Route.useSearch();
  return <TaxPage period={periodFromQuery(month)} />;
}

// `?month=2025-03`; none (or a bad one) is the month that closed last.
export const Route = createFileRoute("/admin_/tax")({
  validateSearch: (search: Record<string, unknown>): { month?: string } =>
    typeof search.month === "string" ? { month: search.month } : {},
  component: TaxRoute,
});
