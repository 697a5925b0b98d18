// /settings → Developers: the creator's API keys. Create one (name and scopes; errors
// beside their fields), see its secret once with Copy, revoke with a confirm, and the last key events.
// Creating needs a recent sign-in: the server's 403 comes with a "Sign in again" link back here.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Check, Copy, KeyRound, Plus, TriangleAlert } from "lucide-react";
import { useState, type FormEvent } from "react";
import {
  API_KEY_SCOPE_LABELS,
  API_KEY_SCOPES,
  createApiKeySchema,
  MAX_API_KEY_NAME_CHARS,
  type ApiKeyEvent,
  type ApiKeyScope,
  type ApiKeySummary,
  type CreatedApiKey,
} from "@shared/developer";
import { SectionSpinner, Spinner } from "@/components/spinner";
import { useDeveloperOverview } from "./queries";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from "@/components/ui/dialog";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { useUnauthorizedRedirect } from "@/features/dashboard/use-unauthorized-redirect";
import { toast } from "@/hooks/use-toast";
import { api, withoutStatus } from "@/lib/api";
import { LoadFailed } from "@/components/load-failed";
import { queryKeys } from "@/lib/query-keys";

const when = (iso: string | null) =>
  iso ? new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" }) : "Never";

type Errors = { name?: string; scopes?: string; form?: string; signInAgain?: boolean };

/** "name: Name must…; scopes: …" (the API's words) -> the field each belongs to. */
function errorsFromServer(message: string): Errors {
  if (/^403: .*sign in again/i.test(message)) return { form: withoutStatus(message), signInAgain: true };
  const errors: Errors = {};
  for (const part of withoutStatus(message).split("; ")) {
    const match = /^(name|scopes)(?:\.\d+)?: (.*)$/.exec(part);
    if (match) errors[match[1] as "name" | "scopes"] = match[2];
    else errors.form = part;
  }
  return errors;
}

/** Signs out, then asks for a sign-in that comes back here: the fresh session may create keys. */
async function signInAgain() {
  await fetch("/api/logout", { method: "POST", credentials: "include" }).catch(() => undefined);
  window.location.assign(`/sign-in?returnTo=${encodeURIComponent("/settings#developers")}`);
}

function FieldError({ id, message }: { id: string; message?: string }) {
  if (!message) return null;
  return (
    <p id={id} className="text-sm text-destructive" role="alert">
      {message}
    </p>
  );
}

function CreateKeyForm({ onCreated, onCancel }: { onCreated: (key: CreatedApiKey) => void; onCancel: () => void }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState("");
  const [scopes, setScopes] = useState<ApiKeyScope[]>(["content:read"]);
  const [errors, setErrors] = useState<Errors>({});
  const create = useMutation({
    mutationFn: async (input: { name: string; scopes: ApiKeyScope[] }) =>
      api("POST /api/developer/keys", { body: input }),
    onSuccess: (key) => {
      queryClient.invalidateQueries({ queryKey: queryKeys.developerKeys });
      onCreated(key);
    },
    onError: (error) => setErrors(errorsFromServer(error.message)),
  });
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    const parsed = createApiKeySchema.safeParse({ name, scopes });
    if (!parsed.success) {
      const next: Errors = {};
      for (const issue of parsed.error.issues) next[issue.path[0] as "name" | "scopes"] ??= issue.message;
      return setErrors(next);
    }
    setErrors({});
    create.mutate(parsed.data);
  };
  const toggle = (scope: ApiKeyScope, on: boolean) => {
    setScopes((s) => (on ? [...s, scope] : s.filter((x) => x !== scope)));
    setErrors((e) => ({ ...e, scopes: undefined }));
  };
  return (
    <form onSubmit={onSubmit} noValidate aria-label="Create API key" className="space-y-4 rounded-lg border p-4">
      <div className="space-y-2">
        <Label htmlFor="api-key-name">Name</Label>
        <Input
          id="api-key-name"
          value={name}
          maxLength={MAX_API_KEY_NAME_CHARS + 10}
          placeholder="e.g. Zapier, my store's backend"
          onChange={(e) => {
            setName(e.target.value);
            setErrors((x) => ({ ...x, name: undefined }));
          }}
          aria-invalid={!!errors.name}
          aria-describedby={errors.name ? "api-key-name-error" : undefined}
        />
        <FieldError id="api-key-name-error" message={errors.name} />
      </div>
      <fieldset className="space-y-2" aria-describedby={errors.scopes ? "api-key-scopes-error" : undefined}>
        <legend className="text-sm font-medium">Scopes</legend>
        {API_KEY_SCOPES.map((scope) => (
          <label key={scope} className="flex items-start gap-2 text-sm">
            <input
              type="checkbox"
              className="mt-1 size-4 accent-primary"
              checked={scopes.includes(scope)}
              onChange={(e) => toggle(scope, e.target.checked)}
            />
            <span>
              <code className="font-mono text-xs">{scope}</code>
              <span className="block text-muted-foreground">{API_KEY_SCOPE_LABELS[scope]}</span>
            </span>
          </label>
        ))}
        <FieldError id="api-key-scopes-error" message={errors.scopes} />
      </fieldset>
      {errors.form && (
        <p className="text-sm text-destructive" role="alert">
          {errors.form}{" "}
          {errors.signInAgain && (
            <button type="button" className="font-medium underline" onClick={signInAgain}>
              Sign in again
            </button>
          )}
        </p>
      )}
      <div className="flex flex-wrap gap-2">
        <Button type="submit" disabled={create.isPending}>
          {create.isPending && <Spinner className="size-4" label="Creating" />} Create key
        </Button>
        <Button type="button" variant="ghost" onClick={onCancel}>
          Cancel
        </Button>
      </div>
    </form>
  );
}

