import { ACCESS_MESSAGES, AccessErrorCode, SESSION_COOKIE } from '@granary/contracts';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  basicAuth,
  createTestApp,
  TEST_ADMIN_PASSWORD,
  type TestApp,
  testEngine,
} from '../../testing/index.ts';
import { loginThrottle } from './access.schema.ts';
import {
  accountLockedUntil,
  clearAccountLocks,
  pairKey,
  recordSignInFailure,
  THROTTLE,
} from './throttle.service.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
const PW = 'Lock-user-Pa55word!';
const V1 = '/ui/api/v1';

function cookieOf(res: { headers: Record<string, unknown> }): string {
  const m = new RegExp(`${SESSION_COOKIE}=([^;]*)`).exec(String(res.headers['set-cookie'] ?? ''));
  return m ? `${SESSION_COOKIE}=${m[1]}` : '';
}

describe(`issue 12 §3, §23: nobody locks the admin out (${testEngine})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    await t.app.inject({
      method: 'PUT',
      url: '/api/security/users/greta',
      headers: { authorization: ADMIN },
      payload: { password: PW },
    });
  });
  afterAll(async () => {
    await t?.close();
  });
  const login = (user: string, password: string, remoteAddress: string) =>
    t.app.inject({
      method: 'POST',
      url: `${V1}/ui/auth/login`,
      remoteAddress,
      payload: { user, password, type: 'login' },
    });
  const audit = async () =>
    (await t.app.inject({ url: '/api/security/audit?limit=500', headers: { authorization: ADMIN } })).json()
      .events as {
      action: string;
      actor: string | null;
      target: string | null;
      ip: string;
      result: string;
    }[];

  it("issue 12 §3: changePassword naming the admin, by another signed-in user, is refused (403) before any password check: it never counts as the admin's failure, and the audit names the real caller and address", async () => {
    const greta = await login('greta', PW, '198.51.100.20');
    const cookie = cookieOf(greta);
    for (let i = 0; i < THROTTLE.pairLimit + 2; i++) {
      const res = await t.app.inject({
        method: 'POST',
        url: `${V1}/changePassword?prefix=changePassword`,
        remoteAddress: '198.51.100.20',
        headers: { cookie, 'x-granary-csrf': '1' },
        payload: {
          userName: 'admin',
          oldPassword: `guess-${i}`,
          newPassword1: 'N3w-Passw0rd!',
          newPassword2: 'N3w-Passw0rd!',
        },
      });
      expect(res.statusCode).toBe(403);
      expect(res.json().errors[0].message).toBe(ACCESS_MESSAGES.changeOthersPassword);
    }
    expect((await login('admin', TEST_ADMIN_PASSWORD, '198.51.100.20')).statusCode).toBe(200);
    const events = await audit();
    const denied = events.filter((e) => e.action === 'password.change' && e.target === 'admin');
    expect(denied.length).toBe(THROTTLE.pairLimit + 2);
    for (const e of denied)
      expect(e).toMatchObject({ actor: 'greta', ip: '198.51.100.20', result: 'denied' });
    expect(events.some((e) => e.action === 'login.failure' && e.actor === 'admin')).toBe(false);
  });

  it('issue 12 §3: a change-password attempt by someone not signed in is audited with no actor (the named user is the target) and the caller address', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: `${V1}/changePassword?prefix=changePassword`,
      remoteAddress: '198.51.100.21',
      payload: {
        userName: 'greta',
        oldPassword: 'wrong',
        newPassword1: 'N3w-Passw0rd!',
        newPassword2: 'N3w-Passw0rd!',
      },
    });
    expect(res.statusCode).toBe(401);
    const failure = (await audit()).find((e) => e.action === 'login.failure' && e.ip === '198.51.100.21');
    expect(failure).toMatchObject({ actor: null, target: 'greta' });
  });

  it('issue 12 §3, §23: wrong admin passwords from one address lock that address (429 with Retry-After) while the admin signs in from another; one address never locks the account', async () => {
    const attacker = '203.0.113.66';
    for (let i = 0; i < THROTTLE.pairLimit; i++)
      expect((await login('admin', `wrong-${i}`, attacker)).statusCode).toBe(401);
    const locked = await login('admin', TEST_ADMIN_PASSWORD, attacker);
    expect(locked.statusCode).toBe(429);
    expect(locked.json().errors[0].code).toBe(AccessErrorCode.LockedOut);
    const retry = Number(locked.headers['retry-after']);
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(THROTTLE.baseLockoutMs / 1000);
    expect((await login('admin', TEST_ADMIN_PASSWORD, '192.0.2.10')).statusCode).toBe(200);

    // The attacker keeps going as each lockout ends (time passes: the lock is moved into the past).
    for (let round = 0; round < 5; round++) {
      await t.app.granary.database.db
        .update(loginThrottle)
        .set({ lockedUntil: new Date(Date.now() - 1000) })
        .where(eq(loginThrottle.key, pairKey('admin', attacker)));
      await t.app.granary.database.db
        .update(loginThrottle)
        .set({ lockedUntil: new Date(Date.now() - 1000) })
        .where(eq(loginThrottle.key, `ip:${attacker}`));
      for (let i = 0; i < THROTTLE.pairLimit; i++) await login('admin', `again-${round}-${i}`, attacker);
    }
    expect((await login('admin', TEST_ADMIN_PASSWORD, attacker)).statusCode).toBe(429);
    expect((await login('admin', TEST_ADMIN_PASSWORD, '192.0.2.11')).statusCode).toBe(200);
  });

  it('issue 12 §3: failures from many addresses can lock the account; an admin token is never locked out and unlocks it (the lock and its Retry-After are gone)', async () => {
    const token = (
      await t.app.inject({
        method: 'POST',
        url: '/api/security/tokens',
        headers: { authorization: ADMIN },
        payload: { scope: 'applied-permissions/admin', expires_in: 3600 },
      })
    ).json().access_token as string;
    const addresses = Array.from(
      { length: THROTTLE.accountLimit / THROTTLE.pairLimit },
      (_, i) => `203.0.113.${10 + i}`,
    );
    for (const ip of addresses)
      for (let i = 0; i < THROTTLE.pairLimit; i++) await login('greta', `x-${i}`, ip);
    const elsewhere = await login('greta', PW, '192.0.2.50');
    expect(elsewhere.statusCode).toBe(429);
    expect(Number(elsewhere.headers['retry-after'])).toBeGreaterThan(0);
    const user = await t.app.inject({
      url: '/api/security/users/greta',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(user.json().locked).toBe(true);
    const unlock = await t.app.inject({
      method: 'POST',
      url: '/api/security/users/greta/unlock',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(unlock.statusCode).toBe(204);
    expect((await login('greta', PW, '192.0.2.50')).statusCode).toBe(200);
    expect((await login('greta', PW, addresses[0]!)).statusCode).toBe(200);
  });

  it('issue 12 §3: unlocking a name clears only that name’s locks (names with LIKE wildcards do not match others)', async () => {
    const db = t.app.granary.database.db;
    for (let i = 0; i < THROTTLE.pairLimit; i++) {
      await recordSignInFailure(db, 'j_doe', '192.0.2.77');
      await recordSignInFailure(db, 'jxdoe', '192.0.2.77');
      await recordSignInFailure(db, 'j%doe', '192.0.2.77');
    }
    expect(await accountLockedUntil(db, 'jxdoe')).not.toBeNull();
    expect(await clearAccountLocks(db, 'j_doe')).toBe(2);
    expect(await accountLockedUntil(db, 'j_doe')).toBeNull();
    expect(await accountLockedUntil(db, 'jxdoe')).not.toBeNull();
    expect(await accountLockedUntil(db, 'j%doe')).not.toBeNull();
  });
});
