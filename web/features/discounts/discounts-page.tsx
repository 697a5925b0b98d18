// /discounts: the creator's discount codes (uses, revenue, discount given, status) and a form to make
// one, which shows the price the code gives for the chosen item before saving — computed with the
// same rule the server charges (shared/discounts.ts `discountedCents`).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { BadgePercent, Plus } from "lucide-react";
import { useState, type FormEvent } from "react";
import type { CreatorContent } from "@shared/content";
import { dollarsToCents } from "@shared/content";
import { createDiscountSchema, discountedCents, type CreateDiscountInput, type DiscountCode } from "@shared/discounts";
import type { CurrentUser } from "@shared/auth";
import { FieldError, FORM, useFieldErrors } from "@/components/field-error";
import { PageSpinner, Spinner } from "@/components/spinner";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { CreatorTopBar } from "@/features/shell/creator-top-bar";
import { toast } from "@/hooks/use-toast";
import { api, apiQuery, withoutStatus } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";
import { formatCents, formatDollars } from "@shared/money";
import { LoadFailed } from "@/components/load-failed";

const STATUS: Record<DiscountCode["status"], { label: string; className: string }> = {
  active: { label: "Active", className: "bg-emerald-600 text-white" },
  expired: { label: "Expired", className: "border-amber-400 text-amber-800" },
  used_up: { label: "Used up", className: "border-amber-400 text-amber-800" },
  archived: { label: "Ended", className: "text-muted-foreground" },
};
const SELECT =
  "h-9 w-full rounded-md border border-input bg-transparent px-3 text-sm shadow-xs focus-visible:border-ring focus-visible:ring-[3px] focus-visible:ring-ring/50 outline-none";

type Form = {
  code: string;
  kind: "percent" | "fixed";
  percentOff: string;
  amountOff: string;
  contentId: string;
  expiresOn: string;
  maxUses: string;
  maxUsesPerBuyer: string;
};
const EMPTY: Form = {
  code: "",
  kind: "percent",
  percentOff: "20",
  amountOff: "",
  contentId: "",
  expiresOn: "",
  maxUses: "",
  maxUsesPerBuyer: "",
};

/** What the code would make of the chosen item's price (or of each item's, for all items), before saving. */
function pricePreview(form: Form, items: CreatorContent[]): string | null {
  const rule =
    form.kind === "percent"
      ? { kind: "percent" as const, percentOff: Number(form.percentOff), amountOffCents: null }
      : { kind: "fixed" as const, percentOff: null, amountOffCents: dollarsToCents(form.amountOff) };
  if (rule.kind === "percent" && !(Number.isInteger(rule.percentOff) && rule.percentOff >= 1 && rule.percentOff <= 100))
    return null;
  if (rule.kind === "fixed" && !(Number.isFinite(rule.amountOffCents) && (rule.amountOffCents ?? 0) > 0)) return null;
  const shown = (form.contentId ? items.filter((i) => i.id === form.contentId) : items).slice(0, 3);
  if (shown.length === 0) return null;
  return shown
    .map((i) => {
      const cents = Math.round(i.price * 100);
      const floor = i.pricingModel === "pay_what_you_want" ? Math.round((i.minimumPrice ?? i.price) * 100) : 0;
      const after = discountedCents(cents, rule, floor);
      return `${i.title}: ${formatCents(cents)} → ${formatCents(after)}${after === cents ? " (no discount: at its minimum)" : ""}`;
    })
    .join(" · ");
}

