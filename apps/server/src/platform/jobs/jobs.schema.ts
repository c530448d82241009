import { integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

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
