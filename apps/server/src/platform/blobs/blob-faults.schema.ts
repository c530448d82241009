import { index, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * Blobs found damaged (issue 12 §9, §11): one row per blob, marked for repair. A download that fails
 * verification or the scrub job records it; it stays open until the blob verifies again (the same
 * bytes deployed again, then the next scrub) and is then marked repaired.
 */
export const blobFaults = pgTable(
  'blob_faults',
  {
    sha256: text('sha256').primaryKey(),
    /** `corrupt` (bytes hash differently or the size differs), `missing`, `empty` (0 bytes stored). */
    kind: text('kind').notNull(),
    /** What was found, e.g. `read 5 of 5 bytes hashing to 3f2a…`. */
    detail: text('detail').notNull(),
    /** An artifact that has this content, `repository/path`, as seen when the fault was found. */
    artifact: text('artifact'),
    /** What found it last: `download` or `scrub`. */
    source: text('source').notNull(),
    firstSeenAt: timestamp('first_seen_at', { withTimezone: true }).notNull().defaultNow(),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }).notNull().defaultNow(),
    occurrences: integer('occurrences').notNull().default(1),
    /** Set once the blob verifies again; a repaired blob found damaged again is reopened. */
    repairedAt: timestamp('repaired_at', { withTimezone: true }),
  },
  (t) => [index('blob_faults_open_idx').on(t.repairedAt, t.lastSeenAt)],
);
