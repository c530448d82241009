import { bigint, index, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * Support bundles (issue 15, spec 001 §3): one row per bundle asked for. The zip itself is a file on
 * the node that generated it (`$GRANARY_HOME/support/{id}.zip`), named by `node_id`. Status goes
 * `in progress` → `success` | `failure`; a bundle still `in progress` when its node restarts is marked
 * failure by that node at start.
 */
export const supportBundles = pgTable(
  'support_bundles',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    /** What was asked for: configuration, system, logs{include, start_date, end_date}, thread_dump{count, interval}. */
    parameters: jsonb('parameters').notNull(),
    /** `in progress`, `success` or `failure`. */
    status: text('status').notNull(),
    /** The node generating (then holding) the zip; null while the job waits to be claimed. */
    nodeId: text('node_id'),
    createdBy: text('created_by').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    size: bigint('size', { mode: 'number' }),
    /** Why a bundle failed (no secrets: the generator's own message). */
    error: text('error'),
  },
  (t) => [index('support_bundles_status_node_idx').on(t.status, t.nodeId)],
);
