import { lt } from 'drizzle-orm';
import type { Db } from '../../../platform/db/index.ts';
import { ssoReplay } from './providers.schema.ts';

/**
 * Remembers a one-time value (an authorization code's hash, a SAML assertion id) until `expiresAt`.
 * Answers false when it was already seen, on any node: the primary key lets only the first insert in.
 */
export async function markReplay(db: Db, providerKey: string, id: string, expiresAt: Date): Promise<boolean> {
  // Housekeeping: what has expired can no longer be replayed anyway (the checks refuse it by time).
  await db.delete(ssoReplay).where(lt(ssoReplay.expiresAt, new Date()));
  const rows = await db
    .insert(ssoReplay)
    .values({ id: `${providerKey}:${id}`, providerKey, expiresAt })
    .onConflictDoNothing()
    .returning({ id: ssoReplay.id });
  return rows.length > 0;
}
