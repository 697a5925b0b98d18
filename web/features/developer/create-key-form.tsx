// "Create API key" on /settings → Developers: a name and scopes, errors beside their fields. Creating
// needs a recent sign-in: the server's 403 says why and offers "Sign in again", and what was typed
// comes back after it (./key-draft.ts). docs/api-and-webhooks.md ("API keys").
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import {
  API_KEY_SCOPE_LABELS,
  API_KEY_SCOPES,
  createApiKeySchema,
  MAX_API_KEY_NAME_CHARS,
  type ApiKeyScope,
  type CreatedApiKey,
} from "@shared/developer";
import { Spinner } from "@/components/spinner";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { api, withoutStatus } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";
import { keepKeyDraft, type KeyDraft, needsSignInAgain } from "./key-draft";

type Errors = { name?: string; scopes?: string; form?: string; signInAgain?: boolean };

/** "name: Name must…; scopes: …" (the API's words) -> the field each belongs to. */
function errorsFromServer(message: string): Errors {
  if (needsSignInAgain(message)) return { form: withoutStatus(message), signInAgain: true };
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

export function CreateKeyForm({
  userId,
  draft,
  onCreated,
  onCancel,
}: {
  userId: string | undefined;
  draft: KeyDraft | null;
  onCreated: (key: CreatedApiKey) => void;
  onCancel: () => void;
}) {
  const queryClient = useQueryClient();
  const [name, setName] = useState(draft?.name ?? "");
  const [scopes, setScopes] = useState<ApiKeyScope[]>(draft?.scopes ?? ["content:read"]);
  const [errors, setErrors] = useState<Errors>({});
  const create = useMutation({
    mutationFn: async (input: { name: string; scopes: ApiKeyScope[] }) =>
      api("POST /api/developer/keys", { body: input }),
    onSuccess: (key) => {
      queryClient.invalidateQueries({ queryKey: queryKeys.developerKeys });
      onCreated(key);
    },
    onError: (error, input) => {
      if (needsSignInAgain(error.message) && userId) keepKeyDraft({ userId, name: input.name, scopes: input.scopes });
      setErrors(errorsFromServer(error.message));
    },
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
      {draft && (
        <p className="rounded-md bg-muted p-3 text-sm" role="status">
          We kept what you typed. Check it and create the key.
        </p>
      )}
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
      {errors.form &&
        (errors.signInAgain ? (
          <div
            className="space-y-2 rounded-md border border-destructive/40 p-3 text-sm"
            role="alert"
            data-testid="api-key-sign-in-again"
          >
            <p>{errors.form} What you typed here is kept.</p>
            <Button type="button" size="sm" onClick={signInAgain}>
              Sign in again
            </Button>
          </div>
        ) : (
          <p className="text-sm text-destructive" role="alert">
            {errors.form}
          </p>
        ))}
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
