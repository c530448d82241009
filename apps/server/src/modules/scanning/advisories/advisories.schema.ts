import {
  bigint,
  bigserial,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  real,
  text,
  timestamp,
} from 'drizzle-orm/pg-core';

/**
 * The advisory database (issue 16): OSV records as imported (source `osv`) and the admins' custom
 * issues (source `custom`, written as OSV records). `record` is the whole OSV JSON; the columns beside
 * it are what lists and matching read without parsing it.
 */
export const scanningAdvisories = pgTable(
  'scanning_advisories',
  {
    id: text('id').primaryKey(),
    source: text('source').$type<'osv' | 'custom'>().notNull(),
    modified: timestamp('modified', { withTimezone: true, mode: 'string' }).notNull(),
    published: timestamp('published', { withTimezone: true, mode: 'string' }),
    /** a withdrawn record is kept, and no longer matches */
    withdrawn: timestamp('withdrawn', { withTimezone: true, mode: 'string' }),
    summary: text('summary').notNull().default(''),
    aliases: jsonb('aliases').$type<string[]>().notNull().default([]),
    severity: text('severity').notNull(),
    cvssScore: real('cvss_score'),
    cvssVector: text('cvss_vector'),
    /** base ecosystems the record affects (`Debian`, not `Debian:12`), for the per-ecosystem counts */
    ecosystems: jsonb('ecosystems').$type<string[]>().notNull().default([]),
    record: jsonb('record').$type<Record<string, unknown>>().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('scanning_advisories_source_idx').on(t.source)],
);

/** What each advisory affects, by base ecosystem and normalised name: the matcher's lookup. */
export const scanningAdvisoryPackages = pgTable(
  'scanning_advisory_packages',
  {
    ecosystem: text('ecosystem').notNull(),
    name: text('name').notNull(),
    advisoryId: text('advisory_id')
      .notNull()
      .references(() => scanningAdvisories.id, { onDelete: 'cascade' }),
  },
  (t) => [
    primaryKey({ columns: [t.ecosystem, t.name, t.advisoryId] }),
    index('scanning_advisory_packages_advisory_idx').on(t.advisoryId),
  ],
);

/** Every import, newest last: where from, who, and what it changed. */
export const scanningAdvisoryImports = pgTable('scanning_advisory_imports', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
  source: text('source').notNull(),
  by: text('by'),
  imported: integer('imported').notNull(),
  updated: integer('updated').notNull(),
  unchanged: integer('unchanged').notNull(),
  skipped: integer('skipped').notNull(),
  ecosystems: jsonb('ecosystems').$type<Record<string, number>>().notNull().default({}),
});

/** One row: the generation, bumped by every import or custom-issue change that changed something. */
export const scanningAdvisoryState = pgTable('scanning_advisory_state', {
  id: integer('id').primaryKey(),
  generation: bigint('generation', { mode: 'number' }).notNull().default(0),
});
