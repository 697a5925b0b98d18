// /settings → Developers → Webhooks (issue 18): the creator's endpoints (url, events, status, why one
// was disabled, Enable again), add and edit (url and event checkboxes; errors beside their fields),
// the signing secret on demand and Rotate, "Send test event", and each endpoint's delivery log (every
// attempt: status, answer excerpt, time) with Resend.
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Plus, Webhook } from "lucide-react";
import { useState, type FormEvent } from "react";
import {
  createWebhookEndpointSchema,
  WEBHOOK_EVENT_LABELS,
  WEBHOOK_EVENT_TYPES,
  type WebhookDelivery,
  type WebhookDeliveryPage,
  type WebhookEndpoint,
  type WebhookEventType,
} from "@shared/webhooks";
import { SectionSpinner, Spinner } from "@/components/spinner";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { useUnauthorizedRedirect } from "@/features/dashboard/use-unauthorized-redirect";
import { toast } from "@/hooks/use-toast";
import { apiRequest, withoutStatus } from "@/lib/api";
import { webhookDeliveryKeys, webhookKeys } from "./queries";
import { LoadFailed } from "@/components/load-failed";

const when = (iso: string | null) =>
  iso ? new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "medium" }) : "—";
const path = (id: string) => `/api/developer/webhooks/${encodeURIComponent(id)}`;

type Errors = { url?: string; events?: string; description?: string; form?: string };

/** "url: …; events: …" (the API's words) -> the field each belongs to. */
function errorsFromServer(message: string): Errors {
  const errors: Errors = {};
  for (const part of withoutStatus(message).split("; ")) {
    const match = /^(url|events|description)(?:\.\d+)?: (.*)$/.exec(part);
    if (match) errors[match[1] as "url" | "events" | "description"] = match[2];
    else errors.form = part;
  }
  return errors;
}

function FieldError({ id, message }: { id: string; message?: string }) {
  if (!message) return null;
  return (
    <p id={id} className="text-sm text-destructive" role="alert">
      {message}
    </p>
  );
}

function EndpointForm({ endpoint, onDone }: { endpoint?: WebhookEndpoint; onDone: () => void }) {
  const queryClient = useQueryClient();
  const [url, setUrl] = useState(endpoint?.url ?? "");
  const [description, setDescription] = useState(endpoint?.description ?? "");
  const [events, setEvents] = useState<WebhookEventType[]>(endpoint?.events ?? ["sale.completed"]);
  const [errors, setErrors] = useState<Errors>({});
  const save = useMutation({
    mutationFn: async (input: { url: string; events: WebhookEventType[]; description: string }) =>
      (
        await apiRequest(endpoint ? "PATCH" : "POST", endpoint ? path(endpoint.id) : "/api/developer/webhooks", input)
      ).json() as Promise<WebhookEndpoint>,
    onSuccess: () => {
      queryClient.invalidateQueries({ queryKey: webhookKeys });
      toast({ title: endpoint ? "Endpoint Saved" : "Endpoint Added", description: url });
      onDone();
    },
    onError: (error) => setErrors(errorsFromServer(error.message)),
  });
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    const parsed = createWebhookEndpointSchema.safeParse({ url, events, description });
    if (!parsed.success) {
      const next: Errors = {};
      for (const issue of parsed.error.issues)
        next[issue.path[0] as "url" | "events" | "description"] ??= issue.message;
      return setErrors(next);
    }
    setErrors({});
    save.mutate(parsed.data);
  };
  const id = endpoint?.id ?? "new";
  return (
    <form
      onSubmit={onSubmit}
      noValidate
      aria-label={endpoint ? "Edit webhook endpoint" : "Add webhook endpoint"}
      className="space-y-4 rounded-lg border p-4"
    >
      <div className="space-y-2">
        <Label htmlFor={`webhook-url-${id}`}>Endpoint URL</Label>
        <Input
          id={`webhook-url-${id}`}
          type="url"
          inputMode="url"
          value={url}
          placeholder="https://example.com/apewall/webhooks"
          onChange={(e) => {
            setUrl(e.target.value);
            setErrors((x) => ({ ...x, url: undefined }));
          }}
          aria-invalid={!!errors.url}
          aria-describedby={errors.url ? `webhook-url-${id}-error` : undefined}
        />
        <FieldError id={`webhook-url-${id}-error`} message={errors.url} />
      </div>
      <div className="space-y-2">
        <Label htmlFor={`webhook-description-${id}`}>Description (optional)</Label>
        <Input
          id={`webhook-description-${id}`}
          value={description}
          onChange={(e) => {
            setDescription(e.target.value);
            setErrors((x) => ({ ...x, description: undefined }));
          }}
          aria-invalid={!!errors.description}
          aria-describedby={errors.description ? `webhook-description-${id}-error` : undefined}
        />
        <FieldError id={`webhook-description-${id}-error`} message={errors.description} />
      </div>
      <fieldset className="space-y-2" aria-describedby={errors.events ? `webhook-events-${id}-error` : undefined}>
        <legend className="text-sm font-medium">Events</legend>
        <div className="grid gap-2 sm:grid-cols-2">
          {WEBHOOK_EVENT_TYPES.map((type) => (
            <label key={type} className="flex items-start gap-2 text-sm">
              <input
                type="checkbox"
                className="mt-1 size-4 accent-primary"
                checked={events.includes(type)}
                onChange={(e) => {
                  setEvents((s) => (e.target.checked ? [...s, type] : s.filter((x) => x !== type)));
                  setErrors((x) => ({ ...x, events: undefined }));
                }}
              />
              <span>
                <code className="font-mono text-xs">{type}</code>
                <span className="block text-muted-foreground">{WEBHOOK_EVENT_LABELS[type]}</span>
              </span>
            </label>
          ))}
        </div>
        <FieldError id={`webhook-events-${id}-error`} message={errors.events} />
      </fieldset>
      {errors.form && (
        <p className="text-sm text-destructive" role="alert">
          {errors.form}
        </p>
      )}
      <div className="flex flex-wrap gap-2">
        <Button type="submit" disabled={save.isPending}>
          {save.isPending && <Spinner className="size-4" label="Saving" />}{" "}
          {endpoint ? "Save endpoint" : "Add endpoint"}
        </Button>
        <Button type="button" variant="ghost" onClick={onDone}>
          Cancel
        </Button>
      </div>
    </form>
  );
}

