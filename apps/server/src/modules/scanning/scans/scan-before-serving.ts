import { listRepositoryHeads } from '../../repositories/repositories.api.ts';
import type { ScanService } from './scans.service.ts';

/** How long a download waits for its file's scan before it is refused as not yet scanned. */
export const SCAN_BEFORE_SERVING_MS = 30_000;

/**
 * "A proxied artifact is never served before its verdict when 'block unscanned' is on" (issue 16
 * "Blocking"): the download of a file not yet scanned (a remote's file cached by this very request,
 * or a deploy whose queued scan has not run) scans it in the request, at most `timeoutMs`; the caller
 * then asks the policies again. The scan job queued for the same file later finds its content read
 * (by sha256) and only records it again. Concurrent downloads of one file on this node share one scan;
 * other nodes run their own (the outcome is stored by content, so they agree).
 */
export function scanBeforeServing(
  scans: ScanService,
  timeoutMs = SCAN_BEFORE_SERVING_MS,
): (repositoryId: string, path: string) => Promise<void> {
  const running = new Map<string, Promise<void>>();
  const scan = async (repositoryId: string, path: string) => {
    const { db } = scans.deps;
    const repo = (await listRepositoryHeads(db)).find((h) => h.id === repositoryId);
    if (!repo) return;
    // A repository left out of indexing is never scanned: its files stay refused, as before.
    if (!(await scans.isIndexed(repo.id)) || !(await scans.scannable(repo, path))) return;
    await scans.runScan({ repositoryId: repo.id, repoKey: repo.key, path });
  };
  return async (repositoryId, path) => {
    const key = `${repositoryId}\u0000${path}`;
    let pending = running.get(key);
    if (!pending) {
      pending = scan(repositoryId, path)
        .catch((err: Error) =>
          scans.deps.log.warn(
            { path, err: err.message },
            'scan before serving failed; the queued scan decides',
          ),
        )
        .finally(() => running.delete(key));
      running.set(key, pending);
    }
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
      timer.unref();
    });
    try {
      await Promise.race([pending, timeout]);
    } finally {
      clearTimeout(timer);
    }
  };
}
