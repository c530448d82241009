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
import { repositories } from './repositories.schema.ts';

/**
 * The trash can (issue 21): a file deleted from a local repository whose trash is on leaves `artifacts`
 * for this table in the same transaction, with every column it had, who deleted it and until when it is
 * kept. It holds its blob like an artifact does (the blob's reference count includes these rows), so a
 * restore gives the identical bytes; an entry past `expires_at` is deleted by the job `trash.expire`, and
 * its blob then goes to the blob GC. One entry per original path: deleting a path again replaces it.
 * A repository deleted as a whole takes its entries with it (cascade): it does not go to the trash,
 * as in Artifactory.
 */
export const trashItems = pgTable(
  'trash_items',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    repositoryId: uuid('repository_id')
      .notNull()
      .references(() => repositories.id, { onDelete: 'cascade' }),
    /** The file's path in its repository when it was deleted. */
    path: text('path').notNull(),
    size: bigint('size', { mode: 'number' }).notNull(),
    sha256: text('sha256').notNull(),
    sha1: text('sha1').notNull(),
    md5: text('md5').notNull(),
    mimeType: text('mime_type'),
    properties: jsonb('properties').notNull().default({}),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    createdBy: text('created_by').notNull(),
    modifiedAt: timestamp('modified_at', { withTimezone: true }).notNull(),
    modifiedBy: text('modified_by').notNull(),
    deletedAt: timestamp('deleted_at', { withTimezone: true }).notNull(),
    deletedBy: text('deleted_by').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    uniqueIndex('trash_items_repo_path_idx').on(t.repositoryId, t.path),
    index('trash_items_path_prefix_idx').on(t.repositoryId, t.path.op('text_pattern_ops')),
    index('trash_items_expires_idx').on(t.expiresAt),
    index('trash_items_sha256_idx').on(t.sha256),
    index('trash_items_name_idx').on(sql`lower(regexp_replace(${t.path}, '^.*/', ''))`),
  ],
);
