// The creator's public profile in /settings: display name, avatar, short bio and support email, which
// buyers see on the paywall, at checkout and in their emails ("by {name}"). Errors show beside the
// field they belong to; the avatar is saved as soon as it is chosen.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { BellRing, ImagePlus, Trash2, UserRound } from "lucide-react";
import { useRef, useState, type FormEvent } from "react";
import {
  AVATAR_TYPES,
  EMAIL_ON_SALE_LABEL,
  MAX_AVATAR_BYTES,
  MAX_BIO_CHARS,
  PROFILE_MESSAGES,
  profileSchema,
  type CreatorProfile,
  type ProfileInput,
} from "@shared/profile";
import { CreatorByline } from "@/components/creator-byline";
import { FieldError, FORM, useFieldErrors } from "@/components/field-error";
import { SectionSpinner, Spinner } from "@/components/spinner";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { Textarea } from "@/components/ui/textarea";
import { useUnauthorizedRedirect } from "@/features/dashboard/use-unauthorized-redirect";
import { toast } from "@/hooks/use-toast";
import type { ApiAnswer } from "@shared/api";
import { api, apiQuery, withoutStatus } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";
import { LoadFailed } from "@/components/load-failed";

type Field = keyof ProfileInput;
const FIELDS = ["displayName", "bio", "supportEmail"] as const;

/**
 * "Email me when I make a sale": saved as soon as it is switched, alone (the form's text fields, saved
 * or not, are left as they are). Private to the creator.
 */
