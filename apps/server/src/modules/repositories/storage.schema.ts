import { bigint, date, index, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { repositories } from './repositories.schema.ts';

/**
 * A repository's storage quota (issue 21): the bytes its artifacts may take in all (the sum of their
 * sizes, counted from `artifacts`). No row: no quota. Warned at 80 %, refused at 100 %.
 */
export const repositoryQuotas = pgTable('repository_quotas', {
  repositoryId: uuid('repository_id')
    .primaryKey()
    .references(() => repositories.id, { onDelete: 'cascade' }),
  quotaBytes: bigint('quota_bytes', { mode: 'number' }).notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * One row a day per repository: its files and bytes that day (issue 21, the storage page's charts of
 * usage over time and growth). Keyed by the repository's key so a deleted repository's history stays.
 */
export const storageUsageSnapshots = pgTable(
  'storage_usage_snapshots',
  {
    day: date('day', { mode: 'string' }).notNull(),
    repoKey: text('repo_key').notNull(),
    packageType: text('package_type').notNull(),
    projectKey: text('project_key'),
    filesCount: bigint('files_count', { mode: 'number' }).notNull(),
    usedBytes: bigint('used_bytes', { mode: 'number' }).notNull(),
    takenAt: timestamp('taken_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.day, t.repoKey] }), index('storage_usage_snapshots_day_idx').on(t.day)],
);

/**
 * Each repository's running total of files and bytes (the sum of its artifacts' sizes), kept exact by
 * statement triggers on `artifacts` in the same transaction as every change (migration
 * 0030_storage_repository_usage), so a quota check reads one row instead of summing 100,000. No foreign
 * key: a repository's row goes with it (a trigger on `repositories`).
 */
export const repositoryUsage = pgTable('repository_usage', {
  repositoryId: uuid('repository_id').primaryKey(),
  filesCount: bigint('files_count', { mode: 'number' }).notNull().default(0),
  usedBytes: bigint('used_bytes', { mode: 'number' }).notNull().default(0),
});
