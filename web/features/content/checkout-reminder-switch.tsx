// The edit page's "Checkout reminders" card: a switch that saves itself, apart from the item form.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { CreatorContent } from "@shared/content";
import { Spinner } from "@/components/spinner";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { toast } from "@/hooks/use-toast";
import { api, withoutStatus } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";

/** "Remind buyers who leave checkout": saves itself, apart from the form (PUT /api/content/{id}/checkout-reminders). */
export function CheckoutReminderSwitch({ item }: { item: CreatorContent }) {
  const queryClient = useQueryClient();
  const [on, setOn] = useState(item.checkoutReminders);
  const save = useMutation({
    mutationFn: async (enabled: boolean) =>
      api("PUT /api/content/:id/checkout-reminders", { params: { id: item.id }, body: { enabled } }),
    onSuccess: async (r) => {
      setOn(r.checkoutReminders);
      await queryClient.invalidateQueries({ queryKey: queryKeys.contentList });
    },
    onError: (err) => {
      setOn(item.checkoutReminders);
      toast({ title: "Could not save", description: withoutStatus((err as Error).message), variant: "destructive" });
    },
  });
  return (
    <Card className="mt-6">
      <CardHeader>
        <CardTitle className="text-lg">Checkout reminders</CardTitle>
        <CardDescription>
          A buyer who typed their email at checkout and left gets one reminder an hour later, with a link back at the
          same price. Never after they pay; they can unsubscribe.
        </CardDescription>
      </CardHeader>
      <CardContent>
        <label className="flex items-center gap-2 text-sm font-medium">
          <input
            type="checkbox"
            className="size-4"
            checked={on}
            disabled={save.isPending}
            onChange={(e) => {
              setOn(e.target.checked);
              save.mutate(e.target.checked);
            }}
          />
          Remind buyers who leave checkout
          {save.isPending && <Spinner className="size-4" />}
        </label>
      </CardContent>
    </Card>
  );
}
