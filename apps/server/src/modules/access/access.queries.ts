import { eq, sql } from 'drizzle-orm';
import type { Db } from '../../platform/db/index.ts';
import { users } from './access.schema.ts';

export type UserRow = typeof users.$inferSelect;

export async function findUserByName(db: Db, name: string): Promise<UserRow | undefined> {
  const rows = await db
    .select()
    .from(users)
    .where(eq(sql`lower(${users.name})`, name.toLowerCase()))
    .limit(1);
  return rows[0];
}

export async function countUsers(db: Db): Promise<number> {
  const rows = await db.select({ n: sql<number>`count(*)::int` }).from(users);
  return rows[0]?.n ?? 0;
}

/** Inserts a user unless the name is taken; answers whether it was inserted. */
export async function insertUserIfAbsent(
  db: Db,
  user: { name: string; passwordHash: string; admin: boolean; email?: string },
): Promise<boolean> {
  const rows = await db.insert(users).values(user).onConflictDoNothing().returning({ id: users.id });
  return rows.length > 0;
}

export async function listUserNames(db: Db): Promise<string[]> {
  const rows = await db.select({ name: users.name }).from(users).orderBy(users.name);
  return rows.map((r) => r.name);
}
