import { and, desc, eq, sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../../platform/db/index.ts';
import type { Executor } from '../../../platform/events/index.ts';
import { supportBundles } from './support.schema.ts';

export type SupportBundleRow = typeof supportBundles.$inferSelect;

export async function insertBundle(tx: Executor, row: typeof supportBundles.$inferInsert): Promise<void> {
  await tx.insert(supportBundles).values(row);
}

export async function listBundleRows(db: Db): Promise<SupportBundleRow[]> {
  return db.select().from(supportBundles).orderBy(desc(supportBundles.createdAt), desc(supportBundles.id));
}

export async function findBundleRow(db: Db, id: string): Promise<SupportBundleRow | undefined> {
  const [row] = await db.select().from(supportBundles).where(eq(supportBundles.id, id));
  return row;
}

/** Takes a bundle still in progress for this node's run; answers false when it is gone or finished. */
export async function claimBundle(db: Db, id: string, nodeId: string): Promise<boolean> {
  const rows = await db
    .update(supportBundles)
    .set({ nodeId })
    .where(and(eq(supportBundles.id, id), eq(supportBundles.status, 'in progress')))
    .returning({ id: supportBundles.id });
  return rows.length > 0;
}

/** Records a run's outcome, only while the bundle is still this node's and in progress. */
export async function finishBundle(
  db: Db,
  id: string,
  nodeId: string,
  outcome: { status: 'success'; size: number } | { status: 'failure'; error: string },
): Promise<boolean> {
  const rows = await db
    .update(supportBundles)
    .set({
      status: outcome.status,
      finishedAt: sql`now()`,
      size: outcome.status === 'success' ? outcome.size : null,
      error: outcome.status === 'failure' ? outcome.error : null,
    })
    .where(
      and(
        eq(supportBundles.id, id),
        eq(supportBundles.nodeId, nodeId),
        eq(supportBundles.status, 'in progress'),
      ),
    )
    .returning({ id: supportBundles.id });
  return rows.length > 0;
}

/** At a node's start: its bundles left in progress by the run before failed (their jobs then do nothing). */
export async function failInterruptedBundles(db: Db, nodeId: string): Promise<string[]> {
  const rows = await db
    .update(supportBundles)
    .set({
      status: 'failure',
      finishedAt: sql`now()`,
      error: 'interrupted: the node generating it stopped',
    })
    .where(and(eq(supportBundles.nodeId, nodeId), eq(supportBundles.status, 'in progress')))
    .returning({ id: supportBundles.id });
  return rows.map((r) => r.id);
}

export async function deleteBundleRow(db: Db, id: string): Promise<SupportBundleRow | undefined> {
  const [row] = await db.delete(supportBundles).where(eq(supportBundles.id, id)).returning();
  return row;
}

/** drizzle's record of the migrations applied to this database. */
export async function appliedMigrations(db: Db): Promise<{ id: number; hash: string; created_at: string }[]> {
  return queryRows(db, sql`select id, hash, created_at from drizzle.__drizzle_migrations order by id`);
}

export async function databaseSize(db: Db): Promise<number | null> {
  const [row] = await queryRows<{ size: string | number | null }>(
    db,
    sql`select pg_database_size(current_database()) as size`,
  );
  return row?.size == null ? null : Number(row.size);
}
