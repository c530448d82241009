import type { Db } from '../../platform/db/index.ts';
import type { Metrics } from '../../platform/metrics/index.ts';
import { type RepositoryUsage, usageByRepository } from './artifacts.queries.ts';

/** How long one reading of the per-repository counts serves scrapes: the query sums every artifact row. */
const USAGE_TTL_MS = 60_000;

/**
 * Per-repository artifact counts and stored bytes (`granary_repository_artifacts`,
 * `granary_repository_stored_bytes`), read from the database when scraped, at most once a minute.
 * Every node answers the same values: they are the cluster's, not the node's.
 */
export function registerRepositoryMetrics(metrics: Metrics, db: Db, now: () => number = Date.now): void {
  let cached: { at: number; usage: Promise<RepositoryUsage[]> } | undefined;
  const usage = () => {
    if (!cached || now() - cached.at > USAGE_TTL_MS) {
      const reading = usageByRepository(db);
      cached = { at: now(), usage: reading };
      // A failed reading is not kept: the next scrape asks again.
      reading.catch(() => {
        if (cached?.usage === reading) cached = undefined;
      });
    }
    return cached.usage;
  };
  const labels = (r: RepositoryUsage) => ({
    repo_key: r.key,
    repo_class: r.rclass,
    package_type: r.packageType,
  });
  metrics.gauge(
    'granary_repository_artifacts',
    'Files stored in each repository (a remote repository: its cache)',
    ['repo_key', 'repo_class', 'package_type'],
    async (set) => {
      for (const r of await usage()) set(labels(r), r.filesCount);
    },
  );
  metrics.gauge(
    'granary_repository_stored_bytes',
    "Bytes of each repository's files (before deduplication across repositories)",
    ['repo_key', 'repo_class', 'package_type'],
    async (set) => {
      for (const r of await usage()) set(labels(r), r.usedSpace);
    },
  );
}