function SigningSecret({ endpoint }: { endpoint: WebhookEndpoint }) {
  const [secret, setSecret] = useState<string | null>(null);
  const load = useMutation({
    mutationFn: async (rotate: boolean) =>
      (await apiRequest(rotate ? "POST" : "GET", `${path(endpoint.id)}/secret`)).json() as Promise<{ secret: string }>,
    onSuccess: (r, rotate) => {
      setSecret(r.secret);
      if (rotate) toast({ title: "Secret Rotated", description: "New messages are signed with the new secret." });
    },
    onError: (error) =>
      toast({ title: "Couldn't Load the Secret", description: withoutStatus(error.message), variant: "destructive" }),
  });
  return (
    <div className="flex flex-col gap-2 sm:flex-row sm:items-center">
      {secret ? (
        <Input
          readOnly
          value={secret}
          aria-label="Signing secret"
          className="font-mono text-xs"
          onFocus={(e) => e.target.select()}
        />
      ) : (
        <Button variant="outline" size="sm" disabled={load.isPending} onClick={() => load.mutate(false)}>
          Reveal signing secret
        </Button>
      )}
      <Button
        variant="ghost"
        size="sm"
        disabled={load.isPending}
        onClick={() =>
          window.confirm("Rotate the signing secret? Your receiver must use the new one at once.") && load.mutate(true)
        }
      >
        Rotate secret
      </Button>
    </div>
  );
}

const statusBadge = (d: WebhookDelivery) =>
  d.status === "delivered" ? (
    <Badge>Delivered</Badge>
  ) : d.status === "pending" ? (
    <Badge variant="secondary">{d.attempts ? "Retrying" : "Pending"}</Badge>
  ) : (
    <Badge variant="destructive">{d.status === "failed" ? "Failed" : "Stopped"}</Badge>
  );

