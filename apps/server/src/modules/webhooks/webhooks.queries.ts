import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../platform/db/index.ts';
import { queryRows } from '../../platform/db/index.ts';
import type { Executor } from '../../platform/events/index.ts';
import { webhookAttempts, webhookDeliveries, webhookSubscriptions } from './webhooks.schema.ts';

export type SubscriptionRow = typeof webhookSubscriptions.$inferSelect;
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;
export type AttemptRow = typeof webhookAttempts.$inferSelect;
export type NewDelivery = typeof webhookDeliveries.$inferInsert;

export function listSubscriptionRows(db: Executor): Promise<SubscriptionRow[]> {
  return db.select().from(webhookSubscriptions).orderBy(webhookSubscriptions.key);
}

export function enabledSubscriptionRows(db: Executor): Promise<SubscriptionRow[]> {
  return db.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.enabled, true));
}

export async function findSubscriptionRow(db: Executor, key: string): Promise<SubscriptionRow | undefined> {
  const [row] = await db.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.key, key));
  return row;
}

/** The subscription whose key is `key` in any case (keys are unique regardless of case). */
export async function findSubscriptionKeyAnyCase(db: Executor, key: string): Promise<string | undefined> {
  const [row] = await db
    .select({ key: webhookSubscriptions.key })
    .from(webhookSubscriptions)
    .where(sql`lower(${webhookSubscriptions.key}) = lower(${key})`);
  return row?.key;
}

export async function insertSubscriptionRow(
  db: Executor,
  row: typeof webhookSubscriptions.$inferInsert,
): Promise<boolean> {
  const inserted = await db
    .insert(webhookSubscriptions)
    .values(row)
    .onConflictDoNothing()
    .returning({ key: webhookSubscriptions.key });
  return inserted.length > 0;
}

export async function updateSubscriptionRow(
  db: Executor,
  key: string,
  set: Partial<typeof webhookSubscriptions.$inferInsert>,
): Promise<boolean> {
  const rows = await db
    .update(webhookSubscriptions)
    .set({ ...set, updatedAt: sql`now()` })
    .where(eq(webhookSubscriptions.key, key))
    .returning({ key: webhookSubscriptions.key });
  return rows.length > 0;
}

export async function deleteSubscriptionRow(db: Executor, key: string): Promise<boolean> {
  const rows = await db
    .delete(webhookSubscriptions)
    .where(eq(webhookSubscriptions.key, key))
    .returning({ key: webhookSubscriptions.key });
  return rows.length > 0;
}

/** The newest delivery of each subscription named. */
export async function lastDeliveries(db: Db, keys: string[]): Promise<Map<string, DeliveryRow>> {
  if (keys.length === 0) return new Map();
  const rows = await db
    .selectDistinctOn([webhookDeliveries.subscriptionKey])
    .from(webhookDeliveries)
    .where(inArray(webhookDeliveries.subscriptionKey, keys))
    .orderBy(webhookDeliveries.subscriptionKey, desc(webhookDeliveries.updatedAt));
  return new Map(rows.map((r) => [r.subscriptionKey, r]));
}

/** Inserts deliveries, skipping those already there for the same (event, subscription, handler); answers the new ids. */
export async function insertDeliveries(db: Executor, rows: NewDelivery[]): Promise<string[]> {
  if (rows.length === 0) return [];
  const inserted = await db
    .insert(webhookDeliveries)
    .values(rows)
    .onConflictDoNothing()
    .returning({ id: webhookDeliveries.id });
  return inserted.map((r) => r.id);
}

export function findDeliveries(db: Executor, ids: string[]): Promise<DeliveryRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db.select().from(webhookDeliveries).where(inArray(webhookDeliveries.id, ids));
}

export async function insertAttempts(
  db: Executor,
  rows: (typeof webhookAttempts.$inferInsert)[],
): Promise<void> {
  if (rows.length > 0) await db.insert(webhookAttempts).values(rows);
}

/** The outcome of many deliveries' attempts at once: one statement. */
export async function finishAttempts(
  db: Executor,
  rows: {
    id: string;
    attempts: number;
    status: DeliveryRow['status'];
    responseStatus: number | null;
    error: string | null;
  }[],
): Promise<void> {
  if (rows.length === 0) return;
  const values = sql.join(
    rows.map(
      (r) =>
        sql`(${r.id}::text, ${r.attempts}::int, ${r.status}::text, ${r.responseStatus}::int, ${r.error}::text)`,
    ),
    sql`, `,
  );
  await db.execute(sql`update ${webhookDeliveries} d set
      attempts = v.attempts, status = v.status, last_response_status = v.response_status,
      last_error = v.error, updated_at = now()
    from (values ${values}) as v(id, attempts, status, response_status, error)
    where d.id = v.id`);
}

