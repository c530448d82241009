import { sql } from 'drizzle-orm';
import { boolean, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

/**
 * Outbound forward proxies (issue 15), editable at run time. `password` is sealed by
 * platform/secrets (never stored in the clear). At most one row has `is_default` (a partial unique
 * index holds it across nodes). Keys are unique regardless of case.
 */
export const proxies = pgTable(
  'proxies',
  {
    key: text('key').primaryKey(),
    host: text('host').notNull(),
    port: integer('port').notNull(),
    username: text('username').notNull().default(''),
    /** Sealed; null when none. */
    password: text('password'),
    ntHost: text('nt_host').notNull().default(''),
    domain: text('domain').notNull().default(''),
    isDefault: boolean('is_default').notNull().default(false),
    redirectToHosts: jsonb('redirect_to_hosts').$type<string[]>().notNull().default([]),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('proxies_key_lower_idx').on(sql`lower(${t.key})`),
    uniqueIndex('proxies_one_default_idx').on(t.isDefault).where(sql`${t.isDefault}`),
  ],
);

/** The reverse proxy (web server) settings: one row, key `default` (spec 001 §3 "Other"). */
export const reverseProxySettings = pgTable('reverse_proxy_settings', {
  key: text('key').primaryKey(),
  value: jsonb('value').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});
