import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { type SQL, sql } from 'drizzle-orm';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import pg from 'pg';
import { SerialQueue } from '../concurrency/serial-queue.ts';
import { type NotifyChannel, pgliteChannel, postgresChannel } from './notify-channel.ts';
import * as schema from './schema.ts';

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

export interface Database {
  readonly kind: 'pglite' | 'postgres';
  readonly db: Db;
  /** LISTEN/NOTIFY between the nodes on this database (cross-node cache invalidation). */
  readonly channel: NotifyChannel;
  /** Applies pending migrations; safe when several nodes start at once (advisory lock). */
  migrate(): Promise<void>;
  /**
   * Runs `fn` while holding the lock `name`, cluster-wide: one holder at a time across every node on
   * this database, waiters served in turn; released when `fn` settles, thrown or not. Locks do not nest
   * (a holder must not wait for another lock: `fn` may run while other names wait for a connection).
   */
  withLock<T>(name: string, fn: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export const MIGRATIONS_FOLDER = path.join(import.meta.dirname, 'migrations');
/** Key of the advisory lock that serialises migrations across nodes ('granary' as a bigint). */
const MIGRATION_LOCK_KEY = 0x6772616e617279n;

export interface DatabaseOptions {
  /** postgres://… for a PostgreSQL server; otherwise embedded PGlite. */
  url?: string;
  /** PGlite data folder; omitted means in memory (tests). */
  dataDir?: string;
  /** An already booted PGlite (tests clone a migrated template). */
  pglite?: PGlite;
  /** Connection pool size on PostgreSQL. */
  poolSize?: number;
  /**
   * PostgreSQL: most connections holding or waiting for `withLock` locks at once, a pool of their own
   * (default four times `poolSize`, at least 16); more names wait their turn for one.
   */
  lockConnections?: number;
  /**
   * PostgreSQL: the longest wait for a pooled or new connection and for each statement's answer
   * (GRANARY_DATABASE_TIMEOUT_MS). Past it the caller gets a DatabaseUnavailableError.
   */
  timeoutMs?: number;
}

/** Default of GRANARY_DATABASE_TIMEOUT_MS. */
export const DEFAULT_DATABASE_TIMEOUT_MS = 5000;

/**
 * The database cannot be reached or did not answer in time (PostgreSQL stopped, the network gone,
 * every connection busy). Requests answer 503 with Retry-After; the pool reconnects by itself.
 */
export class DatabaseUnavailableError extends Error {
  override readonly name = 'DatabaseUnavailableError';
  constructor(cause: unknown) {
    super(`database unavailable: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

/** True when `error` or one of its causes (drizzle wraps driver errors) is a DatabaseUnavailableError. */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e = error, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth += 1)
    if (e instanceof DatabaseUnavailableError) return true;
  return false;
}

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

export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  if (opts.url) {
    const poolSize = opts.poolSize ?? 10;
    return openPostgres(
      opts.url,
      poolSize,
      opts.timeoutMs ?? DEFAULT_DATABASE_TIMEOUT_MS,
      opts.lockConnections ?? Math.max(16, 4 * poolSize),
    );
  }
  return openPglite(opts.pglite ?? (await bootPglite(opts.dataDir)));
}

const PGLITE_CONF = ['shared_buffers = 16MB', 'work_mem = 4MB', 'maintenance_work_mem = 32MB'].join('\n');

/** Boots embedded PostgreSQL with settings sized for a single small process. */
export async function bootPglite(dataDir?: string): Promise<PGlite> {
  if (dataDir) {
    mkdirSync(dataDir, { recursive: true });
    // Creating the cluster (initdb) leaves ~500 MB resident that the process never gets back,
    // so a first start creates it in a short-lived child process and then opens it here.
    if (!existsSync(path.join(dataDir, 'PG_VERSION'))) initPgliteDataDir(dataDir);
  }
  // pg_trgm: the packages' name search anywhere in the name (migration 0028, packages.schema.ts).
  return PGlite.create(dataDir, { postgresqlconf: PGLITE_CONF, extensions: { pg_trgm } });
}

function initPgliteDataDir(dataDir: string): void {
  const module = import.meta.resolve('@electric-sql/pglite');
  const code = `const { PGlite } = await import(${JSON.stringify(module)});
const db = await PGlite.create(${JSON.stringify(dataDir)});
await db.query('select 1');
await db.close();`;
  execFileSync(process.execPath, ['--input-type=module', '-e', code], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

/** `withLock`'s queues of each embedded instance, shared by every handle on it. */
const pgliteLocks = new WeakMap<PGlite, SerialQueue>();

function openPglite(client: PGlite): Database {
  const db: Db = drizzlePglite({ client, schema });
  const channel = pgliteChannel(client);
  const queue = pgliteLocks.get(client) ?? new SerialQueue();
  pgliteLocks.set(client, queue);
  return {
    kind: 'pglite',
    db,
    channel,
    // A PGlite data folder belongs to one process, which is the whole cluster: the in-process queue
    // is the cluster-wide lock. (Advisory locks would not do: PGlite has one session, and a session
    // takes its own advisory lock again at once.)
    withLock: (name, fn) => queue.run(name, fn),
    async migrate() {
      // One process owns a PGlite data folder, and PGlite runs one statement at a time;
      // the advisory lock keeps the code path identical to PostgreSQL's.
      await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_KEY.toString()]);
      try {
        await migratePglite(drizzlePglite({ client }), { migrationsFolder: MIGRATIONS_FOLDER });
      } finally {
        await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY.toString()]);
      }
    },
    async close() {
      await channel.close();
      if (!client.closed) await client.close();
    },
  };
}

type QueryFn = (...args: unknown[]) => unknown;

/**
 * Turns a pooled client's connection failures (a statement past its timeout, a dropped socket) into
 * DatabaseUnavailableError, and drops the connection then: a statement that timed out may still be
 * running on it, and a transaction's client would otherwise go back to the pool stuck behind it.
 */
function guardClient(client: pg.PoolClient): void {
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
      args[args.length - 1] = (error: unknown, result: unknown) => callback(error && fail(error), result);
      return query(...args);
    }
    const result = query(...args);
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

function openPostgres(url: string, max: number, timeoutMs: number, lockConnections: number): Database {
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
  pool.on('connect', guardClient);
  const db: Db = drizzlePg({ client: pool, schema });
  const channel = postgresChannel(url, pool);
  const locks = advisoryLocks(url, lockConnections, timeoutMs);
  return {
    kind: 'postgres',
    db,
    channel,
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

/** Rows of a raw SQL query, the same on both engines (their drivers' result shapes differ otherwise). */
export async function queryRows<T>(db: Db, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown as { rows: T[] };
  return result.rows;
}

/**
 * Quick check used by the health endpoints: `select 1`, failing with DatabaseUnavailableError when
 * it fails or takes longer than `timeoutMs` (PGlite cannot be interrupted: the answer stops waiting).
 */
export async function pingDatabase(db: Db, timeoutMs = DEFAULT_DATABASE_TIMEOUT_MS): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer in ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([db.execute(sql`select 1`), timeout]);
  } catch (error) {
    throw isDatabaseUnavailable(error) ? error : new DatabaseUnavailableError(error);
  } finally {
    clearTimeout(timer);
  }
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
