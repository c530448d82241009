import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { type SQL, sql } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { SerialQueue } from '../concurrency/serial-queue.ts';
import { DataChanges } from './data-changes.ts';
import { type NotifyChannel, pgliteChannel } from './notify-channel.ts';
import * as schema from './schema.ts';

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

export interface Database {
  readonly kind: 'pglite' | 'postgres';
  readonly db: Db;
  /** LISTEN/NOTIFY between the nodes on this database (cross-node cache invalidation). */
  readonly channel: NotifyChannel;
  /** This node's completed changes, counted (caches of derived answers compare the count). */
  readonly changes: DataChanges;
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
export const MIGRATION_LOCK_KEY = 0x6772616e617279n;

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

export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  if (opts.url) {
    const poolSize = opts.poolSize ?? 10;
    // The PostgreSQL driver is loaded only when a URL names a server (issue 24, idle memory).
    const { openPostgres } = await import('./postgres.ts');
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
/** The change count of each embedded instance, shared by every handle on it. */
const pgliteChanges = new WeakMap<PGlite, DataChanges>();

/**
 * Counts the instance's completed changes: its statements outside a transaction, and each whole
 * transaction once it has committed (or rolled back: a spare count costs nothing).
 */
function countChanges(client: PGlite): DataChanges {
  const known = pgliteChanges.get(client);
  if (known) return known;
  const changes = new DataChanges();
  pgliteChanges.set(client, changes);
  const query = client.query.bind(client);
  const exec = client.exec.bind(client);
  const transaction = client.transaction.bind(client);
  client.query = ((text: string, ...rest: never[]) =>
    changes.track(text, () => query(text, ...rest))) as PGlite['query'];
  client.exec = ((text: string, ...rest: never[]) =>
    changes.track(text, () => exec(text, ...rest))) as PGlite['exec'];
  client.transaction = ((fn: never) => changes.track(null, () => transaction(fn))) as PGlite['transaction'];
  return changes;
}

function openPglite(client: PGlite): Database {
  const changes = countChanges(client);
  const db: Db = drizzlePglite({ client, schema });
  const channel = pgliteChannel(client);
  const queue = pgliteLocks.get(client) ?? new SerialQueue();
  pgliteLocks.set(client, queue);
  return {
    kind: 'pglite',
    db,
    channel,
    changes,
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
  return (await import('./postgres.ts')).createScratchDatabase(adminUrl);
}
