import { and, eq, sql } from 'drizzle-orm';
import type { Logger } from 'pino';
import { CoalescedRun } from '../concurrency/coalesced-run.ts';
import { type Db, queryRows } from '../db/index.ts';
import {
  countEventsAfter,
  hasEventsAfter,
  type OutboxPosition,
  outboxHorizon,
  outboxNow,
  readEvents,
  type StoredEvent,
} from '../events/index.ts';
import { outboxSubscriptions } from './jobs.schema.ts';

export interface SubscriberContext {
  /** Aborted when the server shuts down (the events are delivered again later). */
  signal: AbortSignal;
  log: Logger;
}

export interface Subscriber {
  /** Unique and stable: the stored position goes by it. */
  name: string;
  /** Event types: `artifact.deployed` exactly, `artifact.*` a prefix, `*` all. */
  types: string[];
  /**
   * Where a subscriber never seen before starts: `now` (default) — events committed from its first
   * start on — or `beginning`, every event still in the outbox. Later starts go on from its position.
   */
  from?: 'now' | 'beginning';
  /**
   * Handles a batch, in commit order (transaction, then write order). A throw leaves the position
   * before the batch, so it is delivered again: handlers must tolerate an event twice.
   */
  handle(events: StoredEvent[], ctx: SubscriberContext): Promise<void>;
  /** Events per call (default 100). */
  batchSize?: number;
  /** The wait after the first failure, doubled after each next one, at most 5 minutes (default 1 s). */
  backoffMs?: number;
  /** How long a node delivering to the subscriber keeps it without a word (renewed while it runs); default 5 minutes. */
  leaseMs?: number;
}

export interface SubscriberStatus {
  name: string;
  types: string[];
  /** The (xid, id) of the outbox it has passed. */
  position: OutboxPosition;
  /** Committed events of its types not delivered yet. */
  lag: number;
  delivered: number;
  lastDeliveredAt: string | null;
  lastError: string | null;
  /** Failed deliveries in a row. */
  failures: number;
  /** After a failure: the next try is not before this. */
  retryAt: string | null;
}

const MAX_BACKOFF_MS = 300_000;
const ms = (n: number) => sql`${`${Math.max(0, Math.round(n))} milliseconds`}::interval`;

interface WorkerDeps {
  db: Db;
  nodeId: string;
  log: Logger;
  signal: AbortSignal;
  running(): boolean;
  closed(): boolean;
}

/**
 * Delivers the outbox to one subscriber from this node: when events lie past its position, takes
 * the subscriber's lease (one node at a time), reads a batch below the horizon, hands it over, and
 * stores the new position with the lease given back.
 */
export class SubscriberWorker {
  readonly batchSize: number;
  readonly backoffMs: number;
  readonly leaseMs: number;
  private ensured = false;
  private holding = false;
  private readonly poller = new CoalescedRun(
    () => this.drain(),
    (err) => {
      if (!this.deps.closed())
        this.deps.log.warn({ err, subscriber: this.def.name }, 'outbox subscriber poll failed');
    },
    () => this.deps.running(),
  );

  constructor(
    readonly def: Subscriber,
    private readonly deps: WorkerDeps,
  ) {
    this.batchSize = Math.max(1, def.batchSize ?? 100);
    this.backoffMs = def.backoffMs ?? 1_000;
    this.leaseMs = def.leaseMs ?? 300_000;
  }

  /** Records the subscriber the first time any node knows it (its position survives restarts). */
  async ensure(): Promise<void> {
    if (this.ensured) return;
    const { db } = this.deps;
    const start: OutboxPosition & { snapshot: string | null } =
      this.def.from === 'beginning'
        ? { xid: '0', id: 0, snapshot: null }
        : await outboxNow(db).then((now) => ({ xid: now.horizon, id: 0, snapshot: now.snapshot }));
    await db
      .insert(outboxSubscriptions)
      .values({
        name: this.def.name,
        cursorXid: start.xid,
        cursorId: start.id,
        startSnapshot: start.snapshot,
      })
      .onConflictDoNothing();
    this.ensured = true;
  }

  poll(): Promise<void> {
    return this.poller.run();
  }

  inFlight(): Promise<unknown>[] {
    return this.poller.inProgress ? [this.poller.inProgress] : [];
  }

  async renew(): Promise<void> {
    if (!this.holding) return;
    await this.deps.db
      .update(outboxSubscriptions)
      .set({ lockedUntil: sql`now() + ${ms(this.leaseMs)}` })
      .where(
        sql`${outboxSubscriptions.name} = ${this.def.name} and ${outboxSubscriptions.lockedBy} = ${this.deps.nodeId}`,
      );
  }

  private async drain(): Promise<void> {
    await this.ensure();
    while (this.deps.running()) {
      if (!(await this.due())) return;
      const claimed = await this.claim();
      if (!claimed) return;
      this.holding = true;
      try {
        const full = await this.deliver(claimed);
        if (!full) return;
      } finally {
        this.holding = false;
      }
    }
  }

  /** Cheap check before any write: events past the position, the subscriber free and not backing off. */
  private async due(): Promise<boolean> {
    const [row] = await queryRows<{ xid: string; id: string | number; free: boolean }>(
      this.deps.db,
      sql`select cursor_xid::text as xid, cursor_id as id,
            (locked_until is null or locked_until < now()) and (retry_at is null or retry_at <= now()) as free
          from ${outboxSubscriptions} where name = ${this.def.name}`,
    );
    if (!row?.free) return false;
    return hasEventsAfter(this.deps.db, { xid: row.xid, id: Number(row.id) });
  }

