import { bigint, index, integer, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';

/**
 * Every blob the database knows, with how many rows hold it (issue 21 "Blob garbage collection").
 * `ref_count` is kept by the `granary_blob_ref()` trigger on each holder table (see
 * platform/blobs/references.ts), in the same transaction as the change; `zero_since` is when the count
 * last fell to 0 (null while held). The GC deletes rows (and their bytes) whose count is 0 since
 * longer than the grace period.
 */
export const blobs = pgTable(
  'blobs',
  {
    sha256: text('sha256').primaryKey(),
    size: bigint('size', { mode: 'number' }).notNull().default(0),
    refCount: integer('ref_count').notNull().default(0),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    zeroSince: timestamp('zero_since', { withTimezone: true }),
  },
  (t) => [index('blobs_gc_order_idx').on(t.zeroSince, t.sha256)],
);

/**
 * Temporary claims on a blob that are not a file anywhere yet: a writer between `put()` and the row
 * that will reference the bytes, an OCI upload session's first chunk. A hold counts like any holder
 * (trigger on `sha256`); it is released by its owner, or lapses at `expires_at` (the GC deletes it).
 */
export const blobHolds = pgTable(
  'blob_holds',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    sha256: text('sha256').notNull(),
    size: bigint('size', { mode: 'number' }).notNull().default(0),
    /** what holds it, e.g. `put`, `oci-upload` */
    reason: text('reason').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (t) => [index('blob_holds_expires_idx').on(t.expiresAt), index('blob_holds_sha256_idx').on(t.sha256)],
);

/** One row per GC run (and dry run): its progress while it runs, what it reclaimed once done. */
export const blobGcRuns = pgTable(
  'blob_gc_runs',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    node: text('node').notNull(),
    /** `schedule` or `manual` */
    trigger: text('trigger').notNull(),
    dryRun: integer('dry_run').notNull().default(0),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    /** blobs (and bytes) reclaimable when the run started */
    candidates: integer('candidates').notNull().default(0),
    candidateBytes: bigint('candidate_bytes', { mode: 'number' }).notNull().default(0),
    blobsRemoved: integer('blobs_removed').notNull().default(0),
    bytesRemoved: bigint('bytes_removed', { mode: 'number' }).notNull().default(0),
    holdsExpired: integer('holds_expired').notNull().default(0),
    error: text('error'),
  },
  (t) => [index('blob_gc_runs_started_idx').on(t.startedAt)],
);
