import { z } from 'zod';

/**
 * Blob garbage collection and the storage consistency check (issue 21 "Blob garbage collection").
 * Sizes are bytes, durations milliseconds, times ISO 8601.
 *
 * - `POST /api/system/storage/gc[?dryRun=true]` (Artifactory's path, admins): runs the GC now and
 *   answers `StorageGcResult`; a dry run only counts. 409 when a run is already going.
 * - `GET /ui/api/v1/storage/gc` (admins): `StorageGcStatus`, polled by the console while it runs.
 * - `POST /ui/api/v1/storage/gc[?dryRun=true]` (admins): the console's "Run now" / "Dry run".
 * - `POST /ui/api/v1/storage/consistency[?repair=true]` (admins): `StorageConsistencyReport`.
 */

/** What one GC run (or dry run) did. */
export const storageGcResultSchema = z.object({
  dryRun: z.boolean(),
  /** blobs (and bytes) with no holder, past the grace period, when the run started */
  reclaimableBlobs: z.number().int(),
  reclaimableBytes: z.number().int(),
  /** blobs and bytes deleted from the blob store (0 in a dry run) */
  reclaimedBlobs: z.number().int(),
  reclaimedBytes: z.number().int(),
  /** lapsed holds (abandoned writes, expired upload sessions) released first */
  expiredHolds: z.number().int(),
  startedAt: z.string(),
  durationMs: z.number().int(),
});
export type StorageGcResult = z.infer<typeof storageGcResultSchema>;

/** A run in progress: counts so far. */
export const storageGcProgressSchema = z.object({
  dryRun: z.boolean(),
  node: z.string(),
  startedAt: z.string(),
  reclaimableBlobs: z.number().int(),
  reclaimableBytes: z.number().int(),
  reclaimedBlobs: z.number().int(),
  reclaimedBytes: z.number().int(),
});
export type StorageGcProgress = z.infer<typeof storageGcProgressSchema>;

/** `GET /ui/api/v1/storage/gc` */
export const storageGcStatusSchema = z.object({
  /** a run is going (on any node) */
  running: z.boolean(),
  progress: storageGcProgressSchema.nullable(),
  /** the newest finished run that deleted (not a dry run); null before the first */
  lastRun: storageGcResultSchema.extend({ error: z.string().nullable() }).nullable(),
  /** the next scheduled run, null when unknown */
  nextRunAt: z.string().nullable(),
  intervalSecs: z.number().int(),
  graceSecs: z.number().int(),
  /** what a run now would reclaim (cheap count over the reference table) */
  reclaimableBlobs: z.number().int(),
  reclaimableBytes: z.number().int(),
  /** blobs with no holder still inside the grace period (they become reclaimable) */
  pendingBlobs: z.number().int(),
  pendingBytes: z.number().int(),
  /** blobs the database knows and their bytes (each counted once) */
  totalBlobs: z.number().int(),
  totalBytes: z.number().int(),
});
export type StorageGcStatus = z.infer<typeof storageGcStatusSchema>;

/** `POST /ui/api/v1/storage/consistency[?repair=true]` */
export const storageConsistencyReportSchema = z.object({
  repair: z.boolean(),
  /** blobs in the store with no row: adopted (as unreferenced, so the GC collects them after the grace) */
  orphanBlobs: z.number().int(),
  adoptedBlobs: z.number().int(),
  /** rows whose bytes are not in the store */
  missingBlobs: z.number().int(),
  /** `repoKey/path` of artifacts whose bytes are gone (first 1,000): not repairable here, reported */
  artifactsWithoutBytes: z.array(z.string()),
  /** rows removed because nothing holds them and their bytes are gone */
  removedRows: z.number().int(),
  /** counts that disagreed with a recount from the holder tables, and how many were set right */
  miscounted: z.number().int(),
  recounted: z.number().int(),
  /** holder rows naming content the reference table lacked (rows created with the right count) */
  unregistered: z.number().int(),
  durationMs: z.number().int(),
});
export type StorageConsistencyReport = z.infer<typeof storageConsistencyReportSchema>;
