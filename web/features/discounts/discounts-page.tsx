// /discounts: the creator's discount codes (uses, revenue, discount given, status) and a form to make
// one, which shows the price the code gives for the chosen item before saving — computed with the
// same rule the server charges (shared/discounts.ts `discountedCents`).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Plus, Tag } from "lucide-react";
import { useState, type FormEvent } from "react";
import type { CreatorContent } from "@shared/content";
import { dollarsToCents } from "@shared/content";
import { createDiscountSchema, discountedCents, type CreateDiscountInput } from "@shared/discounts";
import type { CurrentUser } from "@shared/auth";
import { FieldError, FORM, useFieldErrors } from "@/components/field-error";
import { PageSpinner, Spinner } from "@/components/spinner";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { CreatorTopBar } from "@/features/shell/creator-top-bar";
import { toast } from "@/hooks/use-toast";
import { api, apiQuery, withoutStatus } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";
import { formatCents } from "@shared/money";
import { CodeRow } from "./code-row";
import { LoadFailed } from "@/components/load-failed";

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
/** The one "off" field a kind of code asks for. */
const OFF_FIELD = {
  percent: { id: "discount-percent", label: "Percent off", name: "percentOff", mode: "numeric", hint: "20" },
  fixed: { id: "discount-amount", label: "Amount off ($)", name: "amountOff", mode: "decimal", hint: "5.00" },
} as const;

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
  const off = OFF_FIELD[form.kind];
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
      {/* The kind and the amount are two fields like the others, each as wide as its label's column. */}
      <div className="space-y-1.5">
        <Label htmlFor="discount-kind">Discount</Label>
        <select id="discount-kind" className={SELECT} value={form.kind} onChange={(e) => set("kind")(e.target.value)}>
          <option value="percent">Percent off</option>
          <option value="fixed">Amount off ($)</option>
        </select>
      </div>
      <div className="space-y-1.5">
        <Label htmlFor={off.id}>{off.label}</Label>
        <Input
          id={off.id}
          inputMode={off.mode}
          value={form[off.name]}
          onChange={(e) => set(off.name)(e.target.value)}
          placeholder={off.hint}
          {...fe.field(off.name)}
        />
        <FieldError of={fe} name={off.name} />
      </div>
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
              <Tag className="size-6" /> Discount codes
            </h1>
            <p className="text-sm text-muted-foreground">
              Share a code's link (Copy link): the paywall opens at the code's price. Or buyers type the code at
              checkout.
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
                  <CodeRow key={c.id} code={c} items={items.data ?? []} />
                ))}
              </ul>
            )}
          </CardContent>
        </Card>
      </main>
    </div>
  );
}
