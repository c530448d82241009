import type { PGlite } from '@electric-sql/pglite';

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

export function checkChannelName(channel: string): void {
  // LISTEN takes an identifier, not a parameter: only plain lower-case names are accepted.
  if (!CHANNEL_NAME.test(channel)) throw new Error(`Invalid notification channel name '${channel}'`);
}

/** Embedded PGlite: one connection, so a NOTIFY reaches the listeners as its query returns. */
export function pgliteChannel(client: PGlite): NotifyChannel {
  const unlistens = new Set<() => Promise<void>>();
  return {
    async notify(channel, payload) {
      checkChannelName(channel);
      await client.query('select pg_notify($1, $2)', [channel, payload]);
    },
    async listen(channel, onMessage) {
      checkChannelName(channel);
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
