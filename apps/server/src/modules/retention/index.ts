import type { FastifyInstance } from 'fastify';
import type { Platform } from '../../platform/platform.ts';
import type { RepositoriesContext } from '../repositories/repositories.api.ts';
import { openArchiveStore } from './archive-store.ts';
import { DownloadStatsRecorder } from './download-stats.ts';
import { deleteDownloadStats, findDownloadStats } from './retention.queries.ts';
import { retentionRoutes } from './retention.routes.ts';
import {
  archiveUsage,
  duePolicies,
  expiredMessage,
  RETENTION_RUN_QUEUE,
  RETENTION_SCHEDULE_JOB,
  type RetentionContext,
  runPolicy,
} from './retention.service.ts';

export { archiveUsage } from './retention.service.ts';

/**
 * Storage lifecycle, issue 21 "Cleanup and retention policies": download statistics per file, policies
 * run on a schedule (cluster job `retention.schedule` queues the due ones on `retention.run`), and the
 * archive (cold storage) when `GRANARY_ARCHIVE_STORE` is set.
 */
export async function registerRetention(
  app: FastifyInstance,
  platform: Platform,
  repositories: RepositoriesContext,
): Promise<RetentionContext> {
  const log = platform.logging.server.child({ component: 'retention' });
  const archive = await openArchiveStore(platform.config.archiveStore, platform.config.home);
  const ctx: RetentionContext = { db: platform.database.db, repositories, archive, now: platform.now, log };
  // The storage summary's archive size (issue 21): the repositories module counts the rest itself.
  repositories.storageUsage = {
    ...repositories.storageUsage,
    archive: async (db) => {
      const rows = await archiveUsage(db);
      return { count: rows.reduce((s, r) => s + r.count, 0), size: rows.reduce((s, r) => s + r.bytes, 0) };
    },
  };
  const stats = new DownloadStatsRecorder(
    ctx.db,
    (err) => log.warn({ err: err.message }, 'download statistics not written'),
    platform.now,
  );
  repositories.artifactExtensions.register({
    id: 'retention',
    downloaded: (repositoryId, path, by) => stats.record(repositoryId, path, by),
    removed: (tx, repositoryId, paths) => deleteDownloadStats(tx, repositoryId, paths),
    stats: async (repositoryId, path) => {
      const row = await findDownloadStats(ctx.db, repositoryId, path);
      return row
        ? {
            downloadCount: row.downloadCount,
            lastDownloaded: row.lastDownloaded.getTime(),
            ...(row.lastDownloadedBy ? { lastDownloadedBy: row.lastDownloadedBy } : {}),
          }
        : null;
    },
    ...(archive ? { missing: (repositoryId, path) => expiredMessage(ctx, repositoryId, path) } : {}),
  });
  platform.jobs.recurring(stats.job());
  platform.jobs.queue<{ policyId: string }>({
    name: RETENTION_RUN_QUEUE,
    handler: async (job, { signal }) => {
      await runPolicy(ctx, job.policyId, signal);
    },
    maxAttempts: 3,
    leaseMs: 30 * 60_000,
  });
  platform.jobs.recurring({
    name: RETENTION_SCHEDULE_JOB,
    scope: 'cluster',
    intervalMs: 60_000,
    run: async () => {
      const due = await duePolicies(ctx);
      for (const policyId of due)
        await platform.jobs.enqueue(ctx.db, RETENTION_RUN_QUEUE, { policyId }, { dedupeKey: policyId });
      return { queued: due.length };
    },
  });
  app.addHook('onClose', async () => {
    await stats.flush();
    await archive?.close();
  });
  await app.register(retentionRoutes(ctx, platform.jobs));
  return Object.assign(ctx, { stats });
}
