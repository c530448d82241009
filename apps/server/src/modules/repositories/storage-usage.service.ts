import type { RepositoryQuota, StorageHistory, StorageSummary, UsageTotals } from '@granary/contracts';
import { eq, isNotNull } from 'drizzle-orm';
import type { Db } from '../../platform/db/index.ts';
import type { Principal } from '../../platform/http/access-control.ts';
import type { Jobs } from '../../platform/jobs/index.ts';
import { projects } from '../access/access.schema.ts';
import { binariesUsage } from './artifacts.queries.ts';
import { authorize, type RepositoriesContext, repositoryHidden } from './context.ts';
import {
  allRepositoryQuotas,
  findRepositoryQuota,
  projectUsedBytes,
  repositoryUsedBytes,
  setRepositoryQuota,
  snapshotUsage,
  unreferencedBlobs,
  usageByProject,
  usageOfRepositories,
  usageSnapshotsSince,
} from './quota.queries.ts';
import { quotaState } from './quota.service.ts';
import { findRepository } from './repositories.service.ts';
import { trashUsage } from './trash.service.ts';

/**
 * What other parts of the storage lifecycle count (issue 21): the trash cans, the archive store and
 * the blobs the GC will reclaim. Each is registered by its owner; one not registered shows as null.
 */
export interface StorageUsageSources {
  trash?: (db: Db) => Promise<UsageTotals>;
  archive?: (db: Db) => Promise<UsageTotals>;
  reclaimable?: (db: Db) => Promise<{ blobs: number; bytes: number }>;
}

async function projectQuotaOf(db: Db, key: string): Promise<number | null> {
  const rows = await db
    .select({ quota: projects.storageQuotaBytes })
    .from(projects)
    .where(eq(projects.key, key))
    .limit(1);
  const q = rows[0]?.quota ?? null;
  return q !== null && q >= 0 ? q : null;
}

async function visibleRepository(ctx: RepositoriesContext, principal: Principal | null, key: string) {
  const repo = await findRepository(ctx.db, key);
  if (!repo) throw repositoryHidden(principal, key);
  await authorize(ctx, principal, 'read', repo, '');
  return repo;
}

/** A repository's quota and how full it is (and its project's, when that has a quota). */
export async function getRepositoryQuota(
  ctx: RepositoriesContext,
  principal: Principal | null,
  key: string,
): Promise<RepositoryQuota> {
  const repo = await visibleRepository(ctx, principal, key);
  const quotaBytes = await findRepositoryQuota(ctx.db, repo.id);
  const usedBytes = await repositoryUsedBytes(ctx.db, repo.id);
  let project: RepositoryQuota['project'] = null;
  if (repo.projectKey) {
    const quota = await projectQuotaOf(ctx.db, repo.projectKey);
    if (quota !== null) {
      const used = await projectUsedBytes(ctx.db, repo.projectKey);
      project = {
        projectKey: repo.projectKey,
        quotaBytes: quota,
        usedBytes: used,
        state: quotaState(used, quota),
      };
    }
  }
  return { repoKey: repo.key, quotaBytes, usedBytes, state: quotaState(usedBytes, quotaBytes), project };
}

/** Sets (bytes) or removes (null) a repository's quota. Lowering it below the use refuses only new uploads. */
export async function updateRepositoryQuota(
  ctx: RepositoriesContext,
  principal: Principal | null,
  key: string,
  quotaBytes: number | null,
): Promise<RepositoryQuota> {
  const repo = await findRepository(ctx.db, key);
  if (!repo) throw repositoryHidden(principal, key);
  await setRepositoryQuota(ctx.db, repo.id, quotaBytes);
  ctx.log.info({ repoKey: repo.key, quotaBytes, by: principal?.name }, 'repository storage quota changed');
  return getRepositoryQuota(ctx, principal, repo.key);
}

