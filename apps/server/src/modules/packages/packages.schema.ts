import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { repositoryIdReference } from '../repositories/foreign-keys.ts';

/** Vulnerability counts by severity, filled by the scanning issue; zero counts are not stored. */
export type SeverityCounts = Partial<
  Record<'critical' | 'high' | 'medium' | 'low' | 'info' | 'unknown' | 'skipped', number>
>;

/**
 * The packages index: what formats extract from stored files (name, version, metadata), per
 * repository. Written when an artifact is stored (deploy or remote cache), removed with its lead
 * file. A package as users see it is (type, name) over every repository they can read: the rows of
 * one name in several repositories are merged when queried. The aggregates here (versions, tags,
 * licences, downloads) are kept per row so the list never reads the versions.
 */
export const packages = pgTable(
  'packages',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    repositoryId: uuid('repository_id').notNull().references(repositoryIdReference, { onDelete: 'cascade' }),
    packageType: text('package_type').notNull(),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    latestVersion: text('latest_version'),
    versionsCount: integer('versions_count').notNull().default(0),
    tags: jsonb('tags').$type<string[]>().notNull().default([]),
    licenses: jsonb('licenses').$type<string[]>().notNull().default([]),
    downloads: bigint('downloads', { mode: 'number' }).notNull().default(0),
    vulnerabilities: jsonb('vulnerabilities').$type<SeverityCounts>().notNull().default({}),
    /** operational risk level, filled by the scanning issue */
    riskLevel: text('risk_level'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    modifiedAt: timestamp('modified_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('packages_repo_name_idx').on(t.repositoryId, t.name),
    // The list's order (name, case-insensitive, byte-wise) and name prefix search (LIKE 'abc%'
    // on a "C" collation uses the btree).
    index('packages_name_sort_idx').on(
      sql`lower(${t.name}) collate "C"`,
      sql`${t.name} collate "C"`,
      sql`${t.packageType} collate "C"`,
    ),
    // Name search anywhere in the name (LIKE '%abc%'): trigrams (pg_trgm; the embedded database loads
    // PGlite's pg_trgm extension). Why, measured: package-filters.ts, `NameRank`.
    index('packages_name_trgm_idx').using('gin', sql`lower(${t.name}) gin_trgm_ops`),
    index('packages_modified_idx').on(t.modifiedAt),
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
    /** a semantic-version release (valid semver, no pre-release part) */
    release: boolean('release').notNull().default(false),
    vulnerabilities: jsonb('vulnerabilities').$type<SeverityCounts>().notNull().default({}),
    cves: jsonb('cves').$type<string[]>().notNull().default([]),
    riskLevel: text('risk_level'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    modifiedAt: timestamp('modified_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('package_versions_pkg_version_idx').on(t.packageId, t.version),
    index('package_versions_lead_idx').on(t.leadPath),
    index('package_versions_sha256_idx').on(t.sha256),
  ],
);

/**
 * Entries of zip archives (jar, war, ear, aar, zip) as stored: their paths, for class and file
 * search. Bounded per archive; removed with the archive (by the same unindexing as versions).
 */
export const archiveEntries = pgTable(
  'archive_entries',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    repositoryId: uuid('repository_id').notNull().references(repositoryIdReference, { onDelete: 'cascade' }),
    /** the archive's path in the repository */
    path: text('path').notNull(),
    /** the entry's path inside the archive */
    entry: text('entry').notNull(),
    /** the entry's file name, e.g. `Foo.class` */
    name: text('name').notNull(),
  },
  (t) => [
    index('archive_entries_repo_path_idx').on(t.repositoryId, t.path),
    index('archive_entries_name_idx').on(sql`lower(${t.name}) collate "C"`),
  ],
);
