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
  uuid,
} from 'drizzle-orm/pg-core';

/**
 * Build runs (issue 19): one row per published build-info document (name + number + started). The
 * document itself is a file of the hidden `buildinfo` repository (`{name}/{number}-{startedMs}.json`,
 * byte for byte as sent, `documentPath`); this row indexes it. `statuses` are the promotions,
 * oldest first, as Artifactory lists them in the build-info's `statuses`.
 */
export const buildRuns = pgTable(
  'build_runs',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    name: text('name').notNull(),
    number: text('number').notNull(),
    /** The build-info's `started`, as sent. */
    started: text('started').notNull(),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull(),
    /** Path of the document in the build-info repository. */
    documentPath: text('document_path').notNull(),
    agent: text('agent'),
    url: text('url'),
    durationMillis: bigint('duration_millis', { mode: 'number' }),
    /** The latest promotion status, or null. */
    status: text('status'),
    statuses: jsonb('statuses').$type<Record<string, unknown>[]>().notNull().default([]),
    modules: integer('modules').notNull().default(0),
    artifacts: integer('artifacts').notNull().default(0),
    dependencies: integer('dependencies').notNull().default(0),
    createdBy: text('created_by').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('build_runs_name_number_started_idx').on(t.name, t.number, t.started),
    index('build_runs_name_started_idx').on(t.name, t.startedAt),
  ],
);

/**
 * A run's artifacts (`role` produced) and dependencies (`role` used), one row each, with the
 * checksums they link to stored files by (sha256, else sha1, else md5; lower case).
 */
export const buildRunItems = pgTable(
  'build_run_items',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    runId: uuid('run_id')
      .notNull()
      .references(() => buildRuns.id, { onDelete: 'cascade' }),
    role: text('role').$type<'produced' | 'used'>().notNull(),
    moduleId: text('module_id').notNull(),
    /** artifact: its name; dependency: its id */
    name: text('name').notNull(),
    type: text('type'),
    path: text('path'),
    sha256: text('sha256'),
    sha1: text('sha1'),
    md5: text('md5'),
    scopes: jsonb('scopes').$type<string[]>().notNull().default([]),
    requestedBy: jsonb('requested_by').$type<string[][]>().notNull().default([]),
  },
  (t) => [
    index('build_run_items_run_idx').on(t.runId),
    index('build_run_items_sha256_idx').on(t.sha256),
    index('build_run_items_sha1_idx').on(t.sha1),
    index('build_run_items_md5_idx').on(t.md5),
  ],
);
