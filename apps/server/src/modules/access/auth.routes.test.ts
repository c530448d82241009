import { readFileSync } from 'node:fs';
import { ACCESS_MESSAGES, AccessErrorCode, SESSION_COOKIE, userDataSchema } from '@granary/contracts';
import { generate } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  basicAuth,
  createTestApp,
  TEST_ADMIN_PASSWORD,
  type TestApp,
  testEngine,
} from '../../testing/index.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
const PW = 'Gina-pa55word!';
const V1 = '/ui/api/v1';

function cookieOf(res: { headers: Record<string, unknown> }): string {
  const set = String(res.headers['set-cookie'] ?? '');
  const m = new RegExp(`${SESSION_COOKIE}=([^;]*)`).exec(set);
  return m ? `${SESSION_COOKIE}=${m[1]}` : '';
}
/** A new session's cookie: 32 random bytes, base64url. */
const NEW_SESSION = new RegExp(`^${SESSION_COOKIE}=[\\w-]{43}$`);

describe(`console sessions, lockout and MFA (${testEngine})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    for (const name of ['gina', 'hank', 'ivy', 'jack'])
      await t.app.inject({
        method: 'PUT',
        url: `/api/security/users/${name}`,
        headers: { authorization: ADMIN },
        payload: { password: PW, email: `${name}@example.com` },
      });
  });
  afterAll(async () => {
    await t?.close();
  });
  const login = (user: string, password: string, remember = false) =>
    t.app.inject({
      method: 'POST',
      url: `${V1}/ui/auth/login?_spring_security_remember_me=${remember}`,
      payload: { user, password, type: 'login' },
    });

  it('spec 000 §7: POST ui/auth/login answers user data with mfaStatus and sets an HttpOnly, SameSite=Lax session cookie; GET ui/auth/current knows the user', async () => {
    const res = await login('gina', PW);
    expect(res.statusCode).toBe(200);
    expect(userDataSchema.parse(res.json())).toMatchObject({
      name: 'gina',
      admin: false,
      mfaStatus: 'NONE',
      realm: 'internal',
      anonymous: false,
    });
    const set = String(res.headers['set-cookie']);
    expect(set).toMatch(/HttpOnly/);
    expect(set).toMatch(/SameSite=Lax/);
    expect(set).not.toMatch(/Max-Age/);
    expect(set).not.toMatch(/Secure/);
    const current = await t.app.inject({ url: `${V1}/ui/auth/current`, headers: { cookie: cookieOf(res) } });
    expect(current.json()).toMatchObject({ name: 'gina', anonymous: false });
    const anon = await t.app.inject({ url: `${V1}/ui/auth/current` });
    expect(anon.json()).toMatchObject({ name: 'anonymous', anonymous: true, anonAccessEnabled: false });
  });

  it('spec 000 §7: POST access/auth/login {username, password, rememberMe}; remember-me makes the cookie persistent; each login gets a new session id', async () => {
    const a = await t.app.inject({
      method: 'POST',
      url: `${V1}/access/auth/login`,
      payload: { username: 'gina', password: PW, rememberMe: true },
    });
    expect(a.statusCode).toBe(200);
    expect(String(a.headers['set-cookie'])).toMatch(/Max-Age=\d+/);
    const b = await t.app.inject({
      method: 'POST',
      url: `${V1}/access/auth/login`,
      payload: { username: 'gina', password: PW },
    });
    expect(cookieOf(b)).toMatch(NEW_SESSION);
    expect(cookieOf(a)).not.toBe(cookieOf(b));
  });

  it('CSRF: a state-changing call with the session cookie needs X-Granary-CSRF, else 403; with it, it works', async () => {
    const res = await login('gina', PW);
    const cookie = cookieOf(res);
    const without = await t.app.inject({
      method: 'POST',
      url: '/api/security/tokens',
      headers: { cookie },
      payload: {},
    });
    expect(without.statusCode).toBe(403);
    expect(without.json().errors[0].code).toBe(AccessErrorCode.CsrfMissing);
    const withHeader = await t.app.inject({
      method: 'POST',
      url: '/api/security/tokens',
      headers: { cookie, 'x-granary-csrf': '1' },
      payload: {},
    });
    expect(withHeader.statusCode).toBe(200);
    expect((await t.app.inject({ url: '/api/security/tokens', headers: { cookie } })).statusCode).toBe(200);
  });

  it('spec 000 §7: POST ui/auth/logout ends the session', async () => {
    const cookie = cookieOf(await login('gina', PW));
    const out = await t.app.inject({
      method: 'POST',
      url: `${V1}/ui/auth/logout`,
      headers: { cookie, 'x-granary-csrf': '1' },
    });
    expect(out.statusCode).toBe(204);
    expect(String(out.headers['set-cookie'])).toMatch(/Max-Age=0/);
    expect((await t.app.inject({ url: `${V1}/ui/auth/current`, headers: { cookie } })).json().anonymous).toBe(
      true,
    );
  });

  it('spec 000 §3, §7: loginRelatedData answers forgotPassword, canRememberMe, ssoProviderLink; ui/auth/redirect honours only same-origin paths', async () => {
    const data = await t.app.inject({ url: `${V1}/access/api/ui/security/loginRelatedData` });
    expect(data.json()).toEqual({
      forgotPassword: true,
      canRememberMe: true,
      ssoProviderLink: null,
      canRegister: false,
      accountPortalUrl: null,
    });
    const ask = async (to: string) =>
      (await t.app.inject({ url: `${V1}/ui/auth/redirect`, query: { redirectTo: to } })).json().url;
    expect(await ask('/ui/packages?x=1')).toBe('/ui/packages?x=1');
    for (const bad of [
      'https://evil.example/',
      '//evil.example/x',
      '/\\evil.example',
      'javascript:alert(1)',
      'ui/x',
    ])
      expect(await ask(bad), bad).toBe('/ui/');
  });

  it('brute force: 5 failures lock the account; the lockout answer is identical for an unknown user; an admin unlocks', async () => {
    for (let i = 0; i < 5; i++)
      expect((await login('hank', 'wrong')).json().errors[0].message).toBe(ACCESS_MESSAGES.badCredentials);
    for (let i = 0; i < 5; i++)
      expect((await login('nobody-here', 'wrong')).json().errors[0].message).toBe(
        ACCESS_MESSAGES.badCredentials,
      );
    const known = await login('hank', PW);
    const unknown = await login('nobody-here', PW);
    expect(known.statusCode).toBe(429);
    expect(unknown.statusCode).toBe(known.statusCode);
    expect(unknown.json()).toEqual(known.json());
    expect(known.json().errors[0].message).toBe(ACCESS_MESSAGES.lockedOut);
    // Basic auth is locked too
    expect(
      (await t.app.inject({ url: '/api/security/tokens', headers: { authorization: basicAuth('hank', PW) } }))
        .statusCode,
    ).toBe(429);
    const user = await t.app.inject({ url: '/api/security/users/hank', headers: { authorization: ADMIN } });
    expect(user.json().locked).toBe(true);
    const unlock = await t.app.inject({
      method: 'POST',
      url: '/api/security/users/hank/unlock',
      headers: { authorization: ADMIN },
    });
    expect(unlock.statusCode).toBe(204);
    expect((await login('hank', PW)).statusCode).toBe(200);
    const audit = await t.app.inject({
      url: '/api/security/audit?limit=200',
      headers: { authorization: ADMIN },
    });
    const actions = audit.json().events.map((e: { action: string }) => e.action);
    expect(actions).toEqual(
      expect.arrayContaining([
        'login.failure',
        'login.lockout',
        'login.locked',
        'user.unlock',
        'login.success',
      ]),
    );
  });

  it('spec 000 §8: an expired password makes login answer credentials expired (access login: first error code PASSWORD_EXPIRED)', async () => {
    await t.app.inject({
      method: 'POST',
      url: '/api/security/users/jack',
      headers: { authorization: ADMIN },
      payload: { passwordExpired: true },
    });
    const ui = await login('jack', PW);
    expect(ui.statusCode).toBe(403);
    expect(ui.json().errors[0]).toMatchObject({
      code: AccessErrorCode.CredentialsExpired,
      message: ACCESS_MESSAGES.credentialsExpired,
    });
    expect(cookieOf(ui)).toBe('');
    const access = await t.app.inject({
      method: 'POST',
      url: `${V1}/access/auth/login`,
      payload: { username: 'jack', password: PW },
    });
    expect(access.json().errors[0].code).toBe(AccessErrorCode.PasswordExpired);
  });

  it('spec 000 §4: MFA — with MFA required login answers ENROLL (a pending session that is not signed in); enrol + verify opens a session; next login answers VERIFY', async () => {
    await t.app.inject({
      method: 'PATCH',
      url: '/api/security/configuration',
      headers: { authorization: ADMIN },
      payload: { mfaRequired: true },
    });
    const first = await login('ivy', PW);
    expect(first.json().mfaStatus).toBe('ENROLL');
    const pending = cookieOf(first);
    expect(
      (await t.app.inject({ url: `${V1}/ui/auth/current`, headers: { cookie: pending } })).json().anonymous,
    ).toBe(true);
    expect(
      (await t.app.inject({ url: '/api/security/tokens', headers: { cookie: pending } })).statusCode,
    ).toBe(401);
    const enroll = await t.app.inject({ url: `${V1}/auth/mfa/enroll/google`, headers: { cookie: pending } });
    expect(enroll.statusCode).toBe(200);
    const { secret, otpauthUri } = enroll.json();
    expect(otpauthUri).toMatch(/^otpauth:\/\/totp\//);
    const bad = await t.app.inject({
      method: 'POST',
      url: `${V1}/auth/mfa/verify/google`,
      headers: { cookie: pending, 'x-granary-csrf': '1' },
      payload: { otp: '000000', type: 'GOOGLE' },
    });
    expect(bad.statusCode).toBe(400);
    const ok = await t.app.inject({
      method: 'POST',
      url: `${V1}/auth/mfa/verify/google`,
      headers: { cookie: pending },
      payload: { otp: await generate({ secret }), type: 'GOOGLE' },
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ name: 'ivy', mfaStatus: 'NONE' });
    const full = cookieOf(ok);
    expect(full).not.toBe(pending);
    expect(
      (await t.app.inject({ url: `${V1}/ui/auth/current`, headers: { cookie: full } })).json().name,
    ).toBe('ivy');

    const second = await login('ivy', PW);
    expect(second.json().mfaStatus).toBe('VERIFY');
    // Without a pending session the MFA calls answer 403 (spec 000 §8: back to login).
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: `${V1}/access/auth/mfa/verify/google`,
          payload: { otp: '123456' },
        })
      ).statusCode,
    ).toBe(403);
    await t.app.inject({
      method: 'PATCH',
      url: '/api/security/configuration',
      headers: { authorization: ADMIN },
      payload: { mfaRequired: false },
    });
  });

  it('no password or session id reaches any log file', async () => {
    const res = await login('gina', PW);
    const sid = cookieOf(res).split('=')[1]!;
    await t.app.inject({ url: `${V1}/ui/auth/current`, headers: { cookie: cookieOf(res) } });
    t.app.granary.logging.flush();
    for (const file of ['server.log', 'request.log', 'security.log']) {
      const text = readFileSync(`${t.app.granary.logging.dir}/${file}`, 'utf8');
      expect(text).not.toContain(PW);
      expect(text).not.toContain(sid);
    }
  });
});
