// Setup shared by the payments tests: a creator with a file item, and a purchase's row and ledger lines.
import { contentForm, postForm, row, rows, signIn } from "../support/helpers";

export type Ledger = { idempotency_key: string; account: string; kind: string; amount_cents: number };

export const bytes = (n: number) => Uint8Array.from({ length: n }, (_, i) => i % 251);

export async function creatorWithItem(email: string, fields: Record<string, string | Blob> = {}) {
  const cookie = await signIn(email);
  const res = await postForm(
    "/api/content",
    contentForm({
      title: "Beats",
      price: "10",
      file: new File([bytes(1000)], "beats.zip", { type: "application/zip" }),
      ...fields,
    }),
    cookie,
  );
  if (res.status !== 201) throw new Error(await res.text());
  const item = await res.json<{ id: string }>();
  const creator = await row<{ id: string }>("select id from users where email = ?", email);
  return { cookie, item, creatorId: creator!.id };
}

export const purchaseOf = (pi: string) =>
  row<{ id: string; status: string; amount_cents: number; buyer_email: string | null }>(
    "select * from purchases where payment_intent_id = ?",
    pi,
  );
export const ledgerOf = (purchaseId: string) =>
  rows<Ledger>(
    "select * from ledger_entries where purchase_id = ? and kind not in ('stripe_fee', 'dispute_fee') and kind not like 'reserve%' order by id",
    purchaseId,
  );
