import { eq, sql } from 'drizzle-orm';
import { blobs } from '../../platform/blobs/blob-references.schema.ts';
import { type Db, queryRows } from '../../platform/db/index.ts';
import type { Executor } from '../../platform/events/index.ts';
import { artifacts, repositories } from './repositories.schema.ts';
import { repositoryQuotas, repositoryUsage, storageUsageSnapshots } from './storage.schema.ts';

const num = (v: string | number | null | undefined) => Number(v ?? 0);

export async function findRepositoryQuota(db: Executor, repositoryId: string): Promise<number | null> {
  const rows = await db
    .select({ quotaBytes: repositoryQuotas.quotaBytes })
    .from(repositoryQuotas)
    .where(eq(repositoryQuotas.repositoryId, repositoryId))
    .limit(1);
  return rows[0]?.quotaBytes ?? null;
}

export async function setRepositoryQuota(db: Executor, repositoryId: string, bytes: number | null) {
  if (bytes === null) {
    await db.delete(repositoryQuotas).where(eq(repositoryQuotas.repositoryId, repositoryId));
    return;
  }
  await db
    .insert(repositoryQuotas)
    .values({ repositoryId, quotaBytes: bytes })
    .onConflictDoUpdate({
      target: repositoryQuotas.repositoryId,
      set: { quotaBytes: bytes, updatedAt: sql`now()` },
    });
}

/** Every repository's quota, by repository id. */
export async function allRepositoryQuotas(db: Db): Promise<Map<string, number>> {
  const rows = await db.select().from(repositoryQuotas);
  return new Map(rows.map((r) => [r.repositoryId, r.quotaBytes]));
}

/**
 * A cluster-wide lock on a quota's scope until the transaction ends, so two uploads cannot both
 * pass a check that only one of them fits (taken only where a quota is set).
 */
export async function lockQuotaScope(tx: Executor, scope: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`granary.quota:${scope}`}, 0))`);
}

/** The bytes a repository's artifacts take (the sum of their sizes), exactly: its running total. */
export async function repositoryUsedBytes(tx: Executor, repositoryId: string): Promise<number> {
  const rows = await tx
    .select({ bytes: repositoryUsage.usedBytes })
    .from(repositoryUsage)
    .where(eq(repositoryUsage.repositoryId, repositoryId))
    .limit(1);
  return num(rows[0]?.bytes);
}

/** The bytes the artifacts of every repository of a project take, exactly (their running totals). */
export async function projectUsedBytes(tx: Executor, projectKey: string): Promise<number> {
  const rows = (await tx.execute(
    sql`select coalesce(sum(u.used_bytes), 0) as bytes
          from ${repositoryUsage} u join ${repositories} r on r.id = u.repository_id
         where r.project_key = ${projectKey}`,
  )) as unknown as { rows: { bytes: string | number }[] };
  return num(rows.rows[0]?.bytes);
}

export interface ProjectUsage {
  projectKey: string;
  filesCount: number;
  usedSpace: number;
  repositoriesCount: number;
}

export async function usageByProject(db: Db): Promise<ProjectUsage[]> {
  const rows = await queryRows<{
    project_key: string;
    files: string | number;
    bytes: string | number | null;
    repos: string | number;
  }>(
    db,
    sql`select r.project_key, count(a.id) as files, coalesce(sum(a.size), 0) as bytes,
               count(distinct r.id) as repos
          from ${repositories} r left join ${artifacts} a on a.repository_id = r.id
         where r.project_key is not null
         group by r.project_key
         order by r.project_key`,
  );
  return rows.map((r) => ({
    projectKey: r.project_key,
    filesCount: num(r.files),
    usedSpace: num(r.bytes),
    repositoriesCount: num(r.repos),
  }));
}

/** Takes (or retakes) today's snapshot: one row per repository; how many rows. */
export async function snapshotUsage(db: Db, day: string): Promise<number> {
  const rows = await queryRows<{ n: string | number }>(
    db,
    sql`with inserted as (
          insert into ${storageUsageSnapshots} (day, repo_key, package_type, project_key, files_count, used_bytes)
          select ${day}::date, r.key, r.package_type, r.project_key, count(a.id), coalesce(sum(a.size), 0)
            from ${repositories} r left join ${artifacts} a on a.repository_id = r.id
           group by r.id, r.key, r.package_type, r.project_key
          on conflict (day, repo_key) do update
             set package_type = excluded.package_type, project_key = excluded.project_key,
                 files_count = excluded.files_count, used_bytes = excluded.used_bytes, taken_at = now()
          returning 1)
        select count(*) as n from inserted`,
  );
  return num(rows[0]?.n);
}

export interface UsageSnapshot {
  day: string;
  repoKey: string;
  packageType: string;
  projectKey: string | null;
  filesCount: number;
  usedBytes: number;
}

/** Snapshots from `since` (a day, inclusive) on, oldest first. */
export async function usageSnapshotsSince(db: Db, since: string): Promise<UsageSnapshot[]> {
  const rows = await queryRows<{
    day: string | Date;
    repo_key: string;
    package_type: string;
    project_key: string | null;
    files_count: string | number;
    used_bytes: string | number;
  }>(
    db,
    sql`select day::text as day, repo_key, package_type, project_key, files_count, used_bytes
          from ${storageUsageSnapshots} where day >= ${since}::date order by day, repo_key`,
  );
  return rows.map((r) => ({
    day: String(r.day).slice(0, 10),
    repoKey: r.repo_key,
    packageType: r.package_type,
    projectKey: r.project_key,
    filesCount: num(r.files_count),
    usedBytes: num(r.used_bytes),
  }));
}

export interface RepositoryUsageRow {
  id: string;
  key: string;
  rclass: string;
  packageType: string;
  projectKey: string | null;
  filesCount: number;
  usedSpace: number;
}

/** Every repository's files and bytes (the sum of its artifacts' sizes), by key. */
export async function usageOfRepositories(db: Db): Promise<RepositoryUsageRow[]> {
  const rows = await queryRows<{
    id: string;
    key: string;
    rclass: string;
    package_type: string;
    project_key: string | null;
    files: string | number;
    bytes: string | number | null;
  }>(
    db,
    sql`select r.id, r.key, r.rclass, r.package_type, r.project_key, count(a.id) as files,
               coalesce(sum(a.size), 0) as bytes
          from ${repositories} r left join ${artifacts} a on a.repository_id = r.id
         group by r.id order by r.key`,
  );
  return rows.map((r) => ({
    id: r.id,
    key: r.key,
    rclass: r.rclass,
    packageType: r.package_type,
    projectKey: r.project_key,
    filesCount: num(r.files),
    usedSpace: num(r.bytes),
  }));
}

/** Blobs nothing holds (reference count 0): what the blob GC deletes once their grace period is over. */
export async function unreferencedBlobs(db: Db): Promise<{ blobs: number; bytes: number }> {
  const rows = await queryRows<{ n: string | number; bytes: string | number | null }>(
    db,
    sql`select count(*) as n, coalesce(sum(${blobs.size}), 0) as bytes from ${blobs} where ${blobs.refCount} = 0`,
  );
  return { blobs: num(rows[0]?.n), bytes: num(rows[0]?.bytes) };
}
