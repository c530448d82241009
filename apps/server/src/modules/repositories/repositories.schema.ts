import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  index,
  jsonb,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';

/**
 * Repository configuration. Keys are unique case-insensitively. Settings of one class (remote,
 * virtual, maven) live in `settings`; the remote password in its own column, never returned.
 */
export const repositories = pgTable(
  'repositories',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    key: text('key').notNull(),
    rclass: text('rclass').notNull(),
    packageType: text('package_type').notNull(),
    description: text('description').notNull().default(''),
    notes: text('notes').notNull().default(''),
    includesPattern: text('includes_pattern').notNull().default('**/*'),
    excludesPattern: text('excludes_pattern').notNull().default(''),
    projectKey: text('project_key'),
    /** remote: url, username, proxy, offline, periods, storeArtifactsLocally; virtual: repositories, defaultDeploymentRepo; maven: handleReleases, handleSnapshots. */
    settings: jsonb('settings').notNull().default({}),
    remotePassword: text('remote_password'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('repositories_key_lower_idx').on(sql`lower(${t.key})`)],
);

/**
 * Artifacts: one row per file, inserted only once its blob is stored and verified. Folders are
 * implied by paths. A remote repository's cached files are artifacts of that repository (shown as
 * `{key}-cache`).
 */
export const artifacts = pgTable(
  'artifacts',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    repositoryId: uuid('repository_id')
      .notNull()
      .references(() => repositories.id, { onDelete: 'cascade' }),
    /** `a/b/c.txt`: no leading or trailing slash (RepoPath.path). */
    path: text('path').notNull(),
    size: bigint('size', { mode: 'number' }).notNull(),
    sha256: text('sha256').notNull(),
    sha1: text('sha1').notNull(),
    md5: text('md5').notNull(),
    /** Content type given at deploy or derived from the name. */
    mimeType: text('mime_type'),
    /** `{name: [values]}` */
    properties: jsonb('properties').notNull().default({}),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    createdBy: text('created_by').notNull(),
    modifiedAt: timestamp('modified_at', { withTimezone: true }).notNull().defaultNow(),
    modifiedBy: text('modified_by').notNull(),
    /** remote cache: when the file was last fetched from the upstream */
    fetchedAt: timestamp('fetched_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('artifacts_repo_path_idx').on(t.repositoryId, t.path),
    index('artifacts_path_prefix_idx').on(t.repositoryId, t.path.op('text_pattern_ops')),
    index('artifacts_sha256_idx').on(t.sha256),
    index('artifacts_sha1_idx').on(t.sha1),
  ],
);
