import { readdirSync } from 'node:fs';
import { eq, sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { users } from '../../modules/access/access.schema.ts';
import { createTestDatabase, testDatabaseUrl, testEngine } from '../../testing/index.ts';
import {
  createScratchDatabase,
  type Database,
  MIGRATIONS_FOLDER,
  openDatabase,
  queryRows,
} from './database.ts';

const opened: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const d of opened.splice(0).reverse()) await d.close();
});
async function fresh(): Promise<Database> {
  const d = await createTestDatabase();
  opened.push(d);
  return d;
}

const migrationCount = async (database: Database) =>
  (
    await queryRows<{ n: number }>(
      database.db,
      sql`select count(*)::int as n from drizzle.__drizzle_migrations`,
    )
  )[0]?.n;

describe(`database (${testEngine})`, () => {
  it('applies the versioned migrations: the users table exists and the migration is recorded once', async () => {
    const database = await fresh();
    const tables = await queryRows<{ table_name: string }>(
      database.db,
      sql`select table_name from information_schema.tables where table_schema = 'public'`,
    );
    expect(tables.map((r) => r.table_name)).toContain('users');
    expect(await migrationCount(database)).toBeGreaterThanOrEqual(1);
  });

  it('migrating again is a no-op, also when several migrations run at once', async () => {
    const database = await fresh();
    const before = await migrationCount(database);
    await Promise.all([database.migrate(), database.migrate(), database.migrate()]);
    expect(await migrationCount(database)).toBe(before);
  });

  it('rolls a failed transaction back: nothing half-written is visible', async () => {
    const { db } = await fresh();
    await expect(
      db.transaction(async (tx) => {
        await tx.insert(users).values({ name: 'half', passwordHash: 'x' });
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await db.select().from(users).where(eq(users.name, 'half'))).toEqual([]);
  });

  it('user names are unique regardless of case', async () => {
    const { db } = await fresh();
    await db.insert(users).values({ name: 'Alice', passwordHash: 'x' });
    await expect(db.insert(users).values({ name: 'alice', passwordHash: 'y' })).rejects.toThrow();
    const rows = await db
      .insert(users)
      .values({ name: 'ALICE', passwordHash: 'z' })
      .onConflictDoNothing()
      .returning();
    expect(rows).toEqual([]);
  });
});

// Only on a server: PGlite is one process's own database, so there are no other nodes to race.
if (testDatabaseUrl)
  describe('database on a PostgreSQL server', () => {
    it('several nodes starting at once migrate safely (advisory lock): the schema is applied exactly once', async () => {
      const scratch = await createScratchDatabase(testDatabaseUrl!);
      const nodes = await Promise.all(
        [1, 2, 3, 4].map(() => openDatabase({ url: scratch.url, poolSize: 2 })),
      );
      try {
        await Promise.all(nodes.map((n) => n.migrate()));
        const files = readdirSync(MIGRATIONS_FOLDER).filter((f) => f.endsWith('.sql'));
        expect(await migrationCount(nodes[0]!)).toBe(files.length);
      } finally {
        for (const n of nodes) await n.close();
        await scratch.drop();
      }
    });
  });
