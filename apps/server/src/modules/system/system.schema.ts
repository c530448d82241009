import { boolean, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * System settings by key: `general` (server name, footer, date format, help links), `logo`
 * (the custom logo's blob and type), `license` (the installed key, or its removal), `onboarding`.
 * The `logo` entry references a blob: a blob collector must treat it as in use.
 */
export const systemSettings = pgTable('system_settings', {
  key: text('key').primaryKey(),
  value: jsonb('value').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/** Feature flags an admin has set; a flag without a row has its default (contracts FEATURE_FLAG_DEFAULTS). */
export const featureFlags = pgTable('feature_flags', {
  name: text('name').primaryKey(),
  enabled: boolean('enabled').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * Every node sharing this database; each beats every 5 s and is Offline after 15 s of silence. Each
 * node writes the health of its own parts (`services`: contracts MicroService[]) with its heartbeat,
 * so any node shows every node's services.
 */
export const systemNodes = pgTable('system_nodes', {
  id: text('id').primaryKey(),
  hostName: text('host_name').notNull().default(''),
  /** The internal URL other nodes reach this one at (GRANARY_NODE_URL). */
  url: text('url').notNull(),
  version: text('version').notNull(),
  revision: text('revision').notNull(),
  startedAt: timestamp('started_at', { withTimezone: true }).notNull(),
  lastHeartbeatAt: timestamp('last_heartbeat_at', { withTimezone: true }).notNull(),
  services: jsonb('services').notNull().default([]),
});
