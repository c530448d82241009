import { eq, ne, sql } from 'drizzle-orm';
import type { Executor } from '../../platform/events/index.ts';
import { proxies, reverseProxySettings } from './proxies.schema.ts';

export type ProxyRow = typeof proxies.$inferSelect;
export type NewProxyRow = typeof proxies.$inferInsert;

export function listProxyRows(db: Executor): Promise<ProxyRow[]> {
  return db.select().from(proxies).orderBy(proxies.key);
}

/** The proxy whose key is `key` in any case (keys are unique regardless of case). */
export async function findProxyRow(db: Executor, key: string): Promise<ProxyRow | undefined> {
  const [row] = await db.select().from(proxies).where(sql`lower(${proxies.key}) = lower(${key})`);
  return row;
}

/** Another proxy loses its default flag (before this one takes it: the partial unique index holds one). */
export async function clearOtherDefaults(db: Executor, key: string): Promise<void> {
  await db.update(proxies).set({ isDefault: false }).where(ne(proxies.key, key));
}

export async function insertProxyRow(db: Executor, row: NewProxyRow): Promise<void> {
  await db.insert(proxies).values(row);
}

export async function updateProxyRow(db: Executor, key: string, set: Partial<NewProxyRow>): Promise<void> {
  await db
    .update(proxies)
    .set({ ...set, updatedAt: sql`now()` })
    .where(eq(proxies.key, key));
}

export async function deleteProxyRow(db: Executor, key: string): Promise<boolean> {
  const rows = await db.delete(proxies).where(eq(proxies.key, key)).returning({ key: proxies.key });
  return rows.length > 0;
}

export async function readReverseProxyRow(db: Executor): Promise<unknown | undefined> {
  const [row] = await db.select().from(reverseProxySettings).where(eq(reverseProxySettings.key, 'default'));
  return row?.value;
}

export async function writeReverseProxyRow(db: Executor, value: unknown): Promise<void> {
  await db
    .insert(reverseProxySettings)
    .values({ key: 'default', value })
    .onConflictDoUpdate({ target: reverseProxySettings.key, set: { value, updatedAt: sql`now()` } });
}
