import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';

/**
 * PostgreSQL `LISTEN/NOTIFY` between the nodes sharing one database (DESIGN.md "Caches are
 * invalidated across nodes"). A message is a short string; `pg_notify` sent inside a transaction
 * is delivered when it commits. A listener can miss messages while its connection is down, so it
 * also hears `onGap` once the connection is back: whatever it caches may be stale. A lost connection
 * is opened again by `reconnect`, which the server calls on a node job's tick (`db.listen-reconnect`).
 */
export interface NotifyChannel {
  /** Sends `payload` to every listener of `channel`, on every node (this one included). */
  notify(channel: string, payload: string): Promise<void>;
  /** Calls `onMessage` for each message on `channel` until the returned function is called. */
  listen(
    channel: string,
    onMessage: (payload: string) => void,
    onGap?: () => void,
  ): Promise<() => Promise<void>>;
  /**
   * Opens the listening connection again if it was lost and its back-off has passed, then tells
   * every listener `onGap`. Never throws (a failure only grows the back-off).
   */
  reconnect(): Promise<void>;
  close(): Promise<void>;
}

const CHANNEL_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

function checkName(channel: string): void {
  // LISTEN takes an identifier, not a parameter: only plain lower-case names are accepted.
  if (!CHANNEL_NAME.test(channel)) throw new Error(`Invalid notification channel name '${channel}'`);
}

/** Embedded PGlite: one connection, so a NOTIFY reaches the listeners as its query returns. */
export function pgliteChannel(client: PGlite): NotifyChannel {
  const unlistens = new Set<() => Promise<void>>();
  return {
    async notify(channel, payload) {
      checkName(channel);
      await client.query('select pg_notify($1, $2)', [channel, payload]);
    },
    async listen(channel, onMessage) {
      checkName(channel);
      const stop = await client.listen(channel, onMessage);
      const unlisten = async () => {
        if (!unlistens.delete(unlisten)) return;
        if (!client.closed) await stop();
      };
      unlistens.add(unlisten);
      return unlisten;
    },
    async reconnect() {
      // One in-process connection: nothing to lose.
    },
    async close() {
      for (const unlisten of [...unlistens]) await unlisten().catch(() => {});
    },
  };
}

interface Subscription {
  channel: string;
  onMessage: (payload: string) => void;
  onGap?: () => void;
}

/**
 * PostgreSQL: LISTEN needs a connection of its own (a pooled one goes back to the pool and stops
 * hearing), opened on the first `listen`. When it drops, `reconnect` opens it again once a delay has
 * passed (growing after each failure, up to `maxRetryMs`), and every subscriber hears `onGap`.
 * NOTIFY goes through the pool.
 */
export function postgresChannel(
  url: string,
  pool: pg.Pool,
  opts: { maxRetryMs?: number; onError?: (err: Error) => void } = {},
): NotifyChannel {
  const subscriptions = new Set<Subscription>();
  let client: pg.Client | undefined;
  let connecting: Promise<pg.Client> | undefined;
  let reconnecting: Promise<void> | undefined;
  /** The listening connection was lost and listeners have not heard `onGap` since. */
  let down = false;
  /** No reconnection before this (epoch ms). */
  let retryAt = 0;
  let retryMs = 250;
  let closed = false;
  const maxRetryMs = opts.maxRetryMs ?? 10_000;
  const report = (err: Error) => opts.onError?.(err);
  const quote = (channel: string) => `"${channel}"`;

  const dispatch = (msg: pg.Notification) => {
    for (const s of subscriptions) if (s.channel === msg.channel) s.onMessage(msg.payload ?? '');
  };

  const lost = (c: pg.Client, err?: Error) => {
    if (err) report(err);
    if (client !== c) return;
    client = undefined;
    c.removeAllListeners('notification');
    c.end().catch(() => {});
    if (!down) {
      down = true;
      retryAt = Date.now() + retryMs;
    }
  };

  const connect = (): Promise<pg.Client> => {
    if (client) return Promise.resolve(client);
    connecting ??= (async () => {
      const c = new pg.Client({ connectionString: url, application_name: 'granary-listen' });
      c.on('error', (err) => lost(c, err));
      c.on('end', () => lost(c));
      c.on('notification', dispatch);
      try {
        await c.connect();
        for (const channel of new Set([...subscriptions].map((s) => s.channel)))
          await c.query(`LISTEN ${quote(channel)}`);
      } catch (err) {
        c.removeAllListeners();
        c.on('error', () => {});
        await c.end().catch(() => {});
        throw err;
      }
      if (closed) {
        await c.end().catch(() => {});
        throw new Error('notification channel closed');
      }
      client = c;
      return c;
    })().finally(() => {
      connecting = undefined;
    });
    return connecting;
  };

  return {
    async notify(channel, payload) {
      checkName(channel);
      await pool.query('select pg_notify($1, $2)', [channel, payload]);
    },
    async listen(channel, onMessage, onGap) {
      checkName(channel);
      const subscription: Subscription = { channel, onMessage, onGap };
      const first = ![...subscriptions].some((s) => s.channel === channel);
      subscriptions.add(subscription);
      try {
        const c = await connect();
        if (first && client === c) await c.query(`LISTEN ${quote(channel)}`);
      } catch (err) {
        subscriptions.delete(subscription);
        throw err;
      }
      return async () => {
        subscriptions.delete(subscription);
        if (client && ![...subscriptions].some((s) => s.channel === channel))
          await client.query(`UNLISTEN ${quote(channel)}`).catch(() => {});
      };
    },
    reconnect() {
      reconnecting ??= (async () => {
        if (closed || !down) return;
        if (!client) {
          if (subscriptions.size === 0 || Date.now() < retryAt) return;
          try {
            await connect();
          } catch (err) {
            report(err as Error);
            retryMs = Math.min(retryMs * 2, maxRetryMs);
            retryAt = Date.now() + retryMs;
            return;
          }
        }
        down = false;
        retryMs = 250;
        for (const s of subscriptions) s.onGap?.();
      })().finally(() => {
        reconnecting = undefined;
      });
      return reconnecting;
    },
    async close() {
      closed = true;
      subscriptions.clear();
      const c = client ?? (await connecting?.catch(() => undefined));
      client = undefined;
      if (c) {
        c.removeAllListeners();
        c.on('error', () => {});
        await c.end().catch(() => {});
      }
    },
  };
}
