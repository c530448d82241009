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
} from 'drizzle-orm/pg-core';

/**
 * Webhook subscriptions (issue 14, spec 001 §3 "Webhook"): Artifactory's subscription JSON, one row
 * per key. `handlers` is the JSON array as given, except that every secret in it (`secret`,
 * `secrets[].value`, and during a rotation `previous_secret`) is sealed by platform/secrets: the
 * database never holds a secret in the clear. The key is unique regardless of case.
 */
export const webhookSubscriptions = pgTable(
  'webhook_subscriptions',
  {
    key: text('key').primaryKey(),
    description: text('description').notNull().default(''),
    enabled: boolean('enabled').notNull().default(true),
    domain: text('domain').notNull(),
    eventTypes: jsonb('event_types').$type<string[]>().notNull(),
    criteria: jsonb('criteria').$type<Record<string, unknown>>().notNull().default({}),
    /** The handlers, secrets sealed; a handler whose secret was replaced also keeps `previous_secret` until `previous_secret_expires_at`. */
    handlers: jsonb('handlers').$type<Record<string, unknown>[]>().notNull(),
    /** Why the server disabled it (a receiver answered 410 Gone), cleared when an admin enables it again. */
    disabledReason: text('disabled_reason'),
    createdBy: text('created_by'),
    updatedBy: text('updated_by'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('webhook_subscriptions_key_lower_idx').on(sql`lower(${t.key})`)],
);

/**
 * One message to one handler of one subscription: an event that matched it, a test, or a redelivery.
 * Its id is the `webhook-id` header, the same on every attempt. One row per (event, subscription,
 * handler), so an event handed to the matcher twice is queued once.
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: text('id').primaryKey(),
    subscriptionKey: text('subscription_key')
      .notNull()
      .references(() => webhookSubscriptions.key, { onDelete: 'cascade', onUpdate: 'cascade' }),
    handlerIndex: integer('handler_index').notNull().default(0),
    /** The outbox event (null for a test). */
    eventId: bigint('event_id', { mode: 'number' }),
    domain: text('domain').notNull(),
    eventType: text('event_type').notNull(),
    data: jsonb('data').$type<Record<string, unknown>>().notNull(),
    /** When the event happened (the body's `timestamp`). */
    eventAt: timestamp('event_at', { withTimezone: true }).notNull(),
    test: boolean('test').notNull().default(false),
    status: text('status', { enum: ['pending', 'retrying', 'delivered', 'failed'] })
      .notNull()
      .default('pending'),
    attempts: integer('attempts').notNull().default(0),
    lastResponseStatus: integer('last_response_status'),
    lastError: text('last_error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('webhook_deliveries_event_idx')
      .on(t.eventId, t.subscriptionKey, t.handlerIndex)
      .where(sql`event_id is not null`),
    index('webhook_deliveries_subscription_idx').on(t.subscriptionKey, t.createdAt),
    index('webhook_deliveries_updated_idx').on(t.updatedAt),
  ],
);

/**
 * The delivery log: every attempt (tests included) with what was sent (secrets masked) and what came
 * back (status, headers, the first 10 KB of the body) or the error. Kept 30 days (`webhooks.prune`).
 */
export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    deliveryId: text('delivery_id')
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: 'cascade' }),
    subscriptionKey: text('subscription_key').notNull(),
    attempt: integer('attempt').notNull(),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull(),
    durationMs: integer('duration_ms').notNull(),
    request: jsonb('request')
      .$type<{ method: string; url: string; headers: Record<string, string>; body: string }>()
      .notNull(),
    response: jsonb('response').$type<{ status: number; headers: Record<string, string>; body: string }>(),
    error: text('error'),
  },
  (t) => [
    index('webhook_attempts_subscription_idx').on(t.subscriptionKey, t.id),
    index('webhook_attempts_started_idx').on(t.startedAt),
  ],
);
