import type { StorageConsistencyReport, StorageGcResult, StorageGcStatus } from '@granary/contracts';
import type { Logger } from 'pino';
import { ConflictError } from '../../../platform/errors.ts';
import { JobBusyError } from '../../../platform/jobs/index.ts';
import type { Platform } from '../../../platform/platform.ts';
import { readNodeId } from '../../system/nodes.service.ts';
import { BLOB_GC_JOB, blobTotals, collectBlobs, currentRun, lastRun, pruneRuns } from './blob-gc.ts';
import { checkConsistency } from './consistency.ts';

export const BLOB_CONSISTENCY_JOB = 'storage.blob-consistency';

/**
 * Blob garbage collection as a service (issue 21): the recurring `storage.blob-gc` job (one node at a
 * time; every GRANARY_BLOB_GC_INTERVAL_SECS), "run now" through the same job, the dry run, the status
 * and the consistency check (`storage.blob-consistency`, daily, repairing what is safe).
 */
export class StorageGcService {
  private readonly node: string;
  private manual = false;

  constructor(private readonly platform: Platform) {
    this.node = readNodeId(platform.config.home);
  }

  private deps(log: Logger) {
    return { db: this.platform.database.db, blobs: this.platform.blobs, log, node: this.node };
  }

  /** Registers the jobs (at boot). */
  register(): void {
    const { jobs, config, logging } = this.platform;
    const log = logging.server.child({ component: 'blob-gc' });
    jobs.recurring({
      name: BLOB_GC_JOB,
      scope: 'cluster',
      intervalMs: config.blobGcIntervalSecs * 1000,
      jitterMs: Math.min(config.blobGcIntervalSecs * 100, 60_000),
      run: async ({ signal }) => {
        const trigger = this.manual ? 'manual' : 'schedule';
        this.manual = false;
        const result = await collectBlobs(this.deps(log), {
          graceSecs: config.blobGcGraceSecs,
          dryRun: false,
          trigger,
          signal,
        });
        await pruneRuns(this.platform.database.db);
        return result;
      },
    });
    jobs.recurring({
      name: BLOB_CONSISTENCY_JOB,
      scope: 'cluster',
      intervalMs: 24 * 3600_000,
      jitterMs: 3600_000,
      run: ({ signal }) => checkConsistency(this.deps(log), { repair: true, signal }),
    });
  }

  /** Runs the GC now (through its job: never twice at once across nodes); a dry run only counts. */
  async run(opts: { dryRun: boolean; log: Logger }): Promise<StorageGcResult> {
    if (opts.dryRun)
      return collectBlobs(this.deps(opts.log), {
        graceSecs: this.platform.config.blobGcGraceSecs,
        dryRun: true,
        trigger: 'manual',
      });
    try {
      this.manual = true;
      return (await this.platform.jobs.runNow(BLOB_GC_JOB)) as StorageGcResult;
    } catch (err) {
      this.manual = false;
      if (err instanceof JobBusyError)
        throw new ConflictError('Garbage collection is running already: wait for it to finish');
      throw err;
    }
  }

  async status(): Promise<StorageGcStatus> {
    const { db } = this.platform.database;
    const { config, jobs } = this.platform;
    const job = (await jobs.status()).find((j) => j.name === BLOB_GC_JOB);
    const progress = await currentRun(db);
    return {
      running: (job?.running ?? false) || (!!progress && !progress.dryRun),
      progress,
      lastRun: await lastRun(db),
      nextRunAt: job?.nextRunAt ?? null,
      intervalSecs: config.blobGcIntervalSecs,
      graceSecs: config.blobGcGraceSecs,
      ...(await blobTotals(db, config.blobGcGraceSecs)),
    };
  }

  consistency(opts: { repair: boolean; log: Logger }): Promise<StorageConsistencyReport> {
    return checkConsistency(this.deps(opts.log), { repair: opts.repair });
  }
}
