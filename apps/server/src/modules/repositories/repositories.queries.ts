import { asc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../platform/db/index.ts';
import type { Executor } from '../../platform/events/index.ts';
import { repositories } from './repositories.schema.ts';

export type RepositoryRow = typeof repositories.$inferSelect;
export type RepositoryInsert = typeof repositories.$inferInsert;

export async function listRepositoryRows(db: Executor): Promise<RepositoryRow[]> {
  return db.select().from(repositories).orderBy(asc(repositories.key));
}

/** Every repository's id, key, class, type and settings (no order): what other modules' lists need. */
export async function listRepositoryHeadRows(db: Executor) {
  return db
    .select({
      id: repositories.id,
      key: repositories.key,
      rclass: repositories.rclass,
      packageType: repositories.packageType,
      settings: repositories.settings,
    })
    .from(repositories);
}

export async function findRepositoryByKey(db: Executor, key: string): Promise<RepositoryRow | undefined> {
  const rows = await db
    .select()
    .from(repositories)
    .where(eq(sql`lower(${repositories.key})`, key.toLowerCase()))
    .limit(1);
  return rows[0];
}

export async function insertRepository(db: Executor, row: RepositoryInsert): Promise<RepositoryRow> {
  const [created] = await db.insert(repositories).values(row).returning();
  return created!;
}

export async function updateRepository(
  db: Executor,
  id: string,
  change: Partial<RepositoryInsert>,
): Promise<RepositoryRow> {
  const [updated] = await db
    .update(repositories)
    .set({ ...change, updatedAt: new Date() })
    .where(eq(repositories.id, id))
    .returning();
  return updated!;
}

export async function deleteRepositoryRow(db: Executor, id: string): Promise<void> {
  await db.delete(repositories).where(eq(repositories.id, id));
}

/** Runs `fn` holding a transaction-scoped advisory lock (several nodes starting at once). */
export async function withAdvisoryLock<T>(
  db: Db,
  lockKey: bigint,
  fn: (tx: Executor) => Promise<T>,
): Promise<T> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${lockKey.toString()}::bigint)`);
    return fn(tx);
  });
}
