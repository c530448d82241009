import { randomBytes } from 'node:crypto';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import { SerialQueue } from '../concurrency/serial-queue.ts';
import { DataChanges, mayChange } from './data-changes.ts';
import {
  type Database,
  DatabaseUnavailableError,
  type Db,
  MIGRATION_LOCK_KEY,
  MIGRATIONS_FOLDER,
} from './database.ts';
import { postgresChannel } from './notify-channel-postgres.ts';
import * as schema from './schema.ts';

/**
 * The PostgreSQL side of platform/db: the guarded pool, advisory locks, migrations on a connection of
 * their own, and scratch databases for tests. Loaded by openDatabase only when GRANARY_DATABASE_URL
 * names a server: an embedded start never loads the driver (issue 24, idle memory).
 */

/** SQLSTATEs of a connection that failed or a server going away: 08xxx, admin/crash shutdown, starting up, too many connections. */
const CONNECTION_SQLSTATE = /^(08...|57P0[123]|53300)$/;
const CONNECTION_MESSAGE =
  /Query read timeout|Connection terminated|not queryable|timeout exceeded when trying to connect|timeout expired/i;

/** A failure of the connection rather than of the statement (which keeps its own error). */
function isConnectionFailure(error: unknown): boolean {
  if (!(error instanceof Error) || error instanceof DatabaseUnavailableError) return false;
  const code = (error as { code?: unknown }).code;
  if (error instanceof pg.DatabaseError) return typeof code === 'string' && CONNECTION_SQLSTATE.test(code);
  // A socket error (ECONNRESET, EPIPE, ETIMEDOUT, …) or the driver's own timeout and closed-connection errors.
  return (typeof code === 'string' && /^E[A-Z]+$/.test(code)) || CONNECTION_MESSAGE.test(error.message);
}

type QueryFn = (...args: unknown[]) => unknown;

/**
 * Turns a pooled client's connection failures (a statement past its timeout, a dropped socket) into
 * DatabaseUnavailableError, and drops the connection then: a statement that timed out may still be
 * running on it, and a transaction's client would otherwise go back to the pool stuck behind it.
 */
function guardClient(client: pg.PoolClient, changes: DataChanges): void {
  // A checked-out client whose socket dies emits 'error'; its queries fail anyway.
  client.on('error', () => {});
  const query = client.query.bind(client) as QueryFn;
  const fail = (error: unknown): unknown => {
    if (!isConnectionFailure(error)) return error;
    (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
    return new DatabaseUnavailableError(error);
  };
  (client as unknown as { query: QueryFn }).query = (...args: unknown[]) => {
    const callback = args.at(-1);
    if (typeof callback === 'function') {
      const counts = mayChange(args[0]);
      args[args.length - 1] = (error: unknown, result: unknown) => {
        if (counts) changes.changed();
        callback(error && fail(error), result);
      };
      return query(...args);
    }
    // A transaction's statements count as they complete, and its `commit` once more: a change is
    // visible to other connections only then.
    const result = changes.track(args[0], () => query(...args));
    return result instanceof Promise
      ? result.catch((error: unknown) => {
          throw fail(error);
        })
      : result;
  };
}

/** A pool whose connection failures (none free in time, none possible) are DatabaseUnavailableError. */
class GuardedPool extends pg.Pool {
  // biome-ignore lint/suspicious/noExplicitAny: pg's overloads (promise or callback) pass through unchanged
  override connect(callback?: any): any {
    if (typeof callback === 'function')
      return super.connect((error, client, done) =>
        callback(error && new DatabaseUnavailableError(error), client, done),
      );
    return super.connect().catch((error: unknown) => {
      throw new DatabaseUnavailableError(error);
    });
  }
}

/**
 * `withLock` on PostgreSQL: a session advisory lock (`pg_advisory_lock(hashtextextended(name, 0))`)
 * held on a connection of its own for `fn`'s whole run, from a pool kept apart from the main one, so
 * locks waited for never take the connections queries need. This node's own holders of a name queue
 * in front (SerialQueue), so the node holds at most one connection per name, and a session never
 * takes its own lock twice. A connection whose unlock fails is dropped: its session ends and, with
 * it, the lock.
 */
function advisoryLocks(url: string, max: number, timeoutMs: number) {
  // Waiting for one of these connections means waiting for locks: no time limit. Opening one keeps
  // the database timeout, so a server that is gone fails the caller.
  class LockClient extends pg.Client {
    constructor(config?: string | pg.ClientConfig) {
      super({
        ...(typeof config === 'string' ? { connectionString: config } : config),
        connectionTimeoutMillis: timeoutMs,
      });
    }
  }
  const pool = new pg.Pool({
    connectionString: url,
    max,
    application_name: 'granary-locks',
    keepAlive: true,
    Client: LockClient,
  });
  // An idle or a held connection losing its socket must not crash the process.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  const queue = new SerialQueue();
  const unavailable = (error: unknown) =>
    isConnectionFailure(error) ? new DatabaseUnavailableError(error) : error;
  return {
    withLock<T>(name: string, fn: () => Promise<T>): Promise<T> {
      return queue.run(name, async () => {
        let client: pg.PoolClient;
        try {
          client = await pool.connect();
        } catch (error) {
          throw new DatabaseUnavailableError(error);
        }
        try {
          await client.query('select pg_advisory_lock(hashtextextended($1, 0))', [name]);
        } catch (error) {
          client.release(true);
          throw unavailable(error);
        }
        try {
          return await fn();
        } finally {
          try {
            await client.query('select pg_advisory_unlock(hashtextextended($1, 0))', [name]);
            client.release();
          } catch {
            client.release(true);
          }
        }
      });
    },
    close: () => pool.end(),
  };
}

export function openPostgres(url: string, max: number, timeoutMs: number, lockConnections: number): Database {
  const pool = new GuardedPool({
    connectionString: url,
    max,
    application_name: 'granary',
    // Waiting for a free connection or opening one, and each statement: a stopped or unreachable
    // server fails requests within this, never for the whole outage.
    connectionTimeoutMillis: timeoutMs,
    query_timeout: timeoutMs,
    keepAlive: true,
  });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  const changes = new DataChanges();
  pool.on('connect', (client) => guardClient(client, changes));
  const db: Db = drizzlePg({ client: pool, schema });
  const channel = postgresChannel(url, pool);
  const locks = advisoryLocks(url, lockConnections, timeoutMs);
  return {
    kind: 'postgres',
    db,
    channel,
    changes,
    withLock: locks.withLock,
    async migrate() {
      // A connection of its own without the statement timeout: a migration, or waiting for another
      // node's, may take longer.
      const client = new pg.Client({
        connectionString: url,
        application_name: 'granary-migrate',
        connectionTimeoutMillis: timeoutMs,
      });
      await client.connect();
      try {
        await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_KEY.toString()]);
        try {
          await migratePg(drizzlePg({ client }), { migrationsFolder: MIGRATIONS_FOLDER });
        } finally {
          await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY.toString()]);
        }
      } finally {
        await client.end();
      }
    },
    async close() {
      await channel.close();
      await locks.close();
      await pool.end();
    },
  };
}

/** Creates an empty database on a PostgreSQL server (tests give each suite its own). */
export async function createScratchDatabase(
  adminUrl: string,
): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `granary_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      try {
        await c.query(`drop database if exists ${name} with (force)`);
      } finally {
        await c.end();
      }
    },
  };
}