function NewKey({ created, onDone }: { created: CreatedApiKey; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(created.key);
      setCopied(true);
      toast({ title: "Key Copied", description: "Your API key is on the clipboard." });
    } catch {
      toast({ title: "Copy Failed", description: "Select the key and copy it by hand.", variant: "destructive" });
    }
  };
  return (
    <div
      className="space-y-3 rounded-lg border border-amber-500/60 bg-amber-50 p-4 dark:bg-amber-950/30"
      data-testid="new-api-key"
    >
      <p className="flex items-center gap-2 font-medium">
        <TriangleAlert className="size-4 shrink-0 text-amber-600" /> You won't see this key again
      </p>
      <p className="text-sm text-muted-foreground">
        Copy “{created.name}” now and keep it somewhere safe, like your app's secret settings.
      </p>
      <div className="flex flex-col gap-2 sm:flex-row">
        <Input
          readOnly
          value={created.key}
          aria-label="Your new API key"
          className="font-mono text-xs"
          onFocus={(e) => e.target.select()}
        />
        <Button type="button" variant="outline" onClick={copy}>
          {copied ? <Check /> : <Copy />} Copy
        </Button>
      </div>
      <Button type="button" size="sm" onClick={onDone}>
        I've saved it
      </Button>
    </div>
  );
}

