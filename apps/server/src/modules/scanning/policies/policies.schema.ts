import { sql } from 'drizzle-orm';
import { boolean, index, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { repositoryIdReference } from '../../repositories/foreign-keys.ts';

/**
 * Xray's policies (issue 16 "Policies and watches"): one row per name, the policy's JSON as given
 * (`{name, type, description, rules[{name, priority, criteria, actions}]}`), so Xray's Terraform
 * provider reads back what it wrote. Names are unique regardless of case.
 */
export const scanPolicies = pgTable(
  'scan_policies',
  {
    name: text('name').primaryKey(),
    type: text('type').notNull(),
    body: jsonb('body').$type<Record<string, unknown>>().notNull(),
    author: text('author'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    modifiedAt: timestamp('modified_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('scan_policies_name_lower_idx').on(sql`lower(${t.name})`)],
);

/**
 * Xray's watches: `{general_data{name, active}, project_resources{resources[]}, assigned_policies[]}`
 * as given. Repositories are named by key (`repository`) or all of them (`all-repos`); builds and
 * release bundles are kept for when they exist.
 */
export const scanWatches = pgTable(
  'scan_watches',
  {
    name: text('name').primaryKey(),
    active: boolean('active').notNull().default(true),
    body: jsonb('body').$type<Record<string, unknown>>().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    modifiedAt: timestamp('modified_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('scan_watches_name_lower_idx').on(sql`lower(${t.name})`)],
);

/**
 * A violation: a finding of one scanned artifact (a vulnerability, or a licence) that one rule of a
 * policy of a watch matched. Replaced when the artifact is evaluated again (a rescan, a re-match):
 * a violation still found keeps its id and `created` (an "ignore once" rule names that id).
 * `scope` is what a download is checked against: the scanned file's path, or its folder for the
 * package types whose version is a folder (a jar and its pom; an image tag's files).
 */
export const scanViolations = pgTable(
  'scan_violations',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    repositoryId: uuid('repository_id').notNull().references(repositoryIdReference, { onDelete: 'cascade' }),
    repoKey: text('repo_key').notNull(),
    packageType: text('package_type').notNull(),
    path: text('path').notNull(),
    scope: text('scope').notNull(),
    sha256: text('sha256').notNull(),
    watch: text('watch').notNull(),
    policy: text('policy').notNull(),
    rule: text('rule').notNull(),
    /** security | license */
    type: text('type').notNull(),
    severity: text('severity').notNull(),
    /** the advisory id, or the licence */
    issueId: text('issue_id').notNull(),
    cves: jsonb('cves').$type<string[]>().notNull().default([]),
    summary: text('summary').notNull().default(''),
    componentPurl: text('component_purl').notNull(),
    componentName: text('component_name').notNull(),
    componentVersion: text('component_version').notNull(),
    /** the rule's `block_download.active` */
    blocking: boolean('blocking').notNull().default(false),
    /** the rule's `fail_build` (recorded for when builds land) */
    failBuild: boolean('fail_build').notNull().default(false),
    /** active while found; the artifact's next evaluation deletes what it no longer finds */
    state: text('state').notNull().default('active'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('scan_violations_artifact_idx').on(t.repositoryId, t.path),
    index('scan_violations_scope_idx').on(t.repositoryId, t.scope),
    index('scan_violations_issue_idx').on(t.issueId),
  ],
);

/**
 * Xray's ignore rules: a justification (`notes`) and an expiry are required; the filters say what is
 * ignored (vulnerabilities / CVEs, licences, components, repositories, watches, policies — all given
 * must match — or one violation: "ignore once"). A rule past its expiry no longer applies: every
 * reader compares `expires_at` with the server's clock, no job needed.
 */
export const scanIgnoreRules = pgTable(
  'scan_ignore_rules',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    notes: text('notes').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    filters: jsonb('filters').$type<Record<string, unknown>>().notNull(),
    author: text('author'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('scan_ignore_rules_expires_idx').on(t.expiresAt)],
);
