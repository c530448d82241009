import { and, asc, desc, eq, inArray, or, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../platform/db/index.ts';
import type { Executor } from '../../platform/events/index.ts';
import { buildRunItems, buildRuns } from './builds.schema.ts';

export type BuildRunRow = typeof buildRuns.$inferSelect;
export type BuildRunInsert = typeof buildRuns.$inferInsert;
export type BuildRunItemRow = typeof buildRunItems.$inferSelect;
export type BuildRunItemInsert = typeof buildRunItems.$inferInsert;

/** Every run of `name`, newest start first. */
export async function listRuns(db: Executor, name: string): Promise<BuildRunRow[]> {
  return db
    .select()
    .from(buildRuns)
    .where(eq(buildRuns.name, name))
    .orderBy(desc(buildRuns.startedAt), desc(buildRuns.createdAt));
}

/** The runs `name` / `number` (several when published with different `started`), newest first. */
export async function findRuns(db: Executor, name: string, number: string): Promise<BuildRunRow[]> {
  return db
    .select()
    .from(buildRuns)
    .where(and(eq(buildRuns.name, name), eq(buildRuns.number, number)))
    .orderBy(desc(buildRuns.startedAt), desc(buildRuns.createdAt));
}

/** Per build name: its newest run and how many runs it has. */
export async function listLatestRuns(db: Db): Promise<(BuildRunRow & { runCount: number })[]> {
  const rows = await db
    .select({
      run: buildRuns,
      runCount: sql<number>`count(*) over (partition by ${buildRuns.name})`.mapWith(Number),
    })
    .from(buildRuns)
    .orderBy(asc(buildRuns.name), desc(buildRuns.startedAt), desc(buildRuns.createdAt));
  const seen = new Set<string>();
  const out: (BuildRunRow & { runCount: number })[] = [];
  for (const r of rows) {
    if (seen.has(r.run.name)) continue;
    seen.add(r.run.name);
    out.push({ ...r.run, runCount: r.runCount });
  }
  return out;
}

export async function insertRun(tx: Executor, row: BuildRunInsert): Promise<BuildRunRow> {
  const [inserted] = await tx.insert(buildRuns).values(row).returning();
  return inserted!;
}

export async function updateRun(tx: Executor, id: string, set: Partial<BuildRunInsert>): Promise<void> {
  await tx
    .update(buildRuns)
    .set({ ...set, updatedAt: new Date() })
    .where(eq(buildRuns.id, id));
}

export async function deleteRunRows(tx: Executor, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await tx.delete(buildRuns).where(inArray(buildRuns.id, ids));
}

export async function insertItems(tx: Executor, rows: BuildRunItemInsert[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 500) await tx.insert(buildRunItems).values(rows.slice(i, i + 500));
}

export async function itemsOfRun(
  db: Executor,
  runId: string,
  role?: 'produced' | 'used',
): Promise<BuildRunItemRow[]> {
  return db
    .select()
    .from(buildRunItems)
    .where(
      role
        ? and(eq(buildRunItems.runId, runId), eq(buildRunItems.role, role))
        : eq(buildRunItems.runId, runId),
    )
    .orderBy(asc(buildRunItems.id));
}

/** Items (with their run) whose checksum is one of a stored file's. */
export async function itemsByChecksum(
  db: Db,
  checksums: { sha256?: string; sha1?: string; md5?: string },
): Promise<{ item: BuildRunItemRow; run: BuildRunRow }[]> {
  const conditions: SQL[] = [];
  if (checksums.sha256) conditions.push(eq(buildRunItems.sha256, checksums.sha256.toLowerCase()));
  if (checksums.sha1) conditions.push(eq(buildRunItems.sha1, checksums.sha1.toLowerCase()));
  if (checksums.md5) conditions.push(eq(buildRunItems.md5, checksums.md5.toLowerCase()));
  if (conditions.length === 0) return [];
  return db
    .select({ item: buildRunItems, run: buildRuns })
    .from(buildRunItems)
    .innerJoin(buildRuns, eq(buildRuns.id, buildRunItems.runId))
    .where(or(...conditions))
    .orderBy(desc(buildRuns.startedAt), asc(buildRunItems.id))
    .limit(500);
}