function RevokeDialog({ apiKey, onClose }: { apiKey: ApiKeySummary; onClose: () => void }) {
  const queryClient = useQueryClient();
  const revoke = useMutation({
    mutationFn: async () => api("DELETE /api/developer/keys/:id", { params: { id: apiKey.id } }),
    onSuccess: () => {
      queryClient.invalidateQueries({ queryKey: queryKeys.developerKeys });
      toast({ title: "Key Revoked", description: `“${apiKey.name}” no longer works.` });
      onClose();
    },
  });
  return (
    <Dialog open onOpenChange={(open) => !open && onClose()}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Revoke “{apiKey.name}”?</DialogTitle>
          <DialogDescription>
            Anything using this key ({apiKey.prefix}…) stops working at once. This cannot be undone.
          </DialogDescription>
        </DialogHeader>
        {revoke.error && (
          <p className="text-sm text-destructive" role="alert">
            {withoutStatus(revoke.error.message)}
          </p>
        )}
        <DialogFooter>
          <Button variant="ghost" onClick={onClose}>
            Cancel
          </Button>
          <Button variant="destructive" disabled={revoke.isPending} onClick={() => revoke.mutate()}>
            {revoke.isPending && <Spinner className="size-4" label="Revoking" />} Revoke key
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}

function KeyList({ keys }: { keys: ApiKeySummary[] }) {
  const [revoking, setRevoking] = useState<ApiKeySummary | null>(null);
  if (!keys.length) {
    return (
      <div className="rounded-lg border border-dashed p-6 text-center text-sm text-muted-foreground">
        No API keys yet. Create one to reach your items, sales and payouts from your own code.
      </div>
    );
  }
  return (
    <>
      <ul className="divide-y rounded-lg border" aria-label="API keys">
        {keys.map((k) => (
          <li
            key={k.id}
            className="flex flex-col gap-2 p-3 sm:flex-row sm:items-center sm:justify-between"
            data-testid="api-key-row"
          >
            <div className="min-w-0 space-y-1">
              <p className="flex flex-wrap items-center gap-2 font-medium">
                <span className="break-all">{k.name}</span>
                <code className="font-mono text-xs text-muted-foreground">{k.prefix}…</code>
                {k.revokedAt && <Badge variant="secondary">Revoked</Badge>}
              </p>
              <p className="flex flex-wrap gap-1">
                {k.scopes.map((s) => (
                  <Badge key={s} variant="outline" className="font-mono text-xs">
                    {s}
                  </Badge>
                ))}
              </p>
              <p className="text-xs text-muted-foreground">
                Created {when(k.createdAt)} · Last used {when(k.lastUsedAt)}
                {k.revokedAt && ` · Revoked ${when(k.revokedAt)}`}
              </p>
            </div>
            {!k.revokedAt && (
              <Button variant="outline" size="sm" className="self-start sm:self-center" onClick={() => setRevoking(k)}>
                Revoke
              </Button>
            )}
          </li>
        ))}
      </ul>
      {revoking && <RevokeDialog apiKey={revoking} onClose={() => setRevoking(null)} />}
    </>
  );
}

const ACTION_TEXT: Record<ApiKeyEvent["action"], string> = {
  created: "Created",
  revoked: "Revoked",
  used: "Changed",
  used_denied: "Refused",
};

function KeyEvents({ events }: { events: ApiKeyEvent[] }) {
  if (!events.length) return null;
  return (
    <div className="space-y-2">
      <h3 className="text-sm font-medium">Recent key activity</h3>
      <ul className="space-y-1 text-sm" aria-label="Recent key activity">
        {events.map((e) => (
          <li key={e.id} className="flex flex-wrap gap-x-2 text-muted-foreground">
            <span className="font-medium text-foreground">{ACTION_TEXT[e.action]}</span>
            <span className="break-all">{e.keyName}</span>
            <span>{when(e.at)}</span>
            {e.ip && <span>from {e.ip}</span>}
            {e.detail && <span className="w-full break-all text-xs">{e.detail}</span>}
          </li>
        ))}
      </ul>
    </div>
  );
}

export function DeveloperCard() {
  const { data, isLoading, error, refetch } = useDeveloperOverview();
  useUnauthorizedRedirect(error);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  return (
    <Card id="developers">
      <CardHeader>
        <CardTitle className="flex items-center gap-2">
          <KeyRound className="size-5" /> Developers
        </CardTitle>
        <CardDescription>
          API keys let your own code call ApeWall with <code className="font-mono text-xs">Authorization: Bearer</code>,
          limited to the scopes you choose. Every call, its scope and its answers are in the{" "}
          <a href="/docs/api" className="font-medium text-primary underline-offset-4 hover:underline">
            API reference
          </a>
          .
        </CardDescription>
      </CardHeader>
      <CardContent className="space-y-4">
        {isLoading ? (
          <SectionSpinner />
        ) : error || !data ? (
          <LoadFailed what="your API keys" detail={error ? withoutStatus(error.message) : ""} onRetry={refetch} />
        ) : (
          <>
            {created && <NewKey created={created} onDone={() => setCreated(null)} />}
            {creating ? (
              <CreateKeyForm
                onCancel={() => setCreating(false)}
                onCreated={(key) => {
                  setCreating(false);
                  setCreated(key);
                }}
              />
            ) : (
              <Button
                onClick={() => {
                  setCreated(null);
                  setCreating(true);
                }}
              >
                <Plus /> Create API key
              </Button>
            )}
            <KeyList keys={data.keys} />
            <KeyEvents events={data.events} />
          </>
        )}
      </CardContent>
    </Card>
  );
}
