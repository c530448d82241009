import { and, desc, eq, gte, lt, type SQL, sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../platform/db/index.ts';
import { likePattern } from '../../platform/db/like-pattern.ts';
import type { Executor } from '../../platform/events/index.ts';
import { archivedArtifacts, artifactDownloadStats, retentionPolicies } from './retention.schema.ts';

export type PolicyRow = typeof retentionPolicies.$inferSelect;
export type PolicyInsert = typeof retentionPolicies.$inferInsert;
export type ArchivedRow = typeof archivedArtifacts.$inferSelect;

// ---------------------------------------------------------------------------------------------
// Policies

export const listPolicies = (db: Db) => db.select().from(retentionPolicies).orderBy(retentionPolicies.name);

export async function findPolicy(db: Executor, id: string): Promise<PolicyRow | undefined> {
  if (!/^[0-9a-f-]{36}$/i.test(id)) return undefined;
  const [row] = await db.select().from(retentionPolicies).where(eq(retentionPolicies.id, id));
  return row;
}

export async function findPolicyByName(db: Executor, name: string): Promise<PolicyRow | undefined> {
  const [row] = await db
    .select()
    .from(retentionPolicies)
    .where(sql`lower(${retentionPolicies.name}) = lower(${name})`);
  return row;
}

export async function insertPolicy(db: Executor, values: PolicyInsert): Promise<PolicyRow> {
  const [row] = await db.insert(retentionPolicies).values(values).returning();
  return row!;
}

export async function updatePolicy(
  db: Executor,
  id: string,
  values: Partial<PolicyInsert>,
): Promise<PolicyRow | undefined> {
  const [row] = await db
    .update(retentionPolicies)
    .set(values)
    .where(eq(retentionPolicies.id, id))
    .returning();
  return row;
}

export async function deletePolicy(db: Executor, id: string): Promise<boolean> {
  const rows = await db
    .delete(retentionPolicies)
    .where(eq(retentionPolicies.id, id))
    .returning({ id: retentionPolicies.id });
  return rows.length > 0;
}

/**
 * Claims the scheduled policies that are due: their next run moves one interval on in the same
 * statement (`FOR UPDATE SKIP LOCKED`), so two nodes never claim one policy for one slot.
 */
export async function claimDuePolicies(db: Db, now: Date): Promise<{ id: string }[]> {
  return queryRows<{ id: string }>(
    db,
    sql`update ${retentionPolicies} p
        set next_run_at = ${now.toISOString()}::timestamptz + make_interval(hours => p.interval_hours)
        where p.id in (
          select id from ${retentionPolicies}
          where enabled and interval_hours is not null
            and (next_run_at is null or next_run_at <= ${now.toISOString()}::timestamptz)
          for update skip locked)
        returning p.id`,
  );
}

// ---------------------------------------------------------------------------------------------
// What a policy looks at: a repository's files with their statistics and references, its versions.

export interface FileFacts {
  path: string;
  size: number;
  sha256: string;
  createdAt: Date;
  properties: Record<string, string[]>;
  lastDownloaded: Date | null;
  /** a build or a release bundle references the content */
  referenced: boolean;
}

/** Every file of a repository, with its last download and whether a build or release bundle references it. */
export async function filesOfRepository(db: Db, repositoryId: string): Promise<FileFacts[]> {
  const rows = await queryRows<{
    path: string;
    size: string | number;
    sha256: string;
    created_at: string | Date;
    properties: Record<string, string[]> | null;
    last_downloaded: string | Date | null;
    referenced: boolean;
  }>(
    db,
    sql`select a.path, a.size, a.sha256, a.created_at, a.properties, s.last_downloaded,
          (exists (select 1 from build_run_items b where b.sha256 = a.sha256)
           or exists (select 1 from build_run_items b where b.sha1 = a.sha1)
           or exists (select 1 from release_bundle_files r where r.sha256 = a.sha256)) as referenced
        from artifacts a
        left join ${artifactDownloadStats} s on s.repository_id = a.repository_id and s.path = a.path
        where a.repository_id = ${repositoryId}`,
  );
  return rows.map((r) => ({
    path: r.path,
    size: Number(r.size),
    sha256: r.sha256,
    createdAt: new Date(r.created_at),
    properties: r.properties ?? {},
    lastDownloaded: r.last_downloaded ? new Date(r.last_downloaded) : null,
    referenced: r.referenced,
  }));
}

export interface VersionFacts {
  name: string;
  version: string;
  leadPath: string;
  createdAt: Date;
}

/** The package versions the packages index holds for a repository (read only). */
export async function versionsOfRepository(db: Db, repositoryId: string): Promise<VersionFacts[]> {
  const rows = await queryRows<{
    name: string;
    version: string;
    lead_path: string;
    created_at: string | Date;
  }>(
    db,
    sql`select p.name, v.version, v.lead_path, v.created_at
        from package_versions v join packages p on p.id = v.package_id
        where p.repository_id = ${repositoryId}`,
  );
  return rows.map((r) => ({
    name: r.name,
    version: r.version,
    leadPath: r.lead_path,
    createdAt: new Date(r.created_at),
  }));
}

// ---------------------------------------------------------------------------------------------
// Download statistics

export interface DownloadIncrement {
  repositoryId: string;
  path: string;
  count: number;
  at: Date;
  by: string | null;
}

/**
 * Adds a batch of downloads in one statement: counts add up (several nodes each add their own), the
 * latest download wins `last_downloaded(_by)`. Files no longer stored are skipped.
 */
export async function addDownloadStats(db: Db, batch: DownloadIncrement[]): Promise<void> {
  if (batch.length === 0) return;
  const values = sql.join(
    batch.map(
      (b) =>
        sql`(${b.repositoryId}::uuid, ${b.path}::text, ${b.count}::bigint, ${b.at.toISOString()}::timestamptz, ${b.by}::text)`,
    ),
    sql`, `,
  );
  await db.execute(sql`
    insert into ${artifactDownloadStats} as s (repository_id, path, download_count, last_downloaded, last_downloaded_by)
    select v.repository_id, v.path, v.n, v.at, v.by
    from (values ${values}) as v(repository_id, path, n, at, by)
    where exists (select 1 from artifacts a where a.repository_id = v.repository_id and a.path = v.path)
    on conflict (repository_id, path) do update set
      download_count = s.download_count + excluded.download_count,
      last_downloaded = greatest(s.last_downloaded, excluded.last_downloaded),
      last_downloaded_by = case when excluded.last_downloaded >= s.last_downloaded
        then excluded.last_downloaded_by else s.last_downloaded_by end`);
}

export async function findDownloadStats(db: Db, repositoryId: string, path: string) {
  const [row] = await db
    .select()
    .from(artifactDownloadStats)
    .where(and(eq(artifactDownloadStats.repositoryId, repositoryId), eq(artifactDownloadStats.path, path)));
  return row;
}

/** Sets a file's last download (tests and imports: "not downloaded for N days"). */
export async function setLastDownloaded(db: Db, repositoryId: string, path: string, at: Date): Promise<void> {
  await db
    .insert(artifactDownloadStats)
    .values({ repositoryId, path, downloadCount: 1, lastDownloaded: at })
    .onConflictDoUpdate({
      target: [artifactDownloadStats.repositoryId, artifactDownloadStats.path],
      set: { lastDownloaded: at },
    });
}

export async function deleteDownloadStats(
  tx: Executor,
  repositoryId: string,
  paths: string[],
): Promise<void> {
  if (paths.length === 0) return;
  await tx.delete(artifactDownloadStats).where(
    and(
      eq(artifactDownloadStats.repositoryId, repositoryId),
      sql`${artifactDownloadStats.path} in (${sql.join(
        paths.map((p) => sql`${p}`),
        sql`, `,
      )})`,
    ),
  );
}

// ---------------------------------------------------------------------------------------------
// The archive

export async function findArchivedAt(
  db: Executor,
  repositoryId: string,
  path: string,
): Promise<ArchivedRow | undefined> {
  const [row] = await db
    .select()
    .from(archivedArtifacts)
    .where(and(eq(archivedArtifacts.repositoryId, repositoryId), eq(archivedArtifacts.path, path)))
    .limit(1);
  return row;
}

export async function findArchived(db: Executor, id: number): Promise<ArchivedRow | undefined> {
  const [row] = await db.select().from(archivedArtifacts).where(eq(archivedArtifacts.id, id));
  return row;
}

export async function deleteArchived(tx: Executor, id: number): Promise<ArchivedRow | undefined> {
  const [row] = await tx.delete(archivedArtifacts).where(eq(archivedArtifacts.id, id)).returning();
  return row;
}

export async function archivedHolds(db: Executor, sha256: string): Promise<boolean> {
  const rows = await db
    .select({ id: archivedArtifacts.id })
    .from(archivedArtifacts)
    .where(eq(archivedArtifacts.sha256, sha256))
    .limit(1);
  return rows.length > 0;
}

export async function searchArchived(
  db: Db,
  q: { text?: string; repo?: string; from?: Date; to?: Date; limit: number },
): Promise<{ rows: ArchivedRow[]; total: number }> {
  const where: SQL[] = [];
  if (q.text) {
    const pattern = `%${likePattern(q.text.toLowerCase())}%`;
    where.push(sql`lower(${archivedArtifacts.path}) like ${pattern}`);
  }
  if (q.repo) where.push(sql`lower(${archivedArtifacts.repoKey}) = lower(${q.repo})`);
  if (q.from) where.push(gte(archivedArtifacts.archivedAt, q.from));
  if (q.to) where.push(lt(archivedArtifacts.archivedAt, q.to));
  const cond = where.length > 0 ? and(...where) : undefined;
  const rows = await db
    .select()
    .from(archivedArtifacts)
    .where(cond)
    .orderBy(desc(archivedArtifacts.archivedAt), archivedArtifacts.path)
    .limit(q.limit);
  const [count] = await db.select({ n: sql<number>`count(*)::int` }).from(archivedArtifacts).where(cond);
  return { rows, total: Number(count?.n ?? 0) };
}

/** Bytes and files in the archive, per repository (issue 21 storage summary). */
export async function archiveUsageRows(db: Db) {
  return db
    .select({
      repositoryId: archivedArtifacts.repositoryId,
      repoKey: archivedArtifacts.repoKey,
      bytes: sql<number>`coalesce(sum(${archivedArtifacts.size}), 0)::bigint`,
      count: sql<number>`count(*)::int`,
    })
    .from(archivedArtifacts)
    .groupBy(archivedArtifacts.repositoryId, archivedArtifacts.repoKey);
}
