import { sql } from 'drizzle-orm';
import {
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
import { repositoryIdReference } from '../../repositories/foreign-keys.ts';
import type { ComponentFinding, ExtractedArtifact } from '../model.ts';

/**
 * What one stored content (by sha256) contains and the vulnerabilities its components have (issue 16
 * "Scanning"): extracted once for every path and repository holding the same bytes, re-matched against
 * the advisory database (never re-read) when the database changes. `status` is the extraction's
 * outcome, one of spec 001 §3's strings: 'scanned', 'not supported' or 'scan failed'.
 */
export const scanContents = pgTable(
  'scan_contents',
  {
    sha256: text('sha256').primaryKey(),
    status: text('status').notNull(),
    error: text('error'),
    artifact: jsonb('artifact').$type<ExtractedArtifact | null>(),
    findings: jsonb('findings').$type<ComponentFinding[]>().notNull().default([]),
    /** components (root included): the re-match's batches are cut by it */
    componentCount: integer('component_count').notNull().default(0),
    /** the advisory database's generation the findings were matched against */
    generation: integer('generation').notNull().default(0),
    extractedAt: timestamp('extracted_at', { withTimezone: true }).notNull().defaultNow(),
    matchedAt: timestamp('matched_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('scan_contents_generation_idx').on(t.generation)],
);

/**
 * The scan of one stored file (a package version's lead file, an image's manifest, a generic archive):
 * 'in progress' from the event that queued it, then the outcome of its content's extraction.
 * Removed with the file (and with its repository).
 */
export const scanArtifacts = pgTable(
  'scan_artifacts',
  {
    repositoryId: uuid('repository_id').notNull().references(repositoryIdReference, { onDelete: 'cascade' }),
    path: text('path').notNull(),
    sha256: text('sha256').notNull(),
    /** spec 001 §3: scan failed, not supported, in progress, not scanned, scanned */
    status: text('status').notNull(),
    error: text('error'),
    requestedAt: timestamp('requested_at', { withTimezone: true }).notNull().defaultNow(),
    scannedAt: timestamp('scanned_at', { withTimezone: true }),
  },
  (t) => [
    primaryKey({ columns: [t.repositoryId, t.path] }),
    index('scan_artifacts_sha256_idx').on(t.sha256),
    index('scan_artifacts_status_idx').on(t.status),
  ],
);

/**
 * Repositories NOT indexed (Artifactory's `xrayIndex` off): every other one is, so a new repository
 * is indexed by default (issue 16).
 */
export const scanNotIndexed = pgTable('scan_not_indexed', {
  repositoryId: uuid('repository_id').primaryKey().references(repositoryIdReference, { onDelete: 'cascade' }),
  since: timestamp('since', { withTimezone: true }).notNull().defaultNow(),
});

/** Custom licences (spec 001 §7 custom licence POST/DELETE), admin-defined; names unique regardless of case. */
export const scanCustomLicenses = pgTable(
  'scan_custom_licenses',
  {
    name: text('name').primaryKey(),
    fullName: text('full_name'),
    url: text('url'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('scan_custom_licenses_lower_idx').on(sql`lower(${t.name})`)],
);

/** Generated SBOM documents, per (content, advisory generation, format): a new generation makes new ones. */
export const scanSboms = pgTable(
  'scan_sboms',
  {
    sha256: text('sha256').notNull(),
    generation: integer('generation').notNull(),
    format: text('format').notNull(),
    document: text('document').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.sha256, t.generation, t.format] })],
);