  private async claim(): Promise<(OutboxPosition & { snapshot: string | null }) | null> {
    const [row] = await queryRows<{ xid: string; id: string | number; snapshot: string | null }>(
      this.deps.db,
      sql`update ${outboxSubscriptions} set locked_by = ${this.deps.nodeId}, locked_until = now() + ${ms(this.leaseMs)}
          where name = ${this.def.name}
            and (locked_until is null or locked_until < now())
            and (retry_at is null or retry_at <= now())
          returning cursor_xid::text as xid, cursor_id as id, start_snapshot as snapshot`,
    );
    return row ? { xid: row.xid, id: Number(row.id), snapshot: row.snapshot } : null;
  }

  /** One batch under the lease; answers whether it was full (more may follow at once). */
  private async deliver(from: OutboxPosition & { snapshot: string | null }): Promise<boolean> {
    const { db, nodeId, signal } = this.deps;
    const { name } = this.def;
    let delivered = 0;
    let full = false;
    try {
      const horizon = await outboxHorizon(db);
      const events = await readEvents(db, {
        after: from,
        horizon,
        types: this.def.types,
        limit: this.batchSize,
        skipVisibleIn: from.snapshot,
      });
      if (events.length > 0)
        await this.def.handle(
          events.map(({ xid: _xid, ...event }) => event),
          { signal, log: this.deps.log.child({ subscriber: name }) },
        );
      delivered = events.length;
      full = events.length === this.batchSize;
      // A short batch holds every event of these types below the horizon: the position moves there.
      const last = events.at(-1);
      const next = full && last ? { xid: last.xid, id: last.id } : { xid: horizon, id: 0 };
      const moves = sql`(cursor_xid, cursor_id) < (${next.xid}::xid8, ${next.id}::bigint)`;
      await db.execute(
        sql`update ${outboxSubscriptions} set
              cursor_xid = case when ${moves} then ${next.xid}::xid8 else cursor_xid end,
              cursor_id = case when ${moves} then ${next.id}::bigint else cursor_id end,
              start_snapshot = case when start_snapshot is not null
                and ${next.xid}::xid8 >= pg_snapshot_xmax(start_snapshot::pg_snapshot) then null else start_snapshot end,
              locked_by = null, locked_until = null, retry_at = null, failures = 0, last_error = null,
              delivered = delivered + ${delivered},
              last_delivered_at = case when ${delivered} > 0 then now() else last_delivered_at end
            where name = ${name} and locked_by = ${nodeId}`,
      );
      return full;
    } catch (err) {
      if (this.deps.closed()) return false;
      if (signal.aborted) {
        await db
          .update(outboxSubscriptions)
          .set({ lockedBy: null, lockedUntil: null })
          .where(and(eq(outboxSubscriptions.name, name), eq(outboxSubscriptions.lockedBy, nodeId)))
          .catch(() => {});
        return false;
      }
      const message = err instanceof Error ? err.message : String(err);
      this.deps.log.warn(
        { err, subscriber: name },
        'outbox subscriber failed: the batch is delivered again later',
      );
      await db
        .execute(
          sql`update ${outboxSubscriptions} set
                failures = failures + 1, last_error = ${message},
                retry_at = now() + least(${this.backoffMs}::float8 * power(2, failures), ${MAX_BACKOFF_MS}::float8) * interval '1 millisecond',
                locked_by = null, locked_until = null
              where name = ${name} and locked_by = ${nodeId}`,
        )
        .catch((e) =>
          this.deps.log.warn({ err: e, subscriber: name }, 'could not record a subscriber failure'),
        );
      return false;
    }
  }
}

/** Each subscriber's position, lag and health (those known to this node). */
export async function subscriberStatus(db: Db, subscribers: Subscriber[]): Promise<SubscriberStatus[]> {
  const rows = await db.select().from(outboxSubscriptions);
  const byName = new Map(rows.map((r) => [r.name, r]));
  const out: SubscriberStatus[] = [];
  for (const s of subscribers) {
    const row = byName.get(s.name);
    const position = row ? { xid: row.cursorXid, id: row.cursorId } : { xid: '0', id: 0 };
    out.push({
      name: s.name,
      types: [...s.types],
      position,
      lag: row ? await countEventsAfter(db, position, s.types) : 0,
      delivered: row?.delivered ?? 0,
      lastDeliveredAt: row?.lastDeliveredAt ? row.lastDeliveredAt.toISOString() : null,
      lastError: row?.lastError ?? null,
      failures: row?.failures ?? 0,
      retryAt: row?.retryAt ? row.retryAt.toISOString() : null,
    });
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

/** The least position of all subscribers (the outbox up to it has been delivered to each); null when there are none. */
export async function leastPosition(db: Db): Promise<OutboxPosition | null> {
  const [row] = await queryRows<{ xid: string; id: string | number }>(
    db,
    sql`select cursor_xid::text as xid, cursor_id as id from ${outboxSubscriptions}
        order by cursor_xid, cursor_id limit 1`,
  );
  return row ? { xid: row.xid, id: Number(row.id) } : null;
}
