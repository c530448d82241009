import type { Db } from '../../platform/db/index.ts';
import type { RecurringJob } from '../../platform/jobs/index.ts';
import { addDownloadStats, type DownloadIncrement } from './retention.queries.ts';

/** The node job that writes this node's download statistics. */
export const DOWNLOAD_STATS_JOB = 'retention.download-stats';

/**
 * Download statistics per file (issue 21: count, last downloaded, by whom), recorded cheaply: the serving
 * path only bumps an entry of an in-memory map; every `intervalMs` (node job `retention.download-stats`),
 * or as soon as `maxPending` files are waiting, one statement adds the batch (`addDownloadStats`). Each node
 * adds its own increments, so several nodes sharing the database never overwrite one another.
 */
export class DownloadStatsRecorder {
  private pending = new Map<string, DownloadIncrement>();
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Db,
    private readonly onError: (err: Error) => void,
    private readonly now: () => number = Date.now,
    readonly intervalMs = 3_000,
    private readonly maxPending = 1_000,
  ) {}

  /** One whole download of a file (on the serving path: never waits, never throws). */
  record(repositoryId: string, path: string, by?: string): void {
    const key = `${repositoryId}\u0000${path}`;
    const at = new Date(this.now());
    const entry = this.pending.get(key);
    if (entry) {
      entry.count += 1;
      entry.at = at;
      entry.by = by ?? null;
    } else this.pending.set(key, { repositoryId, path, count: 1, at, by: by ?? null });
    if (this.pending.size >= this.maxPending) void this.flush();
  }

  /** Writes what was recorded so far, one flush at a time (also when the server closes). */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      if (this.pending.size === 0) return;
      const batch = [...this.pending.values()];
      this.pending = new Map();
      try {
        for (let i = 0; i < batch.length; i += 500) await addDownloadStats(this.db, batch.slice(i, i + 500));
      } catch (err) {
        this.onError(err as Error);
      }
    });
    return this.flushing;
  }

  job(): RecurringJob {
    return { name: DOWNLOAD_STATS_JOB, scope: 'node', intervalMs: this.intervalMs, run: () => this.flush() };
  }
}
