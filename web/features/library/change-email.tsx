// "Change email" on a purchase in the library: moves the purchase (its receipts, and its place in a
// library) to another address, through POST /api/purchases/{id}/email, which accepts the library's
// session for purchases made with its address (docs/library.md), with the bot check's token
// (docs/security.md, "Bot protection").
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { AtSign } from "lucide-react";
import { type FormEvent, useState } from "react";
import { emailSchema } from "@shared/auth";
import { HUMAN_CHECK_ACTIONS, HUMAN_CHECK_REFUSED } from "@shared/human-check";
import { FieldError, useFieldErrors } from "@/components/field-error";
import { Spinner } from "@/components/spinner";
import { Button } from "@/components/ui/button";
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogHeader,
  DialogTitle,
  DialogTrigger,
} from "@/components/ui/dialog";
import { Input } from "@/components/ui/input";
import { useHumanCheck } from "@/hooks/use-human-check";
import { toast } from "@/hooks/use-toast";
import { api, withoutStatus } from "@/lib/api";
import { LIBRARY_KEY } from "./queries";

export function ChangeEmail({ id, title }: { id: string; title: string }) {
  const [open, setOpen] = useState(false);
  const [email, setEmail] = useState("");
  const fe = useFieldErrors(`change-email-${id}`);
  const queryClient = useQueryClient();
  const check = useHumanCheck(HUMAN_CHECK_ACTIONS.purchaseEmail);
  const change = useMutation({
    // A refused token is retried once with a fresh one; a second refusal is shown under the field.
    mutationFn: (address: string) =>
      check.send((headers) =>
        api("POST /api/purchases/:id/email", { params: { id }, body: { email: address }, headers }),
      ),
    onSuccess: async (answer, address) => {
      setOpen(false);
      toast(
        answer.changed
          ? {
              title: "Email changed",
              description: `The receipt went to ${address}, and this order is now in that address's library. We told your old address.`,
            }
          : { title: "Nothing to change", description: `This order's email is already ${address}.` },
      );
      await queryClient.invalidateQueries({ queryKey: LIBRARY_KEY });
    },
    onError: (err: Error) =>
      fe.set(
        "email",
        err.message === `403: ${HUMAN_CHECK_REFUSED}`
          ? HUMAN_CHECK_REFUSED
          : withoutStatus(err.message).replace(/^email: /, ""),
      ),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const parsed = emailSchema.safeParse(email);
    if (!parsed.success) return fe.set("email", "Please enter a valid email address.");
    fe.reset();
    change.mutate(parsed.data);
  };
  return (
    <Dialog open={open} onOpenChange={setOpen}>
      <DialogTrigger asChild>
        <Button variant="ghost" size="sm">
          <AtSign /> Change email
        </Button>
      </DialogTrigger>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Change this purchase's email</DialogTitle>
          <DialogDescription className="break-words">
            Receipts for {title} go to the new address, and it moves to that address's library. Your current address is
            told.
          </DialogDescription>
        </DialogHeader>
        <form onSubmit={submit} className="space-y-2" noValidate aria-label="Change email">
          <label htmlFor={`change-email-${id}`} className="text-sm font-medium">
            New email
          </label>
          <Input
            id={`change-email-${id}`}
            type="email"
            autoComplete="email"
            placeholder="you@example.com"
            value={email}
            onChange={(e) => {
              setEmail(e.target.value);
              fe.clear("email");
            }}
            {...fe.field("email")}
          />
          <FieldError of={fe} name="email" />
          <div ref={check.mount} data-testid="human-check" />
          <Button type="submit" className="w-full" disabled={change.isPending}>
            {change.isPending && <Spinner className="size-4 text-primary-foreground" />} Change email
          </Button>
        </form>
      </DialogContent>
    </Dialog>
  );
}
