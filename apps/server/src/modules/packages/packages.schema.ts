import { sql } from 'drizzle-orm';
import { bigint, index, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { repositories } from '../repositories/repositories.schema.ts';

/**
 * The packages index: what formats extract from stored files (name, version, metadata), per
 * repository. Written when an artifact is stored (deploy or remote cache), removed with its lead
 * file. The packages screen and package queries read it.
 */
export const packages = pgTable(
  'packages',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    repositoryId: uuid('repository_id')
      .notNull()
      .references(() => repositories.id, { onDelete: 'cascade' }),
    packageType: text('package_type').notNull(),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    latestVersion: text('latest_version'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    modifiedAt: timestamp('modified_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('packages_repo_name_idx').on(t.repositoryId, t.name),
    index('packages_name_idx').on(sql`lower(${t.name})`),
  ],
);

export const packageVersions = pgTable(
  'package_versions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    packageId: uuid('package_id')
      .notNull()
      .references(() => packages.id, { onDelete: 'cascade' }),
    version: text('version').notNull(),
    description: text('description').notNull().default(''),
    licenses: jsonb('licenses').$type<string[]>().notNull().default([]),
    keywords: jsonb('keywords').$type<string[]>().notNull().default([]),
    dependencies: jsonb('dependencies')
      .$type<{ name: string; range?: string; scope?: string }[]>()
      .notNull()
      .default([]),
    readme: text('readme'),
    /** the file that stands for the version (tarball, wheel, jar, manifest…) */
    leadPath: text('lead_path').notNull(),
    size: bigint('size', { mode: 'number' }).notNull().default(0),
    sha256: text('sha256'),
    downloads: bigint('downloads', { mode: 'number' }).notNull().default(0),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    modifiedAt: timestamp('modified_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('package_versions_pkg_version_idx').on(t.packageId, t.version),
    index('package_versions_lead_idx').on(t.leadPath),
  ],
);
