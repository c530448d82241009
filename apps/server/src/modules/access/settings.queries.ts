import { eq } from 'drizzle-orm';
import type { Db } from '../../platform/db/index.ts';
import { securitySettings } from './access.schema.ts';

export async function readSetting(db: Db, key: string): Promise<unknown> {
  const rows = await db.select().from(securitySettings).where(eq(securitySettings.key, key)).limit(1);
  return rows[0]?.value;
}

export async function writeSetting(db: Db, key: string, value: unknown): Promise<void> {
  await db
    .insert(securitySettings)
    .values({ key, value })
    .onConflictDoUpdate({ target: securitySettings.key, set: { value, updatedAt: new Date() } });
}
