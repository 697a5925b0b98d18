// /settings → Developers: the creator's API keys. Create one (./create-key-form.tsx), see its
// secret once with Copy, revoke with a confirm, and the last key events. What was typed before a
// "Sign in again" comes back here, the form open (./key-draft.ts).
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Check, Copy, KeyRound, Plus, TriangleAlert } from "lucide-react";
import { useEffect, useState } from "react";
import type { ApiKeyEvent, ApiKeySummary, CreatedApiKey } from "@shared/developer";
import { SectionSpinner, Spinner } from "@/components/spinner";
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
import { useUnauthorizedRedirect } from "@/features/dashboard/use-unauthorized-redirect";
import { toast } from "@/hooks/use-toast";
import { api, withoutStatus } from "@/lib/api";
import { useAuth } from "@/lib/auth";
import { LoadFailed } from "@/components/load-failed";
import { queryKeys } from "@/lib/query-keys";
import { CreateKeyForm } from "./create-key-form";
import { clearKeyDraft, readKeyDraft } from "./key-draft";
import { useDeveloperOverview } from "./queries";
import { SecretField } from "./secret-field";

const when = (iso: string | null) =>
  iso ? new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" }) : "Never";

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
      <div className="flex flex-col gap-2 sm:flex-row sm:items-start">
        <SecretField value={created.key} label="Your new API key" />
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
  const { user } = useAuth();
  // What was typed before a sign-in the server asked for, if this account left some: shown once.
  const [draft] = useState(() => readKeyDraft(user?.id));
  useEffect(() => {
    if (!draft) return;
    clearKeyDraft();
    document.getElementById("developers")?.scrollIntoView({ block: "start" });
  }, [draft]);
  const [creating, setCreating] = useState(!!draft);
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
                userId={user?.id}
                draft={draft}
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
