import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { xid8 } from '../events/events.schema.ts';

/**
 * The cluster-wide schedule of recurring jobs (platform/jobs): one row per job name. A node runs a
 * job only after claiming it here — `next_run_at` has passed and no other node holds a live lease —
 * so several nodes sharing the database run each job once per interval, one node at a time.
 */
export const jobSchedules = pgTable('job_schedules', {
  name: text('name').primaryKey(),
  nextRunAt: timestamp('next_run_at', { withTimezone: true }).notNull(),
  /** While set and in the future, `lease_owner` is running the job; a crashed node's lease lapses. */
  leaseUntil: timestamp('lease_until', { withTimezone: true }),
  leaseOwner: text('lease_owner'),
  lastStartedAt: timestamp('last_started_at', { withTimezone: true }),
  lastFinishedAt: timestamp('last_finished_at', { withTimezone: true }),
  lastNode: text('last_node'),
  /** What the last successful run reported (a job's summary, e.g. a scrub's counts). */
  lastResult: jsonb('last_result'),
  lastError: text('last_error'),
  runs: integer('runs').notNull().default(0),
  /** Failures in a row; reset by a success. */
  failures: integer('failures').notNull().default(0),
});

/**
 * Queued jobs (platform/jobs `queue`/`enqueue`): one row per piece of work. Workers on every node
 * claim due rows with `FOR UPDATE SKIP LOCKED`, so they share a queue and none runs a job twice at
 * once; a claim holds a lease (`locked_until`, renewed while the handler runs) that lapses when its
 * node dies, and another node takes the job over. A failure is retried with exponential back-off;
 * after the queue's last attempt the row stays `dead` with its error until an admin retries it.
 * `done` rows are pruned after a day (job `jobs.prune`).
 */
export const jobQueue = pgTable(
  'job_queue',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    queue: text('queue').notNull(),
    payload: jsonb('payload').notNull(),
    status: text('status', { enum: ['pending', 'running', 'done', 'dead'] })
      .notNull()
      .default('pending'),
    /** Runs started so far (a claim counts one, a run whose node died included). */
    attempts: integer('attempts').notNull().default(0),
    /** Not before: the enqueuer's `runAt`, or the back-off after a failure. */
    runAt: timestamp('run_at', { withTimezone: true }).notNull().defaultNow(),
    /** A fresh pending job with the same key in the same queue makes a second enqueue a no-op. */
    dedupeKey: text('dedupe_key'),
    lockedBy: text('locked_by'),
    lockedUntil: timestamp('locked_until', { withTimezone: true }),
    lastError: text('last_error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
  },
  (t) => [
    index('job_queue_due_idx').on(t.queue, t.runAt).where(sql`status in ('pending', 'running')`),
    uniqueIndex('job_queue_dedupe_idx')
      .on(t.queue, t.dedupeKey)
      .where(sql`status = 'pending' and attempts = 0 and dedupe_key is not null`),
    index('job_queue_finished_idx').on(t.finishedAt).where(sql`status = 'done'`),
  ],
);

/**
 * Outbox subscribers (platform/jobs `subscribe`): each one's position in the outbox, as the
 * (xid, id) of the last event it passed. One node at a time delivers to a subscriber, under a lease
 * (`locked_until`). A handler that fails leaves the position where it was, and the next try waits
 * until `retry_at`.
 */
export const outboxSubscriptions = pgTable('outbox_subscriptions', {
  name: text('name').primaryKey(),
  cursorXid: xid8('cursor_xid').notNull().default(sql`'0'::xid8`),
  cursorId: bigint('cursor_id', { mode: 'number' }).notNull().default(0),
  /**
   * For a subscriber that started "now": the snapshot (`pg_snapshot` as text) it started at. Events
   * visible in it were there before the subscriber and are skipped; cleared once passed.
   */
  startSnapshot: text('start_snapshot'),
  lockedBy: text('locked_by'),
  lockedUntil: timestamp('locked_until', { withTimezone: true }),
  retryAt: timestamp('retry_at', { withTimezone: true }),
  /** Failed deliveries in a row; reset by a success. */
  failures: integer('failures').notNull().default(0),
  lastError: text('last_error'),
  delivered: bigint('delivered', { mode: 'number' }).notNull().default(0),
  lastDeliveredAt: timestamp('last_delivered_at', { withTimezone: true }),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});
