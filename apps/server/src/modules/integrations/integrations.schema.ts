import { integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

/**
 * Git integrations (issue 18, spec 001 §3 "Git integration form", "Integration"): one row per key.
 * The vendor's token is sealed by platform/secrets (`token_sealed`); only its last four characters
 * are kept in the clear, for the console. Names are unique per vendor.
 */
export const gitIntegrations = pgTable(
  'git_integrations',
  {
    key: text('key').primaryKey(),
    name: text('name').notNull(),
    /** spec 001 §3 vendor id: GitHub 1, GitLab 2, Bitbucket Cloud 3, Bitbucket Server 4. */
    vendor: integer('vendor').notNull(),
    url: text('url').notNull(),
    userName: text('user_name').notNull(),
    tokenSealed: text('token_sealed').notNull(),
    tokenLast4: text('token_last4').notNull(),
    products: jsonb('products').$type<string[]>().notNull().default([]),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('git_integrations_vendor_name_idx').on(t.vendor, t.name)],
);

/**
 * The repositories of an integration chosen for scanning (the xray product's "Manage Repositories"),
 * with the latest scan of each: the manifests read through the vendor's API and what they matched.
 */
export const gitIntegrationRepositories = pgTable(
  'git_integration_repositories',
  {
    integrationKey: text('integration_key')
      .notNull()
      .references(() => gitIntegrations.key, { onDelete: 'cascade' }),
    fullName: text('full_name').notNull(),
    defaultBranch: text('default_branch'),
    /** queued | running | done | failed */
    status: text('status').notNull().default('queued'),
    scannedAt: timestamp('scanned_at', { withTimezone: true, mode: 'date' }),
    error: text('error'),
    /** `{ manifests, components, findings, licenses }` of the latest scan (contracts repositoryScanSchema). */
    result: jsonb('result').$type<Record<string, unknown>>(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.integrationKey, t.fullName] })],
);
