import pg from 'pg';
import { checkChannelName, type NotifyChannel } from './notify-channel.ts';

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
      checkChannelName(channel);
      await pool.query('select pg_notify($1, $2)', [channel, payload]);
    },
    async listen(channel, onMessage, onGap) {
      checkChannelName(channel);
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
