import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { cp, rename, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { MIGRATIONS_FOLDER, openDatabase } from '../platform/db/database.ts';

/**
 * Test servers start on a copy of one migrated embedded database instead of creating their own
 * (tests only). A first start creates the PostgreSQL cluster (initdb, in a child process) and runs every
 * migration: about 10 s of CPU on this machine's 2 cores, paid by each of the ~40 server processes the
 * client, process and browser suites start. The copy takes a fraction of a second; the server still runs
 * its migrations at start (none left to apply), so what it boots on is exactly what a fresh install has.
 *
 * The seed lives in the OS temp folder under a name made of PGlite's version and the migrations' contents:
 * a new migration or a PGlite upgrade makes a new seed. Concurrent test processes build it at most once
 * each and publish it by an atomic rename, so no process ever copies a half-written one.
 */
function seedKey(): string {
  const hash = createHash('sha256');
  // The package does not export its package.json: find it above its entry point.
  let dir = path.dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
  while (!existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
  hash.update(JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')).version as string);
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
      a.name.localeCompare(b.name),
    )) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else hash.update(entry.name).update(readFileSync(file));
    }
  };
  walk(MIGRATIONS_FOLDER);
  return hash.digest('hex').slice(0, 16);
}

let ready: Promise<string> | undefined;

async function seedFolder(): Promise<string> {
  const seed = path.join(os.tmpdir(), `granary-pglite-seed-${seedKey()}`);
  if (existsSync(path.join(seed, 'PG_VERSION'))) return seed;
  const building = `${seed}.${process.pid}-${randomUUID()}`;
  try {
    const database = await openDatabase({ dataDir: building });
    await database.migrate();
    await database.close();
    await rename(building, seed);
  } catch (err) {
    // Another process published it first (the rename found a folder there): use theirs.
    if (!existsSync(path.join(seed, 'PG_VERSION'))) throw err;
  } finally {
    await rm(building, { recursive: true, force: true });
  }
  return seed;
}

/** Puts a migrated embedded database into `home` (as `db/`), for a server process about to start there. */
export async function seedPgliteHome(home: string): Promise<void> {
  ready ??= seedFolder();
  await cp(await ready, path.join(home, 'db'), { recursive: true });
}
