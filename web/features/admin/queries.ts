// The admin screen's data: query keys (all start with an /api/admin path, so a mutation refreshes them by predicate) and calls.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import {
  CSV_ROW_COUNT_HEADER,
  csvDataRowCount,
  type AdminCreatorPayoutRow,
  type AdminFeedbackItem,
  type CreatorHoldResult,
  type FixPurchaseEmailsResult,
  type MonthlyReport,
  type PayoutActionResult,
  type PayoutRunView,
  type PayoutsWaitingView,
  type ProcessPayoutsInput,
  type ProcessPayoutsResult,
} from "@shared/admin";
import type { AdminPayoutSummary } from "@shared/admin";
import { throwIfResNotOk } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";

import type { Period } from "./period-picker";

export type { Period };

// The admin routes are left out of the shared contract (shared/api.ts), so their answers are typed here.
const getJson = async <T>(url: string, signal?: AbortSignal): Promise<T> => {
  const res = await fetch(url, { credentials: "include", signal });
  await throwIfResNotOk(res);
  return (await res.json()) as T;
};

const postJson = async <T>(url: string, body: unknown): Promise<T> => {
  const res = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
    credentials: "include",
  });
  await throwIfResNotOk(res);
  return (await res.json()) as T;
};

const periodQuery = (p: Period) => new URLSearchParams({ month: String(p.month), year: String(p.year) }).toString();
const exportUrl = (p: Period) => `/api/admin/export-payouts?${periodQuery(p)}`;

/**
 * Downloads the period's payout CSV and saves it only when complete: the rows received must equal
 * the count the server states (CSV_ROW_COUNT_HEADER). A body cut short (a database error on a later
 * page, a dropped connection) rejects with a message and saves nothing.
 */
async function downloadPayoutsCsv(p: Period): Promise<{ rows: number; fileName: string }> {
  const res = await fetch(exportUrl(p), { credentials: "include" });
  await throwIfResNotOk(res);
  const stated = Number(res.headers.get(CSV_ROW_COUNT_HEADER));
  let text: string;
  try {
    text = await res.text();
  } catch {
    throw new Error("The download was cut off before the end. Nothing was saved; please try again.");
  }
  const rows = csvDataRowCount(text);
  if (!res.headers.has(CSV_ROW_COUNT_HEADER) || !Number.isInteger(stated) || rows !== stated)
    throw new Error(
      `The file arrived incomplete (${rows} of ${res.headers.has(CSV_ROW_COUNT_HEADER) ? stated : "?"} rows). Nothing was saved; please try again.`,
    );
  const fileName = /filename="([^"]+)"/.exec(res.headers.get("content-disposition") ?? "")?.[1] ?? "payouts.csv";
  const url = URL.createObjectURL(new Blob([text], { type: "text/csv;charset=utf-8" }));
  const a = Object.assign(document.createElement("a"), { href: url, download: fileName });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
  return { rows, fileName };
}

export const useDownloadPayoutsCsv = (opts: {
  onSuccess?: (r: { rows: number; fileName: string }) => void;
  onError?: (e: Error) => void;
}) => useMutation({ mutationFn: downloadPayoutsCsv, ...opts });

export const useSummary = () =>
  useQuery({
    queryKey: queryKeys.adminPayoutSummary,
    queryFn: ({ signal }) => getJson<AdminPayoutSummary>(queryKeys.adminPayoutSummary[0], signal),
  });
export const useMonthlyReports = () =>
  useQuery({
    queryKey: queryKeys.adminMonthlyReports,
    queryFn: ({ signal }) => getJson<MonthlyReport[]>(queryKeys.adminMonthlyReports[0], signal),
  });

export const useCreatorPayouts = (p: Period) =>
  useQuery({
    queryKey: queryKeys.adminCreatorPayouts(p),
    queryFn: ({ signal }) => getJson<AdminCreatorPayoutRow[]>(`/api/admin/creator-payouts?${periodQuery(p)}`, signal),
  });

export const useFeedbackInbox = (f: { type: string; priority: string }) =>
  useQuery({
    queryKey: queryKeys.adminFeedback(f),
    queryFn: ({ signal }) => {
      const q = new URLSearchParams(Object.entries(f).filter(([, v]) => v && v !== "all"));
      return getJson<AdminFeedbackItem[]>(`/api/admin/feedback${q.size ? `?${q}` : ""}`, signal);
    },
  });

