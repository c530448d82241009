import { AccessErrorCode } from '@granary/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  basicAuth,
  createTestApp,
  TEST_ADMIN_PASSWORD,
  type TestApp,
  testEngine,
} from '../../testing/index.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
const PW = 'Walt-pa55word!';
const V1 = '/ui/api/v1';

describe(`self-registration (${testEngine})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    await t.app.inject({
      method: 'PUT',
      url: '/api/security/groups/everyone',
      headers: { authorization: ADMIN },
      payload: { autoJoin: true },
    });
  });
  afterAll(async () => {
    await t?.close();
  });
  const register = (payload: object) =>
    t.app.inject({ method: 'POST', url: `${V1}/ui/auth/register`, payload });
  const toggle = (selfRegistration: boolean) =>
    t.app.inject({
      method: 'PATCH',
      url: '/api/security/configuration',
      headers: { authorization: ADMIN },
      payload: { selfRegistration },
    });

  it('spec 000 §2 registration: off by default (403 REGISTRATION_DISABLED, loginRelatedData canRegister false); on after the admin toggle', async () => {
    const off = await register({ user: 'walt', email: 'walt@example.com', password: PW });
    expect(off.statusCode).toBe(403);
    expect(off.json().errors[0].code).toBe(AccessErrorCode.RegistrationDisabled);
    expect(
      (await t.app.inject({ url: `${V1}/access/api/ui/security/loginRelatedData` })).json().canRegister,
    ).toBe(false);
    await toggle(true);
    expect(
      (await t.app.inject({ url: `${V1}/access/api/ui/security/loginRelatedData` })).json().canRegister,
    ).toBe(true);
    const ok = await register({ user: 'walt', email: 'walt@example.com', password: PW });
    expect(ok.statusCode).toBe(201);
    expect(ok.json()).toEqual({ name: 'walt', email: 'walt@example.com' });
    const login = await t.app.inject({
      method: 'POST',
      url: `${V1}/ui/auth/login`,
      payload: { user: 'walt', password: PW },
    });
    expect(login.statusCode).toBe(200);
    expect(login.json()).toMatchObject({ name: 'walt', admin: false, groups: ['everyone'] });
    const taken = await register({ user: 'WALT', email: 'w2@example.com', password: PW });
    expect(taken.statusCode).toBe(409);
    expect(taken.json().errors[0].code).toBe(AccessErrorCode.UserExists);
    await toggle(false);
  });

  it('spec 000 §2 registration: can never set admin or groups (extra fields are refused with 400) and the password policy applies', async () => {
    await toggle(true);
    for (const extra of [{ admin: true }, { groups: ['everyone'] }, { disabled: false }]) {
      const res = await register({ user: 'xena', email: 'xena@example.com', password: PW, ...extra });
      expect(res.statusCode, JSON.stringify(extra)).toBe(400);
    }
    const weak = await register({ user: 'xena', email: 'xena@example.com', password: 'weak' });
    expect(weak.statusCode).toBe(400);
    expect(weak.json().errors[0].code).toBe(AccessErrorCode.WeakPassword);
    const reserved = await register({ user: 'anonymous', email: 'a@example.com', password: PW });
    expect(reserved.statusCode).toBe(400);
    const user = await t.app.inject({ url: '/api/security/users/xena', headers: { authorization: ADMIN } });
    expect(user.statusCode).toBe(404);
    await toggle(false);
  });
});
