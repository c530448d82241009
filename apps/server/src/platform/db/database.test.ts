import { eq, sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { users } from '../../modules/access/access.schema.ts';
import { createTestDatabase, testDatabaseUrl, testEngine } from '../../testing/index.ts';
import { createScratchDatabase, type Database, openDatabase } from './database.ts';

const opened: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const d of opened.splice(0).reverse()) await d.close();
});
async function fresh(): Promise<Database> {
  const d = await createTestDatabase();
  opened.push(d);
  return d;
}

describe(`database (${testEngine})`, () => {
  it('applies the versioned migrations: the users table exists and the migration is recorded once', async () => {
    const { db } = await fresh();
    const tables = await db.execute<{ table_name: string }>(
      sql`select table_name from information_schema.tables where table_schema = 'public'`,
    );
    expect(tables.rows.map((r) => r.table_name)).toContain('users');
    const applied = await db.execute<{ n: number }>(sql`select count(*)::int as n from drizzle.__drizzle_migrations`);
    expect(applied.rows[0]?.n).toBeGreaterThanOrEqual(1);
  });

  it('migrating again is a no-op, also when several migrations run at once', async () => {
    const database = await fresh();
    const before = await database.db.execute<{ n: number }>(
      sql`select count(*)::int as n from drizzle.__drizzle_migrations`,
    );
    await Promise.all([database.migrate(), database.migrate(), database.migrate()]);
    const after = await database.db.execute<{ n: number }>(
      sql`select count(*)::int as n from drizzle.__drizzle_migrations`,
    );
    expect(after.rows[0]?.n).toBe(before.rows[0]?.n);
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
    const rows = await db.insert(users).values({ name: 'ALICE', passwordHash: 'z' }).onConflictDoNothing().returning();
    expect(rows).toEqual([]);
  });
});

// Only on a server: PGlite is one process's own database, so there are no other nodes to race.
if (testDatabaseUrl) describe('database on a PostgreSQL server', () => {
  it('several nodes starting at once migrate safely (advisory lock): the schema is applied exactly once', async () => {
    const scratch = await createScratchDatabase(testDatabaseUrl!);
    const nodes = await Promise.all([1, 2, 3, 4].map(() => openDatabase({ url: scratch.url, poolSize: 2 })));
    try {
      await Promise.all(nodes.map((n) => n.migrate()));
      const applied = await nodes[0]!.db.execute<{ n: number }>(
        sql`select count(*)::int as n from drizzle.__drizzle_migrations`,
      );
      const files = (await import('node:fs')).readdirSync((await import('./database.ts')).MIGRATIONS_FOLDER);
      expect(applied.rows[0]?.n).toBe(files.filter((f) => f.endsWith('.sql')).length);
    } finally {
      for (const n of nodes) await n.close();
      await scratch.drop();
    }
  });
});
