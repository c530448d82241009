import type { Db } from '../../platform/db/index.ts';
import type { RecurringJob } from '../../platform/jobs/index.ts';
import { addDownloads } from './packages.queries.ts';

/** The node job that writes this node's download counts. */
export const DOWNLOAD_COUNTS_JOB = 'packages.download-counts';

/**
 * Client downloads of lead files, counted in memory on the serving path (one map increment) and
 * added to the packages index every few seconds by the node job `packages.download-counts`, off the
 * request's hot path, and once more when the server closes.
 */
export class DownloadCounter {
  private counts = new Map<string, Map<string, number>>();
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Db,
    private readonly onError: (err: Error) => void,
    readonly intervalMs = 3_000,
  ) {}

  count(repositoryId: string, path: string): void {
    let repo = this.counts.get(repositoryId);
    if (!repo) {
      repo = new Map();
      this.counts.set(repositoryId, repo);
    }
    repo.set(path, (repo.get(path) ?? 0) + 1);
  }

  /** Writes the counts gathered so far (also on close); one flush at a time. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      if (this.counts.size === 0) return;
      const batch = this.counts;
      this.counts = new Map();
      try {
        for (const [repositoryId, paths] of batch) await addDownloads(this.db, repositoryId, paths);
      } catch (err) {
        this.onError(err as Error);
      }
    });
    return this.flushing;
  }

  /** The recurring job that flushes the counts every `intervalMs` on this node. */
  job(): RecurringJob {
    return {
      name: DOWNLOAD_COUNTS_JOB,
      scope: 'node',
      intervalMs: this.intervalMs,
      run: () => this.flush(),
    };
  }
}
