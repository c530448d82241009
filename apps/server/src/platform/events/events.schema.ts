import { sql } from 'drizzle-orm';
import { bigserial, index, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * The outbox (DESIGN.md "Events and jobs"): a domain event is written in the same transaction as
 * the change it describes, so an event exists exactly when its change does. Subscribers (webhooks,
 * scanning) take rows with `FOR UPDATE SKIP LOCKED` and mark them handled.
 */
export const outboxEvents = pgTable(
  'outbox_events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    /** e.g. `artifact.deployed`, `artifact.deleted`, `artifact.moved`, `artifact.copied`, `artifact.properties_changed` */
    type: text('type').notNull(),
    payload: jsonb('payload').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    /** Set once every subscriber has taken the event. */
    handledAt: timestamp('handled_at', { withTimezone: true }),
  },
  (t) => [index('outbox_events_pending_idx').on(t.id).where(sql`handled_at is null`)],
);
