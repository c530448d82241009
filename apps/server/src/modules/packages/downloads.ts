import type { Db } from '../../platform/db/index.ts';
import { addDownloads } from './packages.queries.ts';

/**
 * Client downloads of lead files, counted in memory on the serving path (one map increment) and
 * added to the packages index every few seconds by a timer, off the request's hot path.
 */
export class DownloadCounter {
  private counts = new Map<string, Map<string, number>>();
  private timer: NodeJS.Timeout | undefined;
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

  start(): void {
    this.timer ??= setInterval(() => void this.flush(), this.intervalMs);
    this.timer.unref();
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

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }
}
