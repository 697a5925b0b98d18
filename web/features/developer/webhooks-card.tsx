// /settings → Developers → Webhooks: the creator's endpoints (url, events, status, why one
// was disabled, Enable again), add and edit (url and event checkboxes; errors beside their fields),
// the signing secret on demand and Rotate, "Send test event", and each endpoint's delivery log (every
// attempt: status, answer excerpt, time) with Resend.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Plus, Webhook } from "lucide-react";
import { useState } from "react";
import type { WebhookEndpoint } from "@shared/webhooks";
import { SectionSpinner } from "@/components/spinner";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { useUnauthorizedRedirect } from "@/features/dashboard/use-unauthorized-redirect";
import { toast } from "@/hooks/use-toast";
import { api, apiRequest, withoutStatus } from "@/lib/api";
import { LoadFailed } from "@/components/load-failed";
import { useWebhookEndpoints, webhookPath as path } from "./queries";
import { DeliveryLog } from "./webhook-deliveries";
import { SecretField } from "./secret-field";
import { EndpointForm } from "./webhook-endpoint-form";
import { queryKeys } from "@/lib/query-keys";

function SigningSecret({ endpoint }: { endpoint: WebhookEndpoint }) {
  const [secret, setSecret] = useState<string | null>(null);
  const load = useMutation({
    mutationFn: async (rotate: boolean) =>
      api(rotate ? "POST /api/developer/webhooks/:id/secret" : "GET /api/developer/webhooks/:id/secret", {
        params: { id: endpoint.id },
      }),
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
        <SecretField value={secret} label="Signing secret" />
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

function EndpointRow({ endpoint }: { endpoint: WebhookEndpoint }) {
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState(false);
  const [showLog, setShowLog] = useState(false);
  const invalidate = () => queryClient.invalidateQueries({ queryKey: queryKeys.webhooks });
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
  const { data, isLoading, error, refetch } = useWebhookEndpoints();
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
