// Adding or editing a webhook endpoint: url, description and event checkboxes, errors beside their fields.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import {
  createWebhookEndpointSchema,
  WEBHOOK_EVENT_LABELS,
  WEBHOOK_EVENT_TYPES,
  type WebhookEndpoint,
  type WebhookEventType,
} from "@shared/webhooks";
import { Spinner } from "@/components/spinner";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { toast } from "@/hooks/use-toast";
import { api, withoutStatus } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";

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

export function EndpointForm({ endpoint, onDone }: { endpoint?: WebhookEndpoint; onDone: () => void }) {
  const queryClient = useQueryClient();
  const [url, setUrl] = useState(endpoint?.url ?? "");
  const [description, setDescription] = useState(endpoint?.description ?? "");
  const [events, setEvents] = useState<WebhookEventType[]>(endpoint?.events ?? ["sale.completed"]);
  const [errors, setErrors] = useState<Errors>({});
  const save = useMutation({
    mutationFn: async (input: { url: string; events: WebhookEventType[]; description: string }) =>
      endpoint
        ? api("PATCH /api/developer/webhooks/:id", { params: { id: endpoint.id }, body: input })
        : api("POST /api/developer/webhooks", { body: input }),
    onSuccess: () => {
      queryClient.invalidateQueries({ queryKey: queryKeys.webhooks });
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
