import { pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * The master key check (issue 18): one row, `id = 'canary'`, holding a known text sealed under the
 * master key the first time the database started. Every start opens it: another key fails start-up
 * with a clear message instead of failing on each secret later. Re-wrapped by key rotation like every
 * other sealed value.
 */
export const masterKeyCheck = pgTable('master_key_check', {
  id: text('id').primaryKey(),
  sealed: text('sealed').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});
