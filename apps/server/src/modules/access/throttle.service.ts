import { eq, inArray, like, or } from 'drizzle-orm';
import type { Db } from '../../platform/db/index.ts';
import { type Executor, publish } from '../../platform/events/index.ts';
import { findUserByName } from './access.queries.ts';
import { loginThrottle } from './access.schema.ts';

/**
 * Sign-in brute-force throttling (issue 12 §3: the address is locked before the account, so an
 * anonymous party cannot easily lock a user, the last admin included, out):
 * - `pairLimit` failures for one name from one address lock that address for that name;
 * - `addressLimit` failures from one address (any names) lock the address for every name;
 * - `accountLimit` failures for one name lock the name for every address, but only failures from
 *   addresses never yet locked out for that name count: one address alone can never lock an
 *   account, it takes failures from at least `accountLimit / pairLimit` addresses.
 * A lockout lasts 1 min, doubling each time up to 1 h; failures older than `decayMs` are forgotten.
 * Names known or not are throttled alike, so no answer reveals which names exist. An admin (with a
 * token, which no lockout stops), or `granary unlock <name>` on the server, clears a name's locks.
 */
export const THROTTLE = {
  pairLimit: 5,
  addressLimit: 20,
  accountLimit: 20,
  baseLockoutMs: 60_000,
  maxLockoutMs: 60 * 60_000,
  decayMs: 15 * 60_000,
} as const;

export const accountKey = (name: string) => `user:${name.toLowerCase()}`;
export const addressKey = (ip: string) => `ip:${ip}`;
/** One name from one address (the name encoded, so no name can pose as another pair). */
export const pairKey = (name: string, ip: string) => `pair:${ip}|${encodeURIComponent(name.toLowerCase())}`;
const pairsOf = (name: string) => `pair:%|${likeEscape(encodeURIComponent(name.toLowerCase()))}`;

/** Every key that can lock `name` out when asked from `ip`. */
export const signInKeys = (name: string, ip: string) => [pairKey(name, ip), addressKey(ip), accountKey(name)];

export async function lockedUntil(db: Db, keys: string[], now = new Date()): Promise<Date | null> {
  const rows = await db.select().from(loginThrottle).where(inArray(loginThrottle.key, keys));
  let until: Date | null = null;
  for (const row of rows)
    if (row.lockedUntil && row.lockedUntil > now && (!until || row.lockedUntil > until))
      until = row.lockedUntil;
  return until;
}

/** Until when `name` is locked for every address or for some address (what an admin's user view shows). */
export async function accountLockedUntil(db: Db, name: string, now = new Date()): Promise<Date | null> {
  const rows = await db
    .select()
    .from(loginThrottle)
    .where(or(eq(loginThrottle.key, accountKey(name)), like(loginThrottle.key, pairsOf(name))));
  return lockedUntil(
    db,
    rows.map((r) => r.key),
    now,
  );
}

function likeEscape(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** Counts one failure against each key; answers the keys it locked now (none: nothing locked). */
export async function recordFailure(
  db: Executor,
  keys: { key: string; limit: number }[],
  now = new Date(),
): Promise<string[]> {
  const locked: string[] = [];
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
      locked.push(key);
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

/**
 * One failed sign-in (password or one-time code) for `name` from `ip`: counted for the pair and the
 * address, and for the account only while this address was never locked out for this name. Answers
 * whether a lock began. When the name (for this address, or everywhere) is locked now and is a user's,
 * `user.locked` (`{user_name}`) is published with the lock (issue 14 §Events); an address locked for every name is
 * the address's lock, not a user's, and a name nobody has is no user.
 */
export async function recordSignInFailure(db: Db, name: string, ip: string, now = new Date()) {
  return db.transaction(async (tx) => {
    const pair = (
      await tx
        .select()
        .from(loginThrottle)
        .where(eq(loginThrottle.key, pairKey(name, ip)))
        .limit(1)
    )[0];
    const pairLockedBefore =
      !!pair && pair.lockouts > 0 && now.getTime() - pair.lastFailureAt.getTime() < THROTTLE.maxLockoutMs * 2;
    const locked = await recordFailure(
      tx,
      [
        { key: pairKey(name, ip), limit: THROTTLE.pairLimit },
        { key: addressKey(ip), limit: THROTTLE.addressLimit },
        ...(pairLockedBefore ? [] : [{ key: accountKey(name), limit: THROTTLE.accountLimit }]),
      ],
      now,
    );
    if (locked.includes(pairKey(name, ip)) || locked.includes(accountKey(name))) {
      const user = await findUserByName(tx, name);
      if (user) await publish(tx, { type: 'user.locked', payload: { user_name: user.name } });
    }
    return locked.length > 0;
  });
}

/** A successful sign-in forgets the name's failures from this address and its account-wide count. */
export async function clearSignInFailures(db: Db, name: string, ip: string): Promise<void> {
  await db.delete(loginThrottle).where(inArray(loginThrottle.key, [accountKey(name), pairKey(name, ip)]));
}

/** Clears every lock of `name` (account-wide and per address), e.g. an admin's unlock. */
export async function clearAccountLocks(db: Db, name: string): Promise<number> {
  const removed = await db
    .delete(loginThrottle)
    .where(or(eq(loginThrottle.key, accountKey(name)), like(loginThrottle.key, pairsOf(name))))
    .returning({ key: loginThrottle.key });
  return removed.length;
}

/** Kept for callers that clear one key (a reset password clears the account's count). */
export async function clearThrottle(db: Db, key: string): Promise<void> {
  await db.delete(loginThrottle).where(eq(loginThrottle.key, key));
}