function useAdminMutation<TIn, TOut>(
  fn: (input: TIn) => Promise<TOut>,
  handlers: { onSuccess: (r: TOut) => void; onError: (e: Error) => void },
) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSuccess: (r) => {
      handlers.onSuccess(r);
      void qc.invalidateQueries({ predicate: (q) => String(q.queryKey[0]).startsWith("/api/admin") });
    },
    onError: handlers.onError,
  });
}

/** `markPaid`: the manual payouts of the list on screen, which the admin paid by hand; only those are marked paid. */
export const useProcessPayouts = (h: { onSuccess: (r: ProcessPayoutsResult) => void; onError: (e: Error) => void }) =>
  useAdminMutation(
    async (input: ProcessPayoutsInput) => postJson<ProcessPayoutsResult>("/api/admin/process-payouts", input),
    h,
  );

export const useFixPurchaseEmails = (h: {
  onSuccess: (r: FixPurchaseEmailsResult) => void;
  onError: (e: Error) => void;
}) =>
  useAdminMutation(async () => {
    // The server looks at one page per call (a Worker's subrequest limit): go on until none remain.
    const sum = { fixed: 0, total: 0, remaining: 0, next: null as string | null };
    let after: string | null = null;
    do {
      const page: FixPurchaseEmailsResult = await postJson<FixPurchaseEmailsResult>(
        "/api/admin/fix-purchase-emails",
        after ? { after } : {},
      );
      sum.fixed += page.fixed;
      sum.total += page.total;
      after = page.next;
    } while (after);
    return sum as FixPurchaseEmailsResult;
  }, h);

/** Run states after which nothing more happens without someone pressing something: polling stops. */
const RUN_AT_REST = new Set<PayoutRunView["run"]["status"]>(["complete", "errored", "terminated", "none"]);
const RUN_POLL_MS = 3000;

/** The period's run, live: polled every few seconds while the run is under way (or retries are due). */
export const usePayoutRun = (p: Period) =>
  useQuery({
    queryKey: queryKeys.adminPayoutRun(p),
    queryFn: ({ signal }) => getJson<PayoutRunView>(`/api/admin/payout-run?${periodQuery(p)}`, signal),
    retry: false,
    refetchInterval: (q) => {
      const d = q.state.data;
      if (q.state.status === "error" || !d) return false;
      return RUN_AT_REST.has(d.run.status) && d.retrying === 0 && d.sent === 0 ? false : RUN_POLL_MS;
    },
  });

/** Payouts Stripe refused for the platform's balance, with that balance: polled while any wait. */
export const usePayoutsWaiting = () =>
  useQuery({
    queryKey: queryKeys.adminPayoutsWaiting,
    queryFn: ({ signal }) => getJson<PayoutsWaitingView>(queryKeys.adminPayoutsWaiting[0], signal),
    retry: false,
    refetchInterval: (q) => (q.state.data?.payouts.length ? RUN_POLL_MS * 5 : false),
  });

/** One admin action on one payout or creator (services/payout-admin.ts): the answer says whether it changed anything. */
export type PayoutAction =
  | { kind: "mark-paid"; payoutId: string; reference: string }
  | { kind: "mark-failed"; payoutId: string; reason: string }
  | { kind: "resend"; payoutId: string }
  | { kind: "hold"; userId: string; reason: string }
  | { kind: "release"; userId: string };

async function payoutAction(a: PayoutAction): Promise<PayoutActionResult | CreatorHoldResult> {
  const [url, body] =
    a.kind === "mark-paid"
      ? [`/api/admin/payouts/${encodeURIComponent(a.payoutId)}/mark-paid`, { reference: a.reference }]
      : a.kind === "mark-failed"
        ? [`/api/admin/payouts/${encodeURIComponent(a.payoutId)}/mark-failed`, { reason: a.reason }]
        : a.kind === "resend"
          ? [`/api/admin/payouts/${encodeURIComponent(a.payoutId)}/resend`, {}]
          : a.kind === "hold"
            ? [`/api/admin/creators/${encodeURIComponent(a.userId)}/hold`, { reason: a.reason }]
            : [`/api/admin/creators/${encodeURIComponent(a.userId)}/release`, {}];
  return postJson(url, body);
}

export const usePayoutAction = (h: {
  onSuccess: (r: PayoutActionResult | CreatorHoldResult) => void;
  onError: (e: Error) => void;
}) => useAdminMutation(payoutAction, h);
