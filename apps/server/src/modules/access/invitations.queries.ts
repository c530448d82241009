import { and, eq, gt, isNull, lt, sql } from 'drizzle-orm';
import type { Db } from '../../platform/db/index.ts';
import type { Executor } from '../../platform/events/index.ts';
import { invitations } from './access.schema.ts';

export type InvitationRow = typeof invitations.$inferSelect;

export async function insertInvitation(db: Executor, row: typeof invitations.$inferInsert): Promise<void> {
  await db.insert(invitations).values(row);
}

/** Earlier pending invitations of the address stop working (only the newest link does), and expired ones go. */
export async function deletePendingInvitations(db: Executor, email: string, now: Date): Promise<void> {
  await db
    .delete(invitations)
    .where(and(sql`lower(${invitations.email}) = ${email.toLowerCase()}`, isNull(invitations.usedAt)));
  await db.delete(invitations).where(lt(invitations.expiresAt, now));
}

/** The invitation if unused and not expired. */
export async function findLiveInvitation(
  db: Db,
  tokenHash: string,
  now: Date,
): Promise<InvitationRow | undefined> {
  const rows = await db
    .select()
    .from(invitations)
    .where(
      and(eq(invitations.tokenHash, tokenHash), isNull(invitations.usedAt), gt(invitations.expiresAt, now)),
    )
    .limit(1);
  return rows[0];
}

/** Marks the invitation used; only one caller can win, the others get undefined. */
export async function consumeInvitation(
  db: Db,
  tokenHash: string,
  now: Date,
): Promise<InvitationRow | undefined> {
  const rows = await db
    .update(invitations)
    .set({ usedAt: now })
    .where(
      and(eq(invitations.tokenHash, tokenHash), isNull(invitations.usedAt), gt(invitations.expiresAt, now)),
    )
    .returning();
  return rows[0];
}

export async function releaseInvitation(db: Db, tokenHash: string): Promise<void> {
  await db.update(invitations).set({ usedAt: null }).where(eq(invitations.tokenHash, tokenHash));
}