function DeliveryLog({ endpoint }: { endpoint: WebhookEndpoint }) {
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
  } = useInfiniteQuery({
    queryKey: webhookDeliveryKeys(endpoint.id),
    queryFn: async ({ pageParam }) =>
      (
        await apiRequest(
          "GET",
          `${path(endpoint.id)}/deliveries${pageParam ? `?before=${encodeURIComponent(pageParam)}` : ""}`,
        )
      ).json() as Promise<WebhookDeliveryPage>,
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextBefore,
    // Pending deliveries move by themselves: look again while any is in flight.
    refetchInterval: (q) =>
      q.state.data?.pages.some((p) => p.deliveries.some((d) => d.status === "pending")) ? 2000 : false,
  });
  const data = pages ? { deliveries: pages.pages.flatMap((p) => p.deliveries) } : undefined;
  const resend = useMutation({
    mutationFn: async (deliveryId: string) =>
      apiRequest("POST", `${path(endpoint.id)}/deliveries/${encodeURIComponent(deliveryId)}/resend`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: webhookDeliveryKeys(endpoint.id) }),
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
                <span className="font-medium">{a.status ?? "No answer"}</span> · {when(a.at)} · {a.durationMs} ms
                {(a.responseExcerpt || a.error) && (
                  <span className="mt-1 block break-all font-mono text-muted-foreground">
                    {a.responseExcerpt || a.error}
                  </span>
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

function EndpointRow({ endpoint }: { endpoint: WebhookEndpoint }) {
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState(false);
  const [showLog, setShowLog] = useState(false);
  const invalidate = () => queryClient.invalidateQueries({ queryKey: webhookKeys });
  const act = useMutation({
    mutationFn: async (action: "enable" | "test" | "delete") => {
      if (action === "enable") return apiRequest("PATCH", path(endpoint.id), { status: "active" });
      if (action === "test") return apiRequest("POST", `${path(endpoint.id)}/test`);
      return apiRequest("DELETE", path(endpoint.id));
    },
    onSuccess: (_r, action) => {
      invalidate();
      if (action === "test") {
        setShowLog(true);
        toast({ title: "Test Event Sent", description: "It appears in the delivery log below." });
      }
    },
    onError: (error) =>
      toast({ title: "Couldn't Do That", description: withoutStatus(error.message), variant: "destructive" }),
  });
  if (editing) return <EndpointForm endpoint={endpoint} onDone={() => setEditing(false)} />;
  return (
    <li className="space-y-3 p-3" data-testid="webhook-endpoint">
      <div className="min-w-0 space-y-1">
        <p className="flex flex-wrap items-center gap-2 font-medium">
          <span className="break-all">{endpoint.url}</span>
          {endpoint.status === "active" ? (
            <Badge variant="outline">Active</Badge>
          ) : (
            <Badge variant="destructive">Disabled</Badge>
          )}
        </p>
        {endpoint.description && <p className="text-sm text-muted-foreground">{endpoint.description}</p>}
        <p className="flex flex-wrap gap-1">
          {endpoint.events.map((e) => (
            <Badge key={e} variant="outline" className="font-mono text-xs">
              {e}
            </Badge>
          ))}
        </p>
        {endpoint.status === "disabled" && endpoint.disabledReason && (
          <p className="text-sm text-destructive">{endpoint.disabledReason}</p>
        )}
      </div>
      <SigningSecret endpoint={endpoint} />
      <div className="flex flex-wrap gap-2">
        {endpoint.status === "disabled" && (
          <Button size="sm" disabled={act.isPending} onClick={() => act.mutate("enable")}>
            Enable again
          </Button>
        )}
        <Button
          variant="outline"
          size="sm"
          disabled={act.isPending || endpoint.status !== "active"}
          onClick={() => act.mutate("test")}
        >
          Send test event
        </Button>
        <Button variant="outline" size="sm" onClick={() => setShowLog((s) => !s)} aria-expanded={showLog}>
          {showLog ? "Hide deliveries" : "Deliveries"}
        </Button>
        <Button variant="ghost" size="sm" onClick={() => setEditing(true)}>
          Edit
        </Button>
        <Button
          variant="ghost"
          size="sm"
          disabled={act.isPending}
          onClick={() =>
            window.confirm(`Delete the endpoint ${endpoint.url} and its delivery log?`) && act.mutate("delete")
          }
        >
          Delete
        </Button>
      </div>
      {showLog && <DeliveryLog endpoint={endpoint} />}
    </li>
  );
}

export function WebhooksCard() {
  const { data, isLoading, error, refetch } = useQuery<{ endpoints: WebhookEndpoint[] }>({ queryKey: webhookKeys });
  useUnauthorizedRedirect(error);
  const [adding, setAdding] = useState(false);
  return (
    <Card id="webhooks">
      <CardHeader>
        <CardTitle className="flex items-center gap-2">
          <Webhook className="size-5" /> Webhooks
        </CardTitle>
        <CardDescription>
          ApeWall POSTs each event you choose to your endpoint, signed per the Standard Webhooks specification (
          <code className="font-mono text-xs">webhook-signature</code>
          ). Failed deliveries are retried for 3 days.
        </CardDescription>
      </CardHeader>
      <CardContent className="space-y-4">
        {isLoading ? (
          <SectionSpinner />
        ) : error || !data ? (
          <LoadFailed
            what="your webhook endpoints"
            detail={error ? withoutStatus(error.message) : ""}
            onRetry={refetch}
          />
        ) : (
          <>
            {adding ? (
              <EndpointForm onDone={() => setAdding(false)} />
            ) : (
              <Button onClick={() => setAdding(true)}>
                <Plus /> Add endpoint
              </Button>
            )}
            {data.endpoints.length ? (
              <ul className="divide-y rounded-lg border" aria-label="Webhook endpoints">
                {data.endpoints.map((e) => (
                  <EndpointRow key={e.id} endpoint={e} />
                ))}
              </ul>
            ) : (
              <div className="rounded-lg border border-dashed p-6 text-center text-sm text-muted-foreground">
                No webhook endpoints yet. Add one to hear about sales, refunds and payouts as they happen.
              </div>
            )}
          </>
        )}
      </CardContent>
    </Card>
  );
}
