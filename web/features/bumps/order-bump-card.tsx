// An item's order bump on its edit page: one of the creator's other items, offered as a
// checkbox at checkout at a bump price. Shows the checkbox's words before saving; saves apart from
// the item's form (PUT / DELETE /api/content/{id}/bump).
import { dollarsField, formatDollarsPlain } from "@shared/money";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { orderBumpSchema } from "@shared/bumps";
import { bumpLabel } from "@shared/paywall";
import type { CreatorContent } from "@shared/content";
import { LabelledField } from "@/components/field-error";
import { Spinner } from "@/components/spinner";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Input } from "@/components/ui/input";
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from "@/components/ui/select";
import { toast } from "@/hooks/use-toast";
import { api, apiQuery, withoutStatus } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";

type Errors = { contentId?: string; price?: string };

export function OrderBumpCard({ item }: { item: CreatorContent }) {
  const queryClient = useQueryClient();
  const { data: items = [] } = useQuery(apiQuery("GET /api/content"));
  const choices = items.filter((i) => i.id !== item.id);
  const [contentId, setContentId] = useState(item.bump?.contentId ?? "");
  const [price, setPrice] = useState(item.bump ? dollarsField(item.bump.price) : "");
  const [errors, setErrors] = useState<Errors>({});
  const chosen = choices.find((i) => i.id === contentId);
  const parsed = orderBumpSchema.safeParse({ contentId, price });
  const saved = (bump: CreatorContent["bump"]) => {
    queryClient.setQueryData<CreatorContent[]>(queryKeys.contentList, (list) =>
      list?.map((i) => (i.id === item.id ? { ...i, bump } : i)),
    );
    void queryClient.invalidateQueries({ queryKey: queryKeys.contentList });
  };
  const save = useMutation({
    mutationFn: async () => api("PUT /api/content/:id/bump", { params: { id: item.id }, body: { contentId, price } }),
    onSuccess: ({ bump }) => {
      saved(bump);
      toast({
        title: "Order bump saved",
        description: chosen ? bumpLabel(chosen.title, Math.round(Number(price) * 100)) : undefined,
      });
    },
    onError: (err) => {
      const message = withoutStatus((err as Error).message);
      const [field, text] = /^(contentId|price): (.*)$/.exec(message)?.slice(1) ?? [];
      if (field) setErrors({ [field]: text });
      else toast({ title: "Could not save", description: message, variant: "destructive" });
    },
  });
  const remove = useMutation({
    mutationFn: async () => api("DELETE /api/content/:id/bump", { params: { id: item.id } }),
    onSuccess: ({ bump }) => {
      saved(bump);
      setContentId("");
      setPrice("");
      toast({ title: "Order bump removed" });
    },
    onError: (err) =>
      toast({ title: "Could not remove", description: withoutStatus((err as Error).message), variant: "destructive" }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!parsed.success) {
      const next: Errors = {};
      for (const issue of parsed.error.issues) next[issue.path[0] as keyof Errors] ??= issue.message;
      setErrors(next);
      return;
    }
    setErrors({});
    save.mutate();
  };
  const busy = save.isPending || remove.isPending;

  return (
    <Card className="mt-6" data-testid="order-bump">
      <CardHeader>
        <CardTitle className="text-lg">Order bump</CardTitle>
        <CardDescription>
          Offer one of your other items as a checkbox at checkout, at a special price. One payment; each item gets its
          own access and can be refunded on its own.
        </CardDescription>
      </CardHeader>
      <CardContent>
        {choices.length === 0 ? (
          <p className="text-sm text-muted-foreground">Publish another item to offer it here.</p>
        ) : (
          <form className="space-y-4" noValidate onSubmit={submit}>
            <div className="grid gap-4 sm:grid-cols-[1fr_10rem]">
              <LabelledField htmlFor="bump-item" label="Add-on item" error={errors.contentId} className="min-w-0">
                <Select
                  value={contentId}
                  onValueChange={(v) => {
                    setContentId(v);
                    setErrors((e) => ({ ...e, contentId: undefined }));
                  }}
                >
                  <SelectTrigger
                    id="bump-item"
                    aria-invalid={!!errors.contentId}
                    className="[&>span]:min-w-0 [&>span]:truncate"
                  >
                    <SelectValue placeholder="Choose an item" />
                  </SelectTrigger>
                  <SelectContent>
                    {choices.map((i) => (
                      <SelectItem key={i.id} value={i.id}>
                        {i.title}
                      </SelectItem>
                    ))}
                  </SelectContent>
                </Select>
              </LabelledField>
              <LabelledField htmlFor="bump-price" label="Bump price ($)" error={errors.price} className="min-w-0">
                <Input
                  id="bump-price"
                  inputMode="decimal"
                  value={price}
                  aria-invalid={!!errors.price}
                  onChange={(e) => {
                    setPrice(e.target.value);
                    setErrors((x) => ({ ...x, price: undefined }));
                  }}
                  placeholder="9.00"
                />
              </LabelledField>
            </div>
            {chosen && parsed.success && (
              <p className="rounded-md border border-dashed bg-muted/40 px-3 py-2 text-sm" data-testid="bump-preview">
                Buyers see: <span className="font-medium">☐ {bumpLabel(chosen.title, parsed.data.priceCents)}</span>
                {chosen.pricingModel === "fixed" && parsed.data.priceCents < Math.round(chosen.price * 100) && (
                  <span className="text-muted-foreground"> (usually {formatDollarsPlain(chosen.price)})</span>
                )}
              </p>
            )}
            <div className="flex flex-wrap gap-2">
              <Button type="submit" disabled={busy}>
                {save.isPending && <Spinner className="size-4" />}
                Save order bump
              </Button>
              {item.bump && (
                <Button type="button" variant="outline" disabled={busy} onClick={() => remove.mutate()}>
                  Remove
                </Button>
              )}
            </div>
          </form>
        )}
      </CardContent>
    </Card>
  );
}