function SaleEmailSwitch({ current }: { current: CreatorProfile }) {
  const queryClient = useQueryClient();
  const [error, setError] = useState<string>();
  // The creator's choice, shown from the click until the server's answer (TanStack Query reports
  // the mutation pending a tick later; without this the box springs back for that tick).
  const [choice, setChoice] = useState<boolean>();
  const save = useMutation({
    mutationFn: async (emailOnSale: boolean) => api("PUT /api/profile", { body: { emailOnSale } }),
    onSuccess: (next) => {
      queryClient.setQueryData(queryKeys.profile, next);
      setError(undefined);
      toast({
        title: "Saved",
        description: next.emailOnSale ? "We'll email you about each sale." : "We won't email you about sales.",
      });
    },
    onError: (e) => setError(withoutStatus(e.message)),
    onSettled: () => setChoice(undefined),
  });
  const checked = choice ?? current.emailOnSale;
  return (
    <div className="space-y-1 border-t pt-4">
      <div className="flex items-center gap-3">
        <input
          id="profile-emailOnSale"
          type="checkbox"
          className="size-4 accent-primary"
          checked={checked}
          disabled={save.isPending}
          onChange={(e) => {
            setChoice(e.target.checked);
            save.mutate(e.target.checked);
          }}
          aria-describedby={error ? "profile-emailOnSale-error" : "profile-emailOnSale-hint"}
        />
        <Label htmlFor="profile-emailOnSale" className="flex items-center gap-2">
          <BellRing className="size-4 text-muted-foreground" /> {EMAIL_ON_SALE_LABEL}
        </Label>
        {save.isPending && <Spinner className="size-4" label="Saving" />}
      </div>
      <p id="profile-emailOnSale-hint" className="pl-7 text-xs text-muted-foreground">
        The item, what the buyer paid and what you keep. Only you see this setting.
      </p>
      {error && (
        <p id="profile-emailOnSale-error" className="text-sm text-destructive" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

function ProfileForm({ profile }: { profile: CreatorProfile }) {
  const queryClient = useQueryClient();
  const [values, setValues] = useState<Required<Pick<ProfileInput, "displayName" | "bio" | "supportEmail">>>({
    displayName: profile.displayName ?? "",
    bio: profile.bio ?? "",
    supportEmail: profile.supportEmail ?? "",
  });
  const fe = useFieldErrors("profile");
  const fileInput = useRef<HTMLInputElement>(null);

  const saved = (next: CreatorProfile) => queryClient.setQueryData(queryKeys.profile, next);

  const save = useMutation({
    mutationFn: async (input: ProfileInput) => api("PUT /api/profile", { body: input }),
    onSuccess: (next) => {
      saved(next);
      fe.reset();
      toast({ title: "Profile Saved", description: "Buyers now see your name on your paywalls." });
    },
    onError: (error) => fe.fromServer(error, FIELDS) || fe.set(FORM, withoutStatus(error.message)),
  });

  const avatar = useMutation({
    mutationFn: async (file: File | null) => {
      const res = file
        ? await fetch("/api/profile/avatar", {
            method: "PUT",
            headers: { "content-type": file.type || "application/octet-stream" },
            body: file,
            credentials: "include",
          })
        : await fetch("/api/profile/avatar", { method: "DELETE", credentials: "include" });
      // The raw file as the body (not JSON or a form), and a failure's message shown as is, without its status.
      const body = (await res.json()) as ApiAnswer<"PUT /api/profile/avatar"> & { message?: string };
      if (!res.ok) throw new Error(body.message ?? PROFILE_MESSAGES.avatarType);
      return body;
    },
    onSuccess: (next) => {
      saved(next);
      fe.clear("avatar");
    },
    onError: (error) => fe.set("avatar", error.message),
  });

  const chooseAvatar = (file: File | undefined) => {
    if (fileInput.current) fileInput.current.value = "";
    if (!file) return;
    if (!(AVATAR_TYPES as readonly string[]).includes(file.type)) return fe.set("avatar", PROFILE_MESSAGES.avatarType);
    if (file.size > MAX_AVATAR_BYTES) return fe.set("avatar", PROFILE_MESSAGES.avatarSize);
    avatar.mutate(file);
  };

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (fe.check(profileSchema, values)) save.mutate(values);
  };

  const set = (field: Field) => (e: { target: { value: string } }) => {
    setValues((v) => ({ ...v, [field]: e.target.value }));
    fe.clear(field, FORM);
  };
  const current = queryClient.getQueryData<CreatorProfile>(queryKeys.profile) ?? profile;
  // What buyers see now (the saved profile), with the fallback when no display name is set.
  const preview = {
    name: current.displayName ?? current.accountName,
    avatarUrl: current.avatarUrl,
    bio: current.bio,
    supportEmail: current.supportEmail,
  };

  return (
    <div className="space-y-5">
      <div className="rounded-lg border bg-muted/40 px-3 py-2">
        <p className="mb-1 text-xs font-medium text-muted-foreground">Buyers see</p>
        <CreatorByline creator={preview} />
      </div>

      <div className="flex flex-wrap items-center gap-4">
        <div className="flex size-16 shrink-0 items-center justify-center overflow-hidden rounded-full bg-muted">
          {current.avatarUrl ? (
            <img
              src={current.avatarUrl}
              alt="Your avatar"
              width={64}
              height={64}
              className="size-full object-cover"
              data-testid="profile-avatar"
            />
          ) : (
            <UserRound className="size-8 text-muted-foreground" />
          )}
        </div>
        <div className="space-y-2">
          <Label htmlFor="profile-avatar">Avatar</Label>
          <div className="flex flex-wrap gap-2">
            <input
              ref={fileInput}
              id="profile-avatar"
              type="file"
              accept={AVATAR_TYPES.join(",")}
              className="sr-only"
              {...fe.field("avatar", "profile-avatar-hint")}
              onChange={(e) => chooseAvatar(e.target.files?.[0])}
            />
            <Button
              type="button"
              variant="outline"
              size="sm"
              disabled={avatar.isPending}
              onClick={() => fileInput.current?.click()}
            >
              {avatar.isPending ? <Spinner className="size-4" label="Uploading" /> : <ImagePlus />}{" "}
              {current.avatarUrl ? "Change image" : "Upload image"}
            </Button>
            {current.avatarUrl && (
              <Button
                type="button"
                variant="ghost"
                size="sm"
                disabled={avatar.isPending}
                onClick={() => avatar.mutate(null)}
              >
                <Trash2 /> Remove
              </Button>
            )}
          </div>
          <p id="profile-avatar-hint" className="text-xs text-muted-foreground">
            JPEG, PNG or WebP, up to {MAX_AVATAR_BYTES / 1024 / 1024} MB.
          </p>
          <FieldError of={fe} name="avatar" />
        </div>
      </div>

      <form onSubmit={onSubmit} className="grid gap-4 sm:grid-cols-2" noValidate aria-label="Public profile">
        <div className="space-y-2">
          <Label htmlFor="profile-displayName">Display name</Label>
          <Input
            id="profile-displayName"
            value={values.displayName}
            onChange={set("displayName")}
            placeholder={profile.accountName ?? "Your name or studio"}
            {...fe.field("displayName")}
          />
          <FieldError of={fe} name="displayName" />
        </div>
        <div className="space-y-2">
          <Label htmlFor="profile-supportEmail">Support email</Label>
          <Input
            id="profile-supportEmail"
            type="email"
            value={values.supportEmail}
            onChange={set("supportEmail")}
            placeholder="help@example.com"
            {...fe.field("supportEmail")}
          />
          <FieldError of={fe} name="supportEmail" />
        </div>
        <div className="space-y-2 sm:col-span-2">
          <Label htmlFor="profile-bio">Short bio</Label>
          <Textarea id="profile-bio" rows={3} value={values.bio} onChange={set("bio")} {...fe.field("bio")} />
          <p className="text-right text-xs text-muted-foreground">
            {values.bio.length}/{MAX_BIO_CHARS}
          </p>
          <FieldError of={fe} name="bio" />
        </div>
        <FieldError of={fe} name={FORM} />
        <div className="sm:col-span-2">
          <Button type="submit" disabled={save.isPending}>
            {save.isPending && <Spinner className="size-4" label="Saving" />} Save profile
          </Button>
        </div>
      </form>

      <SaleEmailSwitch current={current} />
    </div>
  );
}

export function ProfileCard() {
  const { data, isLoading, error, refetch } = useQuery(apiQuery("GET /api/profile"));
  useUnauthorizedRedirect(error);
  return (
    <Card>
      <CardHeader>
        <CardTitle className="flex items-center gap-2">
          <UserRound className="size-5" /> Public profile
        </CardTitle>
        <CardDescription>Who buyers pay: shown on your paywalls, at checkout and in their receipts.</CardDescription>
      </CardHeader>
      <CardContent>
        {isLoading ? (
          <SectionSpinner />
        ) : error || !data ? (
          <LoadFailed what="your profile" detail={error ? withoutStatus(error.message) : ""} onRetry={refetch} />
        ) : (
          <ProfileForm profile={data} />
        )}
      </CardContent>
    </Card>
  );
}