function CreateCode({ items, onDone }: { items: CreatorContent[]; onDone: () => void }) {
  const queryClient = useQueryClient();
  const [form, setForm] = useState<Form>(EMPTY);
  const fe = useFieldErrors("discount");
  const set = (k: keyof Form) => (v: string) => {
    setForm((f) => ({ ...f, [k]: v }));
    fe.clear(k);
  };
  const create = useMutation({
    mutationFn: async (input: CreateDiscountInput) => api("POST /api/discounts", { body: input }),
    onSuccess: async (code) => {
      toast({ title: "Code created", description: `${code.code}: ${code.label}` });
      await queryClient.invalidateQueries({ queryKey: queryKeys.discounts });
      setForm(EMPTY);
      onDone();
    },
    onError: (err) => {
      if (!fe.fromServer(err, Object.keys(EMPTY))) fe.set(FORM, withoutStatus((err as Error).message));
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const input: CreateDiscountInput = {
      ...form,
      percentOff: form.kind === "percent" ? form.percentOff : null,
      amountOff: form.kind === "fixed" ? form.amountOff : null,
    };
    if (fe.check(createDiscountSchema, input)) create.mutate(input);
  };
  const preview = pricePreview(form, items);
  return (
    <form onSubmit={submit} className="grid gap-4 sm:grid-cols-2" noValidate aria-label="New discount code">
      <div className="space-y-1.5">
        <Label htmlFor="discount-code">Code</Label>
        <Input
          id="discount-code"
          value={form.code}
          onChange={(e) => set("code")(e.target.value)}
          placeholder="SPRING"
          autoComplete="off"
          {...fe.field("code")}
        />
        <FieldError of={fe} name="code" />
      </div>
      <div className="space-y-1.5">
        <Label htmlFor="discount-item">For</Label>
        <select
          id="discount-item"
          className={SELECT}
          value={form.contentId}
          onChange={(e) => set("contentId")(e.target.value)}
        >
          <option value="">All my items</option>
          {items.map((i) => (
            <option key={i.id} value={i.id}>
              {i.title}
            </option>
          ))}
        </select>
        <FieldError of={fe} name="contentId" />
      </div>
      <fieldset className="space-y-1.5">
        <legend className="text-sm font-medium">Discount</legend>
        <div className="flex gap-2">
          <select
            aria-label="Kind of discount"
            className={`${SELECT} w-36 shrink-0`}
            value={form.kind}
            onChange={(e) => set("kind")(e.target.value)}
          >
            <option value="percent">Percent off</option>
            <option value="fixed">Amount off ($)</option>
          </select>
          {form.kind === "percent" ? (
            <Input
              aria-label="Percent off"
              inputMode="numeric"
              value={form.percentOff}
              onChange={(e) => set("percentOff")(e.target.value)}
              {...fe.field("percentOff")}
            />
          ) : (
            <Input
              aria-label="Amount off"
              inputMode="decimal"
              value={form.amountOff}
              onChange={(e) => set("amountOff")(e.target.value)}
              placeholder="5.00"
              {...fe.field("amountOff")}
            />
          )}
        </div>
        <FieldError of={fe} name="percentOff" />
        <FieldError of={fe} name="amountOff" />
      </fieldset>
      <div className="space-y-1.5">
        <Label htmlFor="discount-expires">Last day (optional)</Label>
        <Input
          id="discount-expires"
          type="date"
          value={form.expiresOn}
          onChange={(e) => set("expiresOn")(e.target.value)}
          {...fe.field("expiresOn")}
        />
        <FieldError of={fe} name="expiresOn" />
      </div>
      <div className="space-y-1.5">
        <Label htmlFor="discount-max">Maximum uses (optional)</Label>
        <Input
          id="discount-max"
          inputMode="numeric"
          value={form.maxUses}
          onChange={(e) => set("maxUses")(e.target.value)}
          placeholder="No limit"
          {...fe.field("maxUses")}
        />
        <FieldError of={fe} name="maxUses" />
      </div>
      <div className="space-y-1.5">
        <Label htmlFor="discount-per-buyer">Uses per buyer (optional)</Label>
        <Input
          id="discount-per-buyer"
          inputMode="numeric"
          value={form.maxUsesPerBuyer}
          onChange={(e) => set("maxUsesPerBuyer")(e.target.value)}
          placeholder="No limit"
          {...fe.field("maxUsesPerBuyer")}
        />
        <FieldError of={fe} name="maxUsesPerBuyer" />
      </div>
      <p className="text-sm sm:col-span-2" data-testid="discount-preview" aria-live="polite">
        {preview ? (
          <>Buyers pay: {preview}</>
        ) : (
          <span className="text-muted-foreground">Choose a discount to see the price it gives.</span>
        )}
      </p>
      <p className="text-xs text-muted-foreground sm:col-span-2">
        A code never takes a price below $0.50, nor below a pay-what-you-want item's minimum.
      </p>
      <div className="flex items-center gap-3 sm:col-span-2">
        <Button type="submit" variant="brand" disabled={create.isPending}>
          {create.isPending ? <Spinner className="size-4 text-white" /> : <Plus />}
          Create code
        </Button>
        <FieldError of={fe} name={FORM} />
      </div>
    </form>
  );
}

function CodeRow({ code }: { code: DiscountCode }) {
  const queryClient = useQueryClient();
  const archive = useMutation({
    mutationFn: () => api("POST /api/discounts/:id/archive", { params: { id: code.id } }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.discounts }),
    onError: (err) =>
      toast({
        title: "Could not end the code",
        description: withoutStatus((err as Error).message),
        variant: "destructive",
      }),
  });
  const status = STATUS[code.status];
  return (
    <li className="flex flex-col gap-2 py-3 sm:flex-row sm:items-center sm:justify-between" data-testid="discount-row">
      <div className="min-w-0 space-y-1">
        <p className="flex flex-wrap items-center gap-2">
          <span className="font-mono font-semibold">{code.code}</span>
          <span className="text-sm">{code.label}</span>
          <Badge variant="outline" className={status.className}>
            {status.label}
          </Badge>
        </p>
        <p className="truncate text-sm text-muted-foreground">
          {code.contentTitle ?? "All items"} · {code.uses}
          {code.maxUses !== null ? ` of ${code.maxUses}` : ""} used{code.held > 0 ? ` (${code.held} at checkout)` : ""}
          {code.expiresAt
            ? ` · until ${new Date(code.expiresAt).toLocaleDateString("en-US", { timeZone: "UTC" })}`
            : ""}
        </p>
      </div>
      <div className="flex shrink-0 items-center gap-4 text-sm">
        <span>
          <span className="text-muted-foreground">Revenue </span>
          {formatDollars(code.revenue)}
        </span>
        <span>
          <span className="text-muted-foreground">Given </span>
          {formatDollars(code.discountGiven)}
        </span>
        {code.status !== "archived" && (
          <Button variant="outline" size="sm" onClick={() => archive.mutate()} disabled={archive.isPending}>
            End
          </Button>
        )}
      </div>
    </li>
  );
}

export function DiscountsPage({ user }: { user: CurrentUser }) {
  const codes = useQuery(apiQuery("GET /api/discounts"));
  const items = useQuery(apiQuery("GET /api/content"));
  const [creating, setCreating] = useState(false);
  return (
    <div className="min-h-screen bg-muted/30">
      <CreatorTopBar user={user} />
      <main className="mx-auto max-w-4xl space-y-6 px-4 py-8">
        <div className="flex flex-wrap items-center justify-between gap-3">
          <div>
            <h1 className="flex items-center gap-2 text-2xl font-bold">
              <BadgePercent className="size-6" /> Discount codes
            </h1>
            <p className="text-sm text-muted-foreground">
              Share a link like /p/…?code=SPRING, or buyers type the code at checkout.
            </p>
          </div>
          {!creating && (
            <Button variant="brand" onClick={() => setCreating(true)}>
              <Plus /> New code
            </Button>
          )}
        </div>
        {creating && (
          <Card>
            <CardHeader>
              <CardTitle>New code</CardTitle>
              <CardDescription>The price a buyer pays is the one shown here and on the paywall.</CardDescription>
            </CardHeader>
            <CardContent>
              {items.isLoading ? (
                <Spinner />
              ) : (
                <CreateCode items={(items.data ?? []).filter((i) => !i.upsellOnly)} onDone={() => setCreating(false)} />
              )}
            </CardContent>
          </Card>
        )}
        <Card>
          <CardContent>
            {codes.isLoading ? (
              <PageSpinner />
            ) : codes.error ? (
              <LoadFailed what="your codes" detail={withoutStatus(codes.error.message)} onRetry={codes.refetch} />
            ) : (codes.data ?? []).length === 0 ? (
              <p className="py-8 text-center text-muted-foreground">No codes yet. Create one to offer a discount.</p>
            ) : (
              <ul className="divide-y">
                {codes.data!.map((c) => (
                  <CodeRow key={c.id} code={c} />
                ))}
              </ul>
            )}
          </CardContent>
        </Card>
      </main>
    </div>
  );
}
