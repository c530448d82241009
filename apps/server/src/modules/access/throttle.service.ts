import { eq, inArray } from 'drizzle-orm';
import type { Db } from '../../platform/db/index.ts';
import { loginThrottle } from './access.schema.ts';

/**
 * Sign-in brute-force throttling, per account and per address. After `accountLimit` failures for a
 * name (known or not: the answer must not reveal which names exist) or `addressLimit` failures from
 * one address, sign-ins are refused for a lockout that doubles each time (1 min, 2, 4, … up to 1 h).
 * Failures older than `decayMs` are forgotten. An admin can unlock an account.
 */
export const THROTTLE = {
  accountLimit: 5,
  addressLimit: 20,
  baseLockoutMs: 60_000,
  maxLockoutMs: 60 * 60_000,
  decayMs: 15 * 60_000,
} as const;

export const accountKey = (name: string) => `user:${name.toLowerCase()}`;
export const addressKey = (ip: string) => `ip:${ip}`;

export async function lockedUntil(db: Db, keys: string[], now = new Date()): Promise<Date | null> {
  const rows = await db.select().from(loginThrottle).where(inArray(loginThrottle.key, keys));
  let until: Date | null = null;
  for (const row of rows)
    if (row.lockedUntil && row.lockedUntil > now && (!until || row.lockedUntil > until))
      until = row.lockedUntil;
  return until;
}

/** Counts one failure against each key; answers whether one of them is now locked. */
export async function recordFailure(db: Db, keys: { key: string; limit: number }[], now = new Date()) {
  let locked = false;
  for (const { key, limit } of keys) {
    const row = (await db.select().from(loginThrottle).where(eq(loginThrottle.key, key)).limit(1))[0];
    const stale = !row || now.getTime() - row.lastFailureAt.getTime() > THROTTLE.decayMs;
    let failures = (stale ? 0 : row.failures) + 1;
    // Lockouts keep growing while failures keep coming; a quiet period forgets them too.
    let lockouts =
      row && now.getTime() - row.lastFailureAt.getTime() < THROTTLE.maxLockoutMs * 2 ? row.lockouts : 0;
    let until: Date | null = row?.lockedUntil ?? null;
    if (failures >= limit) {
      const ms = Math.min(THROTTLE.baseLockoutMs * 2 ** lockouts, THROTTLE.maxLockoutMs);
      until = new Date(now.getTime() + ms);
      lockouts += 1;
      failures = 0;
      locked = true;
    }
    await db
      .insert(loginThrottle)
      .values({ key, failures, lockouts, lockedUntil: until, lastFailureAt: now })
      .onConflictDoUpdate({
        target: loginThrottle.key,
        set: { failures, lockouts, lockedUntil: until, lastFailureAt: now },
      });
  }
  return locked;
}

/** A successful sign-in forgets the account's failures. */
export async function clearThrottle(db: Db, key: string): Promise<void> {
  await db.delete(loginThrottle).where(eq(loginThrottle.key, key));
}
