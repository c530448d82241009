import { asc, type SQL, sql } from 'drizzle-orm';
import { type Db, queryRows } from '../db/index.ts';
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
 * A place in the outbox: the (xid, id) of an event, or of a point between events. Events are read
 * in (xid, id) order (see `outbox_events.xid`); `{ xid: '0', id: 0 }` is before every event.
 */
export interface OutboxPosition {
  /** A transaction id (`xid8`) as a decimal string. */
  xid: string;
  id: number;
}

/**
 * Writes events into the outbox. Call it with the transaction that makes the change
 * (`db.transaction(async (tx) => { …change…; await publish(tx, …) })`): both commit or neither does.
 * Subscribers (platform/jobs `subscribe`) get them once that transaction has committed.
 */
export async function publish(tx: Executor, ...events: DomainEvent[]): Promise<void> {
  if (events.length === 0) return;
  await tx.insert(outboxEvents).values(events.map((e) => ({ type: e.type, payload: e.payload })));
}

/** Every event, oldest first (tests and diagnostics). */
export async function listEvents(db: Db): Promise<StoredEvent[]> {
  const rows = await db.select().from(outboxEvents).orderBy(asc(outboxEvents.xid), asc(outboxEvents.id));
  return rows.map((r) => ({
    id: r.id,
    type: r.type,
    payload: r.payload as Record<string, unknown>,
    createdAt: r.createdAt,
  }));
}

/**
 * The oldest transaction still running anywhere on the server (`pg_snapshot_xmin` of a snapshot
 * taken now). Every event of an older transaction is committed or gone for good, so events below it
 * can be read in order without a later commit slipping in behind: the safe end of the outbox.
 */
export async function outboxHorizon(db: Db): Promise<string> {
  const [row] = await queryRows<{ horizon: string }>(
    db,
    sql`select pg_snapshot_xmin(pg_current_snapshot())::text as horizon`,
  );
  return row!.horizon;
}

/** A snapshot of now (`pg_snapshot` text) and its horizon: where a subscriber starting now begins. */
export async function outboxNow(db: Db): Promise<{ snapshot: string; horizon: string }> {
  const [row] = await queryRows<{ snapshot: string; horizon: string }>(
    db,
    sql`select s::text as snapshot, pg_snapshot_xmin(s)::text as horizon from pg_current_snapshot() s`,
  );
  return row!;
}

/**
 * Event types as a subscriber names them: `artifact.deployed` exactly, `artifact.*` every type
 * starting `artifact.`, `*` every type.
 */
function typeFilter(types: readonly string[]): SQL {
  if (types.includes('*')) return sql`true`;
  const exact = types.filter((t) => !t.endsWith('*'));
  const prefixes = types.filter((t) => t.endsWith('*')).map((t) => t.slice(0, -1));
  const parts: SQL[] = [];
  if (exact.length > 0)
    parts.push(
      sql`${outboxEvents.type} in (${sql.join(
        exact.map((t) => sql`${t}`),
        sql`, `,
      )})`,
    );
  for (const prefix of prefixes) parts.push(sql`starts_with(${outboxEvents.type}, ${prefix})`);
  return parts.length > 0 ? sql`(${sql.join(parts, sql` or `)})` : sql`false`;
}

const after = (position: OutboxPosition) =>
  sql`(${outboxEvents.xid}, ${outboxEvents.id}) > (${position.xid}::xid8, ${position.id}::bigint)`;

/**
 * Up to `limit` events of `types` after `position` and below `horizon` (`outboxHorizon`), in
 * (xid, id) order. Events visible in `skipVisibleIn` (a `pg_snapshot`, a subscriber's start) are
 * left out: they were committed before it.
 */
export async function readEvents(
  db: Db,
  opts: {
    after: OutboxPosition;
    horizon: string;
    types: readonly string[];
    limit: number;
    skipVisibleIn?: string | null;
  },
): Promise<(StoredEvent & { xid: string })[]> {
  const skip = opts.skipVisibleIn
    ? sql`and not pg_visible_in_snapshot(${outboxEvents.xid}, ${opts.skipVisibleIn}::pg_snapshot)`
    : sql``;
  const rows = await queryRows<{
    id: string | number;
    xid: string;
    type: string;
    payload: Record<string, unknown>;
    created_at: string | Date;
  }>(
    db,
    sql`select id, xid::text as xid, type, payload, created_at from ${outboxEvents}
        where ${after(opts.after)} and ${outboxEvents.xid} < ${opts.horizon}::xid8
          and ${typeFilter(opts.types)} ${skip}
        order by ${outboxEvents.xid}, ${outboxEvents.id} limit ${opts.limit}`,
  );
  return rows.map((r) => ({
    id: Number(r.id),
    xid: r.xid,
    type: r.type,
    payload: r.payload,
    createdAt: new Date(r.created_at),
  }));
}

/** Whether any event (of any type) lies after `position` and below the horizon of now. */
export async function hasEventsAfter(db: Db, position: OutboxPosition): Promise<boolean> {
  const rows = await queryRows<{ one: number }>(
    db,
    sql`select 1 as one from ${outboxEvents}
        where ${after(position)} and ${outboxEvents.xid} < pg_snapshot_xmin(pg_current_snapshot()) limit 1`,
  );
  return rows.length > 0;
}

/** How many events of `types` lie after `position` (committed ones; a subscriber's lag). */
export async function countEventsAfter(
  db: Db,
  position: OutboxPosition,
  types: readonly string[],
): Promise<number> {
  const [row] = await queryRows<{ n: string | number }>(
    db,
    sql`select count(*) as n from ${outboxEvents} where ${after(position)} and ${typeFilter(types)}`,
  );
  return Number(row?.n ?? 0);
}

/**
 * Deletes up to `limit` events older than `olderThanMs` and before `before` (the least position of
 * the subscribers; none: no bound). Answers how many went.
 */
export async function pruneEvents(
  db: Db,
  opts: { olderThanMs: number; before: OutboxPosition | null; limit: number },
): Promise<number> {
  const bound = opts.before
    ? sql`and (${outboxEvents.xid}, ${outboxEvents.id}) <= (${opts.before.xid}::xid8, ${opts.before.id}::bigint)`
    : sql``;
  const rows = await queryRows<{ id: number }>(
    db,
    sql`delete from ${outboxEvents} where ${outboxEvents.id} in (
          select ${outboxEvents.id} from ${outboxEvents}
          where ${outboxEvents.createdAt} < now() - ${`${opts.olderThanMs} milliseconds`}::interval ${bound}
          limit ${opts.limit})
        returning ${outboxEvents.id}`,
  );
  return rows.length;
}
