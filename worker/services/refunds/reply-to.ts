// Where a buyer's reply to their refund email goes: the creator who refunded them, at the support
// address on their profile, or their account address when they set none (as Gumroad does). The
// email's Reply-To carries it. Behaviour: docs/refunds-and-disputes.md ("The buyer's refund email").
import { eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { creatorProfiles, users } from "../../db/schema";

export async function creatorReplyTo(db: Db, creatorId: string): Promise<string | undefined> {
  const row = await db
    .select({ support: creatorProfiles.supportEmail, email: users.email })
    .from(users)
    .leftJoin(creatorProfiles, eq(creatorProfiles.userId, users.id))
    .where(eq(users.id, creatorId))
    .get();
  return row?.support || row?.email || undefined;
}
