// The admin's tax page data (worker/routes/admin-tax.ts): keys under /api/admin/tax, so the re-read
// refreshes the month's figures by prefix; the CSV is saved only when complete.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { CSV_ROW_COUNT_HEADER, csvDataRowCount } from "@shared/admin";
import type { TaxReconciliation, TaxRegistrationsView, TaxReport, TaxRereadResult } from "@shared/admin-tax";
import { throwIfResNotOk } from "@/lib/api";

import { MONTHS, type Period } from "../period-picker";

export type { Period };
export const monthName = (p: Period) => `${MONTHS[p.month - 1]} ${p.year}`;
/** The page's `?month=2025-03`. */
export const monthQuery = (p: Period) => `${p.year}-${String(p.month).padStart(2, "0")}`;

/** `?month=2025-03` read back; otherwise the month that closed last (the one a return is filed for). */
export function periodFromQuery(value: unknown, now = new Date()): Period {
  const m = typeof value === "string" ? /^(\d{4})-(\d{2})$/.exec(value) : null;
  if (m && Number(m[2]) >= 1 && Number(m[2]) <= 12 && Number(m[1]) >= 2024 && Number(m[1]) <= 2030)
    return { year: Number(m[1]), month: Number(m[2]) };
  const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1 };
}

const BASE = "/api/admin/tax";
const taxKeys = {
  report: (p: Period) => [BASE, "report", p] as const,
  reconciliation: (p: Period) => [BASE, "reconciliation", p] as const,
  registrations: [BASE, "registrations"] as const,
};

const periodQuery = (p: Period) => new URLSearchParams({ month: String(p.month), year: String(p.year) }).toString();

async function getJson<T>(url: string, signal?: AbortSignal): Promise<T> {
  const res = await fetch(url, { credentials: "include", signal });
  await throwIfResNotOk(res);
  return (await res.json()) as T;
}

export const useTaxReport = (p: Period) =>
  useQuery({
    queryKey: taxKeys.report(p),
    queryFn: ({ signal }) => getJson<TaxReport>(`${BASE}/report?${periodQuery(p)}`, signal),
  });

export const useTaxReconciliation = (p: Period) =>
  useQuery({
    queryKey: taxKeys.reconciliation(p),
    queryFn: ({ signal }) => getJson<TaxReconciliation>(`${BASE}/reconciliation?${periodQuery(p)}`, signal),
  });

export const useTaxRegistrations = () =>
  useQuery({
    queryKey: taxKeys.registrations,
    queryFn: ({ signal }) => getJson<TaxRegistrationsView>(`${BASE}/registrations`, signal),
    retry: false,
  });

/** Downloads the month's tax CSV; saves it only when every row arrived (CSV_ROW_COUNT_HEADER). */
async function downloadTaxCsv(p: Period): Promise<{ fileName: string }> {
  const res = await fetch(`${BASE}/report.csv?${periodQuery(p)}`, { credentials: "include" });
  await throwIfResNotOk(res);
  const text = await res.text();
  const stated = Number(res.headers.get(CSV_ROW_COUNT_HEADER));
  if (csvDataRowCount(text) !== stated)
    throw new Error("The file arrived incomplete. Nothing was saved; please try again.");
  const fileName = /filename="([^"]+)"/.exec(res.headers.get("content-disposition") ?? "")?.[1] ?? "tax.csv";
  const url = URL.createObjectURL(new Blob([text], { type: "text/csv;charset=utf-8" }));
  const a = Object.assign(document.createElement("a"), { href: url, download: fileName });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
  return { fileName };
}

export const useDownloadTaxCsv = (h: { onError: (e: Error) => void }) =>
  useMutation({ mutationFn: downloadTaxCsv, onError: h.onError });

/**
 * Re-reads from Stripe every order of the month whose tax transaction is missing here: the server
 * looks up one batch per call, so this calls again from where it stopped until none remain.
 */
async function rereadAll(p: Period): Promise<{ recorded: number; notAtStripe: number }> {
  const sum = { recorded: 0, notAtStripe: 0 };
  let after: string | undefined;
  for (;;) {
    const res = await fetch(`${BASE}/reconciliation/reread`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ ...p, ...(after ? { after } : {}) }),
      credentials: "include",
    });
    await throwIfResNotOk(res);
    const page = (await res.json()) as TaxRereadResult;
    sum.recorded += page.recorded;
    sum.notAtStripe += page.notAtStripe.length;
    if (!page.remaining || !page.checked || !page.lastOrderId) return sum;
    after = page.lastOrderId;
  }
}

export const useRereadTax = (h: {
  onSuccess: (r: { recorded: number; notAtStripe: number }) => void;
  onError: (e: Error) => void;
}) => {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: rereadAll,
    onSuccess: (r) => {
      h.onSuccess(r);
      void qc.invalidateQueries({ queryKey: [BASE] });
    },
    onError: h.onError,
  });
};
