import { and, desc, eq, gt, isNull, lt } from 'drizzle-orm';
import type { Db } from '../../platform/db/index.ts';
import type { Executor } from '../../platform/events/index.ts';
import { passwordResetKeys } from './access.schema.ts';

export type ResetKeyRow = typeof passwordResetKeys.$inferSelect;

export async function insertResetKey(
  db: Executor,
  row: typeof passwordResetKeys.$inferInsert,
): Promise<void> {
  await db.insert(passwordResetKeys).values(row);
}

/** The key if it is unused and not expired. */
export async function findLiveResetKey(db: Db, keyHash: string, now: Date): Promise<ResetKeyRow | undefined> {
  const rows = await db
    .select()
    .from(passwordResetKeys)
    .where(
      and(
        eq(passwordResetKeys.keyHash, keyHash),
        isNull(passwordResetKeys.usedAt),
        gt(passwordResetKeys.expiresAt, now),
      ),
    )
    .limit(1);
  return rows[0];
}

/** Marks the key used; only one caller can win, the others get undefined. */
export async function consumeResetKey(
  db: Executor,
  keyHash: string,
  now: Date,
): Promise<ResetKeyRow | undefined> {
  const rows = await db
    .update(passwordResetKeys)
    .set({ usedAt: now })
    .where(
      and(
        eq(passwordResetKeys.keyHash, keyHash),
        isNull(passwordResetKeys.usedAt),
        gt(passwordResetKeys.expiresAt, now),
      ),
    )
    .returning();
  return rows[0];
}

export async function latestResetKeyAt(db: Db, userId: string): Promise<Date | undefined> {
  const rows = await db
    .select({ at: passwordResetKeys.createdAt })
    .from(passwordResetKeys)
    .where(eq(passwordResetKeys.userId, userId))
    .orderBy(desc(passwordResetKeys.createdAt))
    .limit(1);
  return rows[0]?.at;
}

/** Earlier keys of the user stop working (only the newest link does), and expired keys go. */
export async function deleteResetKeysOfUser(db: Executor, userId: string): Promise<void> {
  await db.delete(passwordResetKeys).where(eq(passwordResetKeys.userId, userId));
}

export async function deleteExpiredResetKeys(db: Executor, now: Date): Promise<void> {
  await db.delete(passwordResetKeys).where(lt(passwordResetKeys.expiresAt, now));
}
