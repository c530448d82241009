import { and, eq, gt, isNotNull, lt } from 'drizzle-orm';
import type { Db } from '../../platform/db/index.ts';
import { cliRegistrations } from './access.schema.ts';

export type CliRegistrationRow = typeof cliRegistrations.$inferSelect;

export async function insertCliRegistration(
  db: Db,
  row: typeof cliRegistrations.$inferInsert,
): Promise<void> {
  await db.insert(cliRegistrations).values(row);
}

export async function deleteExpiredCliRegistrations(db: Db, now: Date): Promise<void> {
  await db.delete(cliRegistrations).where(lt(cliRegistrations.expiresAt, now));
}

export async function findLiveCliRegistration(
  db: Db,
  sessionHash: string,
  now: Date,
): Promise<CliRegistrationRow | undefined> {
  const rows = await db
    .select()
    .from(cliRegistrations)
    .where(and(eq(cliRegistrations.sessionHash, sessionHash), gt(cliRegistrations.expiresAt, now)))
    .limit(1);
  return rows[0];
}

/** Records who confirmed; only a live, unconfirmed session can be confirmed. */
export async function confirmCliRegistration(
  db: Db,
  sessionHash: string,
  userId: string,
  now: Date,
): Promise<boolean> {
  const rows = await db
    .update(cliRegistrations)
    .set({ userId, confirmedAt: now })
    .where(and(eq(cliRegistrations.sessionHash, sessionHash), gt(cliRegistrations.expiresAt, now)))
    .returning({ hash: cliRegistrations.sessionHash });
  return rows.length > 0;
}

/** Deletes a confirmed, live session and returns it: only one poll can win the token. */
export async function takeConfirmedCliRegistration(
  db: Db,
  sessionHash: string,
  now: Date,
): Promise<CliRegistrationRow | undefined> {
  const rows = await db
    .delete(cliRegistrations)
    .where(
      and(
        eq(cliRegistrations.sessionHash, sessionHash),
        isNotNull(cliRegistrations.confirmedAt),
        gt(cliRegistrations.expiresAt, now),
      ),
    )
    .returning();
  return rows[0];
}

export async function deleteCliRegistration(db: Db, sessionHash: string): Promise<void> {
  await db.delete(cliRegistrations).where(eq(cliRegistrations.sessionHash, sessionHash));
}
