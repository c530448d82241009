import { SCRUB_JOB_NAME, scrubBlobs } from '../../platform/blobs/index.ts';
import type { Platform } from '../../platform/platform.ts';
import { scrubTargets } from './blob-scrub.queries.ts';

/**
 * The blob scrub (issue 12 §9): every GRANARY_SCRUB_INTERVAL_SECS one node re-hashes every blob an
 * artifact refers to, at GRANARY_SCRUB_RATE_BYTES_PER_SEC, records what is damaged, missing or
 * stored empty, and closes faults that were repaired. Its report is the job's last result
 * (`GET /api/system/storage/scrub`); `POST /api/system/jobs/blobs.scrub/run` runs it now.
 */
export function registerBlobScrub(platform: Platform): void {
  const { config, database, blobs, jobs } = platform;
  jobs.recurring({
    name: SCRUB_JOB_NAME,
    scope: 'cluster',
    intervalMs: config.scrubIntervalSecs * 1000,
    jitterMs: Math.min(config.scrubIntervalSecs * 100, 3_600_000),
    run: ({ signal, log }) =>
      scrubBlobs({
        db: database.db,
        blobs,
        log,
        targets: scrubTargets(database.db),
        rateBytesPerSec: config.scrubRateBytesPerSec,
        signal,
      }),
  });
}
