import { AccessErrorCode, DEFAULT_TOKEN_EXPIRY_SECS, OTP_HEADER, SESSION_COOKIE } from '@granary/contracts';
import type { InjectOptions } from 'fastify';
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
const PW = 'Mfa-user-Pa55word!';
const V1 = '/ui/api/v1';
const CSRF = { 'x-granary-csrf': '1' };

function cookieOf(res: { headers: Record<string, unknown> }): string {
  const m = new RegExp(`${SESSION_COOKIE}=([^;]*)`).exec(String(res.headers['set-cookie'] ?? ''));
  return m ? `${SESSION_COOKIE}=${m[1]}` : '';
}

/** A code of the next 30-second step: fresh after an enrolment or sign-in that spent the current one. */
const nextCode = (secret: string) => generate({ secret, epoch: Math.floor(Date.now() / 1000) + 30 });

describe(`issue 12 §2: two-step verification is not bypassed with the password (${testEngine})`, () => {
  let t: TestApp;
  const inject = (opts: InjectOptions) => t.app.inject(opts);

  /** Creates `name`, signs in on the console and enrols an authenticator: the session cookie and the secret. */
  async function mfaUser(name: string): Promise<{ cookie: string; secret: string }> {
    await inject({
      method: 'PUT',
      url: `/api/security/users/${name}`,
      headers: { authorization: ADMIN },
      payload: { password: PW },
    });
    const login = await inject({
      method: 'POST',
      url: `${V1}/ui/auth/login`,
      payload: { user: name, password: PW, type: 'login' },
    });
    const cookie = cookieOf(login);
    const enroll = await inject({ url: `${V1}/auth/mfa/enroll/GOOGLE`, headers: { cookie } });
    const secret = enroll.json().secret as string;
    const verified = await inject({
      method: 'POST',
      url: `${V1}/auth/mfa/verify/GOOGLE`,
      headers: { cookie, ...CSRF },
      payload: { otp: await generate({ secret }) },
    });
    expect(verified.statusCode, verified.body).toBe(200);
    return { cookie, secret };
  }

  beforeAll(async () => {
    t = await createTestApp();
    await inject({
      method: 'PUT',
      url: '/api/repositories/npm-local',
      headers: { authorization: ADMIN },
      payload: { rclass: 'local', packageType: 'npm' },
    });
    await inject({
      method: 'PUT',
      url: '/api/repositories/docker-local',
      headers: { authorization: ADMIN },
      payload: { rclass: 'local', packageType: 'docker' },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('issue 12 §2: HTTP Basic with the password of a user with an authenticator is refused (401 MFA_TOKEN_REQUIRED), even right after it worked; it mints no token', async () => {
    await inject({
      method: 'PUT',
      url: '/api/security/users/mira',
      headers: { authorization: ADMIN },
      payload: { password: PW },
    });
    const basic = basicAuth('mira', PW);
    // Before enrolment the password works (and is cached for a minute).
    expect(
      (await inject({ url: '/api/security/tokens', headers: { authorization: basic } })).statusCode,
    ).toBe(200);
    const login = await inject({
      method: 'POST',
      url: `${V1}/ui/auth/login`,
      payload: { user: 'mira', password: PW, type: 'login' },
    });
    const cookie = cookieOf(login);
    const secret = (await inject({ url: `${V1}/auth/mfa/enroll/GOOGLE`, headers: { cookie } })).json().secret;
    await inject({
      method: 'POST',
      url: `${V1}/auth/mfa/verify/GOOGLE`,
      headers: { cookie, ...CSRF },
      payload: { otp: await generate({ secret }) },
    });

    const list = await inject({ url: '/api/security/tokens', headers: { authorization: basic } });
    expect(list.statusCode).toBe(401);
    expect(list.json().errors[0].code).toBe(AccessErrorCode.MfaTokenRequired);
    const mint = await inject({
      method: 'POST',
      url: '/api/security/tokens',
      headers: { authorization: basic },
      payload: { expires_in: 0 },
    });
    expect(mint.statusCode).toBe(401);
    // docker login with the password is refused too
    const docker = await inject({ url: '/v2/token?service=granary', headers: { authorization: basic } });
    expect(docker.statusCode).toBe(401);
    const tokens = await inject({ url: '/api/security/tokens', headers: { authorization: ADMIN } });
    expect(tokens.json().tokens.filter((x: { subject: string }) => x.subject === 'mira')).toEqual([]);
  });

  it('issue 12 §2: an MFA user creates a token only with a fresh one-time code: none → 401 OTP_REQUIRED, wrong → 401, fresh → 200, the same code again → 401; the token works where the password does not', async () => {
    const { cookie, secret } = await mfaUser('mona');
    const create = (otp?: string) =>
      inject({
        method: 'POST',
        url: '/api/security/tokens',
        headers: { cookie, ...CSRF, ...(otp ? { [OTP_HEADER]: otp } : {}) },
        payload: { description: 'ci' },
      });
    const none = await create();
    expect(none.statusCode).toBe(401);
    expect(none.json().errors[0].code).toBe(AccessErrorCode.OtpRequired);
    const wrong = await create('000000');
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().errors[0].code).toBe(AccessErrorCode.InvalidOtp);
    const code = await nextCode(secret);
    const ok = await create(code);
    expect(ok.statusCode, ok.body).toBe(200);
    expect((await create(code)).statusCode).toBe(401);
    const token = ok.json().access_token as string;
    expect(
      (await inject({ url: '/api/security/tokens', headers: { authorization: basicAuth('mona', token) } }))
        .statusCode,
    ).toBe(200);
    // docker login with that token gets its short-lived registry token without a code
    const docker = await inject({
      url: '/v2/token?service=granary',
      headers: { authorization: basicAuth('mona', token) },
    });
    expect(docker.statusCode, docker.body).toBe(200);
    // …but a long-lived token made from a token needs a code again
    const fromToken = await inject({
      method: 'POST',
      url: '/api/security/tokens',
      headers: { authorization: `Bearer ${token}` },
      payload: { expires_in: 0 },
    });
    expect(fromToken.statusCode).toBe(401);
    expect(fromToken.json().errors[0].code).toBe(AccessErrorCode.OtpRequired);
    // An admin acting on someone else needs no code of theirs.
    const byAdmin = await inject({
      method: 'POST',
      url: '/api/security/tokens',
      headers: { authorization: ADMIN },
      payload: { username: 'mona' },
    });
    expect(byAdmin.statusCode).toBe(200);
  });

  it('issue 12 §2: identity token, API key and CLI sign-in confirmation need the code too; the MFA reset needs password and code; re-enrolling over an authenticator is refused', async () => {
    const { cookie, secret } = await mfaUser('nina');
    const identity = await inject({
      method: 'POST',
      url: `${V1}/ui/userIdentifyToken/nina`,
      headers: { cookie, ...CSRF },
      payload: { description: 'docker', expiresIn: 0 },
    });
    expect(identity.statusCode).toBe(401);
    expect(identity.json().errors[0].code).toBe(AccessErrorCode.OtpRequired);
    const apiKey = await inject({
      url: `${V1}/apiKey/nina`,
      headers: { cookie, 'x-granary-reauthentication': basicAuth('nina', PW) },
    });
    expect(apiKey.statusCode).toBe(401);
    expect(apiKey.json().errors[0].code).toBe(AccessErrorCode.OtpRequired);
    const cli = await inject({ method: 'POST', url: '/api/security/cli-registrations', payload: {} });
    const { session } = cli.json();
    const confirm = await inject({
      method: 'POST',
      url: `${V1}/access/cli-registration/${session}/confirm`,
      headers: { cookie, ...CSRF },
    });
    expect(confirm.statusCode).toBe(401);
    expect(
      (await inject({ url: `/api/security/cli-registrations/${session}` })).statusCode,
      'still pending: no token',
    ).toBe(202);
    const reenrol = await inject({ url: `${V1}/auth/mfa/enroll/GOOGLE`, headers: { cookie } });
    expect(reenrol.statusCode).toBe(403);

    const reset = (payload: object) =>
      inject({ method: 'POST', url: `${V1}/auth/mfa/reset`, headers: { cookie, ...CSRF }, payload });
    const passwordOnly = await reset({ password: PW });
    expect(passwordOnly.statusCode).toBe(401);
    expect(passwordOnly.json().errors[0].code).toBe(AccessErrorCode.OtpRequired);
    const mfa = async () =>
      (await inject({ url: '/api/security/users/nina', headers: { authorization: ADMIN } })).json()
        .mfaEnabled;
    expect(await mfa()).toBe(true);
    expect((await reset({ password: PW, otp: await nextCode(secret) })).statusCode).toBe(204);
    expect(await mfa()).toBe(false);
  });

  it("issue 12 §2: npm login (legacy) of an MFA user answers 401 with WWW-Authenticate: OTP and npm's one-time password words; with npm-otp it gets a token", async () => {
    const { secret } = await mfaUser('omar');
    const login = (headers: Record<string, string> = {}) =>
      inject({
        method: 'PUT',
        url: '/repository/npm-local/-/user/org.couchdb.user:omar',
        headers: { 'content-type': 'application/json', ...headers },
        payload: { name: 'omar', password: PW },
      });
    const first = await login();
    expect(first.statusCode).toBe(401);
    expect(first.headers['www-authenticate']).toBe('OTP');
    expect(first.body).toMatch(/one-time pass/);
    const second = await login({ 'npm-otp': await nextCode(secret) });
    expect(second.statusCode, second.body).toBe(201);
    const { token } = second.json();
    const me = await inject({
      url: '/repository/npm-local/-/whoami',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(me.json()).toEqual({ username: 'omar' });
  });

  it('issue 12 §2: a token without expires_in expires after the default (a year, a setting); never-expiring is an explicit expires_in 0, which an admin limit can forbid to non-admins', async () => {
    await inject({
      method: 'PUT',
      url: '/api/security/users/pia',
      headers: { authorization: ADMIN },
      payload: { password: PW },
    });
    const pia = basicAuth('pia', PW);
    const mint = (payload: object) =>
      inject({ method: 'POST', url: '/api/security/tokens', headers: { authorization: pia }, payload });
    const byDefault = await mint({ description: 'default' });
    expect(byDefault.json().expires_in).toBe(DEFAULT_TOKEN_EXPIRY_SECS);
    const never = await mint({ description: 'never', expires_in: 0 });
    expect(never.json().expires_in).toBeNull();
    const list = (await inject({ url: '/api/security/tokens', headers: { authorization: pia } })).json()
      .tokens as { description: string; expiry: number | null }[];
    const expiry = list.find((x) => x.description === 'default')!.expiry!;
    expect(Math.abs(expiry - (Date.now() / 1000 + DEFAULT_TOKEN_EXPIRY_SECS))).toBeLessThan(120);
    expect(list.find((x) => x.description === 'never')!.expiry).toBeNull();

    const limit = await inject({
      method: 'PATCH',
      url: '/api/security/configuration',
      headers: { authorization: ADMIN },
      payload: { tokenMaxExpirySecs: 86_400, tokenDefaultExpirySecs: 3600 },
    });
    expect(limit.json()).toMatchObject({ tokenMaxExpirySecs: 86_400, tokenDefaultExpirySecs: 3600 });
    try {
      expect((await mint({})).json().expires_in).toBe(3600);
      const refused = await mint({ expires_in: 0 });
      expect(refused.statusCode).toBe(400);
      expect(refused.json().errors[0].message).toMatch(/at most 86400 seconds/);
      expect((await mint({ expires_in: 90_000 })).statusCode).toBe(400);
      const admin = await inject({
        method: 'POST',
        url: '/api/security/tokens',
        headers: { authorization: ADMIN },
        payload: { expires_in: 0 },
      });
      expect(admin.json().expires_in).toBeNull();
    } finally {
      await inject({
        method: 'PATCH',
        url: '/api/security/configuration',
        headers: { authorization: ADMIN },
        payload: { tokenMaxExpirySecs: 0, tokenDefaultExpirySecs: DEFAULT_TOKEN_EXPIRY_SECS },
      });
    }
  });
});
