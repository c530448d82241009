import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../app.ts';
import { type Config, type ConfigInput, parseConfig } from '../config/index.ts';
import { bootPglite, createScratchDatabase, type Database, openDatabase } from '../platform/db/index.ts';

/**
 * Test support. The db and API suites run on embedded PGlite by default and on a real
 * PostgreSQL server when `GRANARY_TEST_DATABASE_URL` names one (CI runs both): each suite
 * then gets a database of its own on that server.
 */
export const TEST_ADMIN_PASSWORD = 'Test-admin-Pa55word!';
/** The master key of test apps given a database (nodes sharing one database share the key). */
export const SHARED_TEST_MASTER_KEY = Buffer.alloc(32, 0x5a).toString('base64');
export const testDatabaseUrl = process.env.GRANARY_TEST_DATABASE_URL || undefined;
export const testEngine: Database['kind'] = testDatabaseUrl ? 'postgres' : 'pglite';

let template: Promise<PGlite> | undefined;

/** A fresh, migrated database: a clone of a migrated PGlite template (booted once per test file), or a new PostgreSQL database. */
export async function createTestDatabase(): Promise<Database & { url?: string }> {
  if (testDatabaseUrl) {
    const scratch = await createScratchDatabase(testDatabaseUrl);
    const database = await openDatabase({ url: scratch.url, poolSize: 4 });
    await database.migrate();
    return {
      ...database,
      url: scratch.url,
      migrate: () => database.migrate(),
      async close() {
        await database.close();
        await scratch.drop();
      },
    };
  }
  template ??= (async () => {
    const pglite = await bootPglite();
    await (await openDatabase({ pglite })).migrate();
    return pglite;
  })();
  return openDatabase({ pglite: (await (await template).clone()) as PGlite });
}

/**
 * Two handles on one fresh database, as two nodes see it: each with its own connections and its own
 * LISTEN channel (on PGlite, two handles on one embedded instance). The database goes when both are closed.
 */
export async function createTestDatabasePair(): Promise<[Database, Database]> {
  let open = 2;
  if (testDatabaseUrl) {
    const first = await createTestDatabase();
    const second = await openDatabase({ url: first.url!, poolSize: 4 });
    const closeOne = async (database: Database) => {
      await database.channel.close();
      if (--open > 0) return;
      await second.close();
      await first.close();
    };
    return [
      { ...first, close: () => closeOne(first) },
      { ...second, close: () => closeOne(second) },
    ];
  }
  template ??= (async () => {
    const pglite = await bootPglite();
    await (await openDatabase({ pglite })).migrate();
    return pglite;
  })();
  const pglite = (await (await template).clone()) as PGlite;
  const handle = async (): Promise<Database> => {
    const database = await openDatabase({ pglite });
    return {
      ...database,
      async close() {
        await database.channel.close();
        if (--open === 0) await database.close();
      },
    };
  };
  return [await handle(), await handle()];
}

export async function makeTempHome(): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), 'granary-test-'));
}

export function testConfig(home: string, overrides: Partial<ConfigInput> = {}): Config {
  return parseConfig({
    home,
    port: 0,
    host: '127.0.0.1',
    adminPassword: TEST_ADMIN_PASSWORD,
    logStdout: false,
    logLevel: 'info',
    ...overrides,
  });
}

export interface TestApp {
  app: FastifyInstance;
  home: string;
  config: Config;
  close(): Promise<void>;
}

/** Builds the app exactly as production does, on a temp home and a fresh database. */
export async function createTestApp(
  overrides: Partial<ConfigInput> = {},
  opts: {
    home?: string;
    print?: (line: string) => void;
    /** A database to use (closed with the app), e.g. one of `createTestDatabasePair()`. */
    database?: Database;
    /** The app's clock (`AppDeps.now`: expiries, time-limited caches): tests move it instead of sleeping. */
    now?: () => number;
  } = {},
): Promise<TestApp> {
  const home = opts.home ?? (await makeTempHome());
  // Nodes sharing a database share its master key (issue 18: another key fails start-up).
  const config = testConfig(
    home,
    opts.database && !overrides.masterKey ? { masterKey: SHARED_TEST_MASTER_KEY, ...overrides } : overrides,
  );
  const database = opts.database ?? (await createTestDatabase());
  const app = await buildApp(config, { database, print: opts.print ?? (() => {}), now: opts.now });
  return {
    app,
    home,
    config,
    async close() {
      await app.close();
      if (!opts.home) await rm(home, { recursive: true, force: true });
    },
  };
}

export function basicAuth(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}
