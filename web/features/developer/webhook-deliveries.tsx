// An endpoint's delivery log: every attempt (its cause in words, answer excerpt, time), older pages on demand, Resend.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { WebhookDelivery, WebhookEndpoint } from "@shared/webhooks";
import { LoadFailed } from "@/components/load-failed";
import { SectionSpinner, Spinner } from "@/components/spinner";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { toast } from "@/hooks/use-toast";
import { apiRequest, withoutStatus } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";
import { useWebhookDeliveries, webhookPath as path } from "./queries";

const when = (iso: string | null) =>
  iso ? new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "medium" }) : "—";
const ok = (status: number | null) => status !== null && status >= 200 && status < 300;
const statusBadge = (d: WebhookDelivery) =>
  d.status === "delivered" ? (
    <Badge>Delivered</Badge>
  ) : d.status === "pending" ? (
    <Badge variant="secondary">{d.attempts ? "Retrying" : "Pending"}</Badge>
  ) : (
    <Badge variant="destructive">{d.status === "failed" ? "Failed" : "Stopped"}</Badge>
  );

export function DeliveryLog({ endpoint }: { endpoint: WebhookEndpoint }) {
  const queryClient = useQueryClient();
  const {
    data: pages,
    isLoading,
    error,
    refetch,
    isFetching,
    hasNextPage,
    fetchNextPage,
    isFetchingNextPage,
  } = useWebhookDeliveries(endpoint.id);
  const data = pages ? { deliveries: pages.pages.flatMap((p) => p.deliveries) } : undefined;
  const resend = useMutation({
    mutationFn: async (deliveryId: string) =>
      apiRequest("POST", `${path(endpoint.id)}/deliveries/${encodeURIComponent(deliveryId)}/resend`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.webhookDeliveries(endpoint.id) }),
    onError: (error) =>
      toast({ title: "Couldn't Resend", description: withoutStatus(error.message), variant: "destructive" }),
  });
  if (isLoading) return <SectionSpinner />;
  if (error || !data)
    return (
      <LoadFailed
        what="the deliveries"
        detail={error ? withoutStatus(error.message) : ""}
        onRetry={refetch}
        className="space-y-2 py-0 text-left text-sm"
      />
    );
  if (!data.deliveries.length)
    return (
      <p className="rounded-lg border border-dashed p-4 text-center text-sm text-muted-foreground">
        No deliveries yet. Send a test event to try your endpoint.
      </p>
    );
  return (
    <ul className="space-y-2" aria-label="Deliveries">
      {data.deliveries.map((d) => (
        <li key={d.id} className="space-y-2 rounded-lg border p-3 text-sm" data-testid="webhook-delivery">
          <div className="flex flex-wrap items-center justify-between gap-2">
            <p className="flex min-w-0 flex-wrap items-center gap-2">
              <code className="font-mono text-xs">{d.type}</code>
              {statusBadge(d)}
              <span className="break-all font-mono text-xs text-muted-foreground">{d.id}</span>
            </p>
            <Button
              variant="outline"
              size="sm"
              disabled={resend.isPending || endpoint.status !== "active"}
              onClick={() => resend.mutate(d.id)}
            >
              Resend
            </Button>
          </div>
          {d.status === "pending" && d.nextAttemptAt && d.attempts > 0 && (
            <p className="text-xs text-muted-foreground">Next try {when(d.nextAttemptAt)}</p>
          )}
          <ol className="space-y-1" aria-label="Attempts">
            {d.log.map((a) => (
              <li key={a.id} className="rounded bg-muted/50 p-2 text-xs" data-testid="webhook-attempt">
                <span className={ok(a.status) ? "font-medium" : "font-medium text-destructive"} data-cause>
                  {a.cause}
                </span>{" "}
                · {when(a.at)} · {a.durationMs} ms
                {a.responseExcerpt && (
                  <span className="mt-1 block break-all font-mono text-muted-foreground">{a.responseExcerpt}</span>
                )}
              </li>
            ))}
          </ol>
        </li>
      ))}
      {hasNextPage && (
        <li>
          <Button variant="outline" size="sm" disabled={isFetchingNextPage} onClick={() => fetchNextPage()}>
            {isFetchingNextPage && <Spinner className="size-4" label="Loading" />} Load older deliveries
          </Button>
        </li>
      )}
      {isFetching && !isFetchingNextPage && (
        <li>
          <Spinner className="size-4" label="Refreshing" />
        </li>
      )}
    </ul>
  );
}