/** `ui/storagesummary`: per repository, project and package type; deduplication; trash, archive, reclaimable. */
export async function storageSummary(
  ctx: RepositoriesContext,
  sources: StorageUsageSources,
): Promise<StorageSummary> {
  const [repositories, binaries, byProject, quotas, projectRows] = await Promise.all([
    usageOfRepositories(ctx.db),
    binariesUsage(ctx.db),
    usageByProject(ctx.db),
    allRepositoryQuotas(ctx.db),
    ctx.db
      .select({ key: projects.key, quota: projects.storageQuotaBytes })
      .from(projects)
      .where(isNotNull(projects.storageQuotaBytes)),
  ]);
  const projectQuotas = new Map(
    projectRows.filter((p) => p.quota !== null && p.quota >= 0).map((p) => [p.key, p.quota as number]),
  );
  const artifactsSize = repositories.reduce((s, r) => s + r.usedSpace, 0);
  const artifactsCount = repositories.reduce((s, r) => s + r.filesCount, 0);
  const byType = new Map<string, { filesCount: number; usedSpace: number }>();
  for (const r of repositories) {
    const t = byType.get(r.packageType) ?? { filesCount: 0, usedSpace: 0 };
    t.filesCount += r.filesCount;
    t.usedSpace += r.usedSpace;
    byType.set(r.packageType, t);
  }
  const [trash, archive, reclaimable] = await Promise.all([
    sources.trash?.(ctx.db) ?? null,
    sources.archive?.(ctx.db) ?? null,
    sources.reclaimable?.(ctx.db) ?? null,
  ]);
  return {
    binariesSummary: {
      binariesCount: binaries.count,
      binariesSize: binaries.size,
      artifactsCount,
      artifactsSize,
      deduplicationSaving: artifactsSize - binaries.size,
      optimization: artifactsSize === 0 ? '0%' : `${Math.round((binaries.size / artifactsSize) * 100)}%`,
    },
    repositoriesSummaryList: repositories.map((r) => {
      const quotaBytes = quotas.get(r.id) ?? null;
      return {
        repoKey: r.key,
        repoType: r.rclass.toUpperCase(),
        packageType: r.packageType,
        projectKey: r.projectKey,
        filesCount: r.filesCount,
        usedSpace: r.usedSpace,
        percentage: artifactsSize === 0 ? 0 : Math.round((r.usedSpace / artifactsSize) * 10000) / 100,
        quotaBytes,
        quotaState: quotaState(r.usedSpace, quotaBytes),
      };
    }),
    projectsSummaryList: byProject.map((p) => {
      const quotaBytes = projectQuotas.get(p.projectKey) ?? null;
      return { ...p, quotaBytes, quotaState: quotaState(p.usedSpace, quotaBytes) };
    }),
    packageTypesSummaryList: [...byType]
      .map(([packageType, t]) => ({ packageType, ...t }))
      .sort((a, b) => b.usedSpace - a.usedSpace),
    trash,
    archive,
    reclaimable,
  };
}

const DAY_MS = 86_400_000;
const isoDay = (at: Date) => at.toISOString().slice(0, 10);

/**
 * The daily snapshots of the last `days` days, oldest first; today's from the live counts (the
 * job's row for today is at most an hour old; this is exact).
 */
export async function storageHistory(
  ctx: RepositoriesContext,
  days: number,
  now: number,
): Promise<StorageHistory> {
  const today = isoDay(new Date(now));
  const since = isoDay(new Date(now - (days - 1) * DAY_MS));
  const [stored, live] = await Promise.all([usageSnapshotsSince(ctx.db, since), usageOfRepositories(ctx.db)]);
  return {
    days,
    snapshots: [
      ...stored.filter((s) => s.day < today),
      ...live.map((r) => ({
        day: today,
        repoKey: r.key,
        packageType: r.packageType,
        projectKey: r.projectKey,
        filesCount: r.filesCount,
        usedBytes: r.usedSpace,
      })),
    ],
  };
}

export const USAGE_SNAPSHOT_JOB = 'storage.usage-snapshot';

/**
 * The usage snapshot (issue 21): one node an hour writes today's row per repository (rewritten
 * through the day, so the day's last run is what stays), which the storage page charts over time.
 */
export function registerUsageSnapshots(jobs: Jobs, db: Db, now: () => number): void {
  jobs.recurring({
    name: USAGE_SNAPSHOT_JOB,
    scope: 'cluster',
    intervalMs: 3_600_000,
    jitterMs: 300_000,
    run: async () => {
      const day = isoDay(new Date(now()));
      return { day, repositories: await snapshotUsage(db, day) };
    },
  });
}

/** The sources this module counts itself: the trash cans and the blobs nothing refers to (the archive's owner adds its own). */
export function defaultStorageUsage(): StorageUsageSources {
  return {
    trash: async (db) => {
      const rows = await trashUsage(db);
      return { count: rows.reduce((s, r) => s + r.count, 0), size: rows.reduce((s, r) => s + r.bytes, 0) };
    },
    reclaimable: (db) => unreferencedBlobs(db),
  };
}
