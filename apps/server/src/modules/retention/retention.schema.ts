import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { repositoryIdReference } from '../repositories/foreign-keys.ts';

/**
 * Cleanup and retention policies (issue 21): which repositories (keys, or a project's), the rules
 * (`RetentionRules` of the contracts), the action (delete through the trash, or archive), the schedule
 * and the last run's outcome.
 */
export const retentionPolicies = pgTable(
  'retention_policies',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    enabled: boolean('enabled').notNull().default(true),
    repositories: jsonb('repositories').$type<string[]>().notNull().default([]),
    projectKey: text('project_key'),
    rules: jsonb('rules').notNull(),
    action: text('action').notNull().default('delete'),
    intervalHours: integer('interval_hours'),
    nextRunAt: timestamp('next_run_at', { withTimezone: true }),
    lastRunAt: timestamp('last_run_at', { withTimezone: true }),
    lastResult: jsonb('last_result'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    modifiedAt: timestamp('modified_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('retention_policies_name_idx').on(sql`lower(${t.name})`),
    index('retention_policies_next_run_idx').on(t.nextRunAt),
  ],
);

/**
 * Download statistics per stored file (Artifactory's `?stats`): counted in memory on the serving path
 * and added here in batches by each node (additive, so several nodes never overwrite one another).
 * Rows go with their file (the `removed` artifact extension) and their repository (cascade).
 */
export const artifactDownloadStats = pgTable(
  'artifact_download_stats',
  {
    repositoryId: uuid('repository_id').notNull().references(repositoryIdReference, { onDelete: 'cascade' }),
    path: text('path').notNull(),
    downloadCount: bigint('download_count', { mode: 'number' }).notNull().default(0),
    lastDownloaded: timestamp('last_downloaded', { withTimezone: true }).notNull(),
    lastDownloadedBy: text('last_downloaded_by'),
  },
  (t) => [primaryKey({ columns: [t.repositoryId, t.path] })],
);

/**
 * Archived files (cold storage): the artifact's columns, moved here from `artifacts` when a policy
 * archives its version, their bytes copied to the archive store (`GRANARY_ARCHIVE_STORE`). Not a holder
 * of the main store's blobs (the bytes are in the archive store); found by the Archive search, and a
 * restore moves them back. One row per original path.
 */
export const archivedArtifacts = pgTable(
  'archived_artifacts',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    repositoryId: uuid('repository_id').notNull().references(repositoryIdReference, { onDelete: 'cascade' }),
    repoKey: text('repo_key').notNull(),
    path: text('path').notNull(),
    size: bigint('size', { mode: 'number' }).notNull(),
    sha256: text('sha256').notNull(),
    sha1: text('sha1').notNull(),
    md5: text('md5').notNull(),
    mimeType: text('mime_type'),
    properties: jsonb('properties').notNull().default({}),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    createdBy: text('created_by').notNull(),
    archivedAt: timestamp('archived_at', { withTimezone: true }).notNull().defaultNow(),
    archivedBy: text('archived_by').notNull(),
    policy: text('policy'),
  },
  (t) => [
    uniqueIndex('archived_artifacts_repo_path_idx').on(t.repositoryId, t.path),
    index('archived_artifacts_sha256_idx').on(t.sha256),
    index('archived_artifacts_archived_at_idx').on(t.archivedAt),
  ],
);