export async function findDelivery(db: Executor, id: string): Promise<DeliveryRow | undefined> {
  const [row] = await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id));
  return row;
}

/** Counts one more attempt of a delivery; answers its number. */
export async function startAttempt(db: Executor, id: string): Promise<number | undefined> {
  const [row] = await db
    .update(webhookDeliveries)
    .set({ attempts: sql`${webhookDeliveries.attempts} + 1`, updatedAt: sql`now()` })
    .where(eq(webhookDeliveries.id, id))
    .returning({ attempts: webhookDeliveries.attempts });
  return row?.attempts;
}

export async function finishAttempt(
  db: Executor,
  deliveryId: string,
  status: DeliveryRow['status'],
  responseStatus: number | null,
  error: string | null,
): Promise<void> {
  await db
    .update(webhookDeliveries)
    .set({ status, lastResponseStatus: responseStatus, lastError: error, updatedAt: sql`now()` })
    .where(eq(webhookDeliveries.id, deliveryId));
}

export async function insertAttempt(db: Executor, row: typeof webhookAttempts.$inferInsert): Promise<number> {
  const [inserted] = await db.insert(webhookAttempts).values(row).returning({ id: webhookAttempts.id });
  return inserted!.id;
}

export interface AttemptWithDelivery extends AttemptRow {
  eventId: number | null;
  domain: string;
  eventType: string;
  test: boolean;
}

/** A subscription's attempts, newest first. */
export async function listAttempts(
  db: Db,
  key: string,
  limit: number,
  offset: number,
): Promise<{ rows: AttemptWithDelivery[]; total: number }> {
  const rows = await db
    .select({
      id: webhookAttempts.id,
      deliveryId: webhookAttempts.deliveryId,
      subscriptionKey: webhookAttempts.subscriptionKey,
      attempt: webhookAttempts.attempt,
      startedAt: webhookAttempts.startedAt,
      durationMs: webhookAttempts.durationMs,
      request: webhookAttempts.request,
      response: webhookAttempts.response,
      error: webhookAttempts.error,
      eventId: webhookDeliveries.eventId,
      domain: webhookDeliveries.domain,
      eventType: webhookDeliveries.eventType,
      test: webhookDeliveries.test,
    })
    .from(webhookAttempts)
    .innerJoin(webhookDeliveries, eq(webhookDeliveries.id, webhookAttempts.deliveryId))
    .where(eq(webhookAttempts.subscriptionKey, key))
    .orderBy(desc(webhookAttempts.id))
    .limit(limit)
    .offset(offset);
  const [count] = await queryRows<{ n: string | number }>(
    db,
    sql`select count(*) as n from ${webhookAttempts} where ${webhookAttempts.subscriptionKey} = ${key}`,
  );
  return { rows, total: Number(count?.n ?? 0) };
}

export async function findAttempt(db: Db, key: string, id: number): Promise<AttemptRow | undefined> {
  const [row] = await db
    .select()
    .from(webhookAttempts)
    .where(and(eq(webhookAttempts.id, id), eq(webhookAttempts.subscriptionKey, key)));
  return row;
}

/** Deletes attempts older than `olderThanMs`, and finished deliveries untouched that long (with what is left of their log). */
export async function pruneLog(
  db: Db,
  olderThanMs: number,
  limit: number,
): Promise<{ attempts: number; deliveries: number }> {
  const age = sql`now() - ${`${olderThanMs} milliseconds`}::interval`;
  const attempts = await queryRows<{ id: number }>(
    db,
    sql`delete from ${webhookAttempts} where ${webhookAttempts.id} in (
          select id from ${webhookAttempts} where started_at < ${age} limit ${limit})
        returning ${webhookAttempts.id}`,
  );
  const deliveries = await queryRows<{ id: string }>(
    db,
    sql`delete from ${webhookDeliveries} where ${webhookDeliveries.id} in (
          select id from ${webhookDeliveries}
          where status in ('delivered', 'failed') and updated_at < ${age} limit ${limit})
        returning ${webhookDeliveries.id}`,
  );
  return { attempts: attempts.length, deliveries: deliveries.length };
}
