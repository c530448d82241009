import { asc, inArray, isNull, sql } from 'drizzle-orm';
import type { Db } from '../db/index.ts';
import { outboxEvents } from './events.schema.ts';

/** A transaction or the database itself: what the helpers write with. */
export type Executor = Pick<Db, 'insert' | 'select' | 'update' | 'delete' | 'execute'>;

export interface DomainEvent {
  type: string;
  payload: Record<string, unknown>;
}

export interface StoredEvent extends DomainEvent {
  id: number;
  createdAt: Date;
}

/**
 * Writes events into the outbox. Call it with the transaction that makes the change
 * (`db.transaction(async (tx) => { …change…; await publish(tx, …) })`): both commit or neither does.
 */
export async function publish(tx: Executor, ...events: DomainEvent[]): Promise<void> {
  if (events.length === 0) return;
  await tx.insert(outboxEvents).values(events.map((e) => ({ type: e.type, payload: e.payload })));
}

/**
 * Takes up to `limit` unhandled events, oldest first, and marks them handled, all in one
 * transaction; rows another node is taking at the same moment are skipped (`SKIP LOCKED`), so
 * several nodes share the work and no event is handed out twice.
 */
export async function takeEvents(
  db: Db,
  limit: number,
  handle: (events: StoredEvent[]) => Promise<void>,
): Promise<number> {
  return db.transaction(async (tx) => {
    const rows = await tx
      .select()
      .from(outboxEvents)
      .where(isNull(outboxEvents.handledAt))
      .orderBy(asc(outboxEvents.id))
      .limit(limit)
      .for('update', { skipLocked: true });
    if (rows.length === 0) return 0;
    await handle(
      rows.map((r) => ({
        id: r.id,
        type: r.type,
        payload: r.payload as Record<string, unknown>,
        createdAt: r.createdAt,
      })),
    );
    await tx
      .update(outboxEvents)
      .set({ handledAt: sql`now()` })
      .where(
        inArray(
          outboxEvents.id,
          rows.map((r) => r.id),
        ),
      );
    return rows.length;
  });
}

/** Every event, oldest first (tests and diagnostics). */
export async function listEvents(db: Db): Promise<StoredEvent[]> {
  const rows = await db.select().from(outboxEvents).orderBy(asc(outboxEvents.id));
  return rows.map((r) => ({
    id: r.id,
    type: r.type,
    payload: r.payload as Record<string, unknown>,
    createdAt: r.createdAt,
  }));
}
