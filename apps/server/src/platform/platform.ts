import type { Config } from '../config/index.ts';
import type { BlobCache, BlobStore } from './blobs/index.ts';
import type { Database } from './db/index.ts';
import type { ResponseCache } from './http/response-cache.ts';
import type { UploadGuard } from './http/upload-guard.ts';
import type { Jobs } from './jobs/index.ts';
import type { Logging } from './logger/index.ts';
import type { Metrics } from './metrics/index.ts';
import type { OutboundClient } from './outbound/index.ts';
import type { Secrets } from './secrets/index.ts';

/**
 * What every module reaches through `app.granary` (built by `buildApp`, handed to each module's
 * `register…`). Modules import this type from here, never from `app.ts`, which imports them.
 */
export interface Platform {
  config: Config;
  database: Database;
  blobs: BlobStore;
  /** The most-read small blobs in memory (GRANARY_BLOB_CACHE_BYTES). */
  blobCache: BlobCache;
  outbound: OutboundClient;
  /** Stored secrets, encrypted at rest under the master key (`sealSecret` / `openSecret`). */
  secrets: Secrets;
  logging: Logging;
  /** Background work: the one place that runs recurring jobs. */
  jobs: Jobs;
  /** Slow-client limits of every upload route (issue 12 §15): minimum rate, uploads per address. */
  uploads: UploadGuard;
  /** This node's Prometheus metrics (`/api/v1/metrics`): modules count what they do into it. */
  metrics: Metrics;
  /** Repeated small repository reads answered before routing (issue 24); void on any change. */
  responseCache: ResponseCache;
  /** The clock (epoch ms) expiries and time-limited caches read: `AppDeps.now`, else `Date.now`. */
  now: () => number;
}
