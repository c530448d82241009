import { sql } from 'drizzle-orm';
import { bigserial, customType, index, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * A PostgreSQL transaction id with its epoch (`xid8`, never wraps), as a decimal string. Events and
 * subscriber positions are ordered by it (see `outbox_events.xid`).
 */
export const xid8 = customType<{ data: string; driverData: string }>({
  dataType: () => 'xid8',
  fromDriver: (value) => String(value),
});

/**
 * The outbox (DESIGN.md "Events and jobs"): a domain event is written in the same transaction as
 * the change it describes, so an event exists exactly when its change does. Subscribers
 * (platform/jobs `subscribe`: webhooks, scanning) read it in (xid, id) order, each from its own
 * stored position; events every subscriber has passed are pruned after a retention.
 */
export const outboxEvents = pgTable(
  'outbox_events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    /**
     * The writing transaction. Ids are taken when a row is written but become visible when its
     * transaction commits, so a slower transaction can commit a smaller id after a larger one was
     * read: readers take only events of transactions older than every one still running
     * (`xid < pg_snapshot_xmin(pg_current_snapshot())`), in (xid, id) order.
     */
    xid: xid8('xid').notNull().default(sql`pg_current_xact_id()`),
    /**
     * `${domain}.${event_type}` of the event catalogue (`EVENT_CATALOG`, @granary/contracts), e.g.
     * `artifact.deployed`, `artifact_property.added`, `docker.pushed`, `user.locked`: one event per
     * thing that happened, and `payload` is exactly the webhook delivery's `data` (snake_case;
     * issue 14 §Events). Internal types outside the catalogue (`repository.created`) are never delivered.
     */
    type: text('type').notNull(),
    payload: jsonb('payload').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('outbox_events_position_idx').on(t.xid, t.id)],
);
