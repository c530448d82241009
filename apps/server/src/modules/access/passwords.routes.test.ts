import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { AccessErrorCode, SESSION_COOKIE } from '@granary/contracts';
import { eq } from 'drizzle-orm';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  basicAuth,
  createTestApp,
  TEST_ADMIN_PASSWORD,
  type TestApp,
  testEngine,
} from '../../testing/index.ts';
import { passwordResetKeys } from './access.schema.ts';
import { sha256 } from './crypto.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
const PW = 'Olga-pa55word!';
const NEW_PW = 'Brand-n3w-Secret!';
const V1 = '/ui/api/v1';

function cookieOf(res: { headers: Record<string, unknown> }): string {
  const m = new RegExp(`${SESSION_COOKIE}=([^;]*)`).exec(String(res.headers['set-cookie'] ?? ''));
  return m ? `${SESSION_COOKIE}=${m[1]}` : '';
}
/** A new session's cookie: 32 random bytes, base64url. */
const NEW_SESSION = new RegExp(`^${SESSION_COOKIE}=[\\w-]{43}$`);

describe(`forgot, reset and change password (${testEngine})`, () => {
  let t: TestApp;
  let smtp: SMTPServer;
  let port = 0;
  const inbox: { to: string; body: string }[] = [];

  beforeAll(async () => {
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData(stream, session, callback) {
        let body = '';
        stream.on('data', (chunk: Buffer) => {
          body += chunk.toString('utf8');
        });
        stream.on('end', () => {
          inbox.push({ to: session.envelope.rcptTo.map((r) => r.address).join(','), body });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    port = (smtp.server.address() as AddressInfo).port;
    t = await createTestApp({ baseUrl: 'https://granary.example' });
    for (const name of ['olga', 'pete', 'quinn', 'rosa'])
      await t.app.inject({
        method: 'PUT',
        url: `/api/security/users/${name}`,
        headers: { authorization: ADMIN },
        payload: { password: PW, email: `${name}@example.com` },
      });
  });
  afterAll(async () => {
    await t?.close();
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
  });

  const configureMail = (enabled: boolean) =>
    t.app.inject({
      method: 'PATCH',
      url: '/api/security/configuration',
      headers: { authorization: ADMIN },
      payload: { mail: { enabled, host: '127.0.0.1', port, from: 'granary@example.com' } },
    });
  const forgot = (user: string) =>
    t.app.inject({ method: 'POST', url: `${V1}/ui/auth/forgotpassword`, payload: { user } });
  const reset = (key: string, user: string, password: string) =>
    t.app.inject({
      method: 'POST',
      url: `${V1}/ui/auth/resetpassword?key=${encodeURIComponent(key)}`,
      payload: { user, password },
    });
  const login = (user: string, password: string) =>
    t.app.inject({ method: 'POST', url: `${V1}/ui/auth/login`, payload: { user, password } });
  const keyOf = (body: string) => {
    const unfolded = body.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
    const m = /reset-password\?key=([A-Za-z0-9_%-]+)/.exec(unfolded);
    if (!m) throw new Error(`no reset link in ${body}`);
    return decodeURIComponent(m[1]!);
  };

  it('spec 000 §4, §7: forgotpassword mails a single-use reset link through the configured SMTP server; the answer is the same for unknown users', async () => {
    expect((await configureMail(true)).statusCode).toBe(200);
    const known = await forgot('olga');
    const unknown = await forgot('nobody-here');
    expect(known.statusCode).toBe(200);
    expect(known.json()).toEqual(unknown.json());
    expect(known.json().mailConfigured).toBe(true);
    expect(inbox).toHaveLength(1);
    expect(inbox[0]!.to).toBe('olga@example.com');
    expect(inbox[0]!.body).toContain('https://granary.example/ui/auth/reset-password?key');

    const key = keyOf(inbox[0]!.body);
    const valid = await t.app.inject({
      method: 'POST',
      url: `${V1}/validatetoken?key=${encodeURIComponent(key)}`,
    });
    expect(valid.statusCode).toBe(200);
    expect(valid.json()).toEqual({ user: 'olga' });

    const ok = await reset(key, 'olga', NEW_PW);
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ name: 'olga', anonymous: false, mfaStatus: 'NONE' });
    // signed in with rememberMe false: a browser-session cookie
    const cookie = cookieOf(ok);
    expect(cookie).toMatch(NEW_SESSION);
    expect(String(ok.headers['set-cookie'])).not.toMatch(/Max-Age/);
    expect((await t.app.inject({ url: `${V1}/ui/auth/current`, headers: { cookie } })).json().name).toBe(
      'olga',
    );
    expect((await login('olga', PW)).statusCode).toBe(401);
    expect((await login('olga', NEW_PW)).statusCode).toBe(200);

    const again = await reset(key, 'olga', 'An0ther-Secret!');
    expect(again.statusCode).toBe(400);
    expect(again.json().errors[0].code).toBe(AccessErrorCode.InvalidKey);
    const check = await t.app.inject({
      method: 'POST',
      url: `${V1}/validatetoken?key=${encodeURIComponent(key)}`,
    });
    expect(check.statusCode).toBe(400);
    expect(check.json().errors[0].code).toBe(AccessErrorCode.InvalidKey);
  });

  it('spec 000 §4: a reset breaking the password policy is refused (WEAK_PASSWORD) and the key still works; an expired key is refused (INVALID_KEY)', async () => {
    await configureMail(true);
    inbox.length = 0;
    await forgot('pete');
    const key = keyOf(inbox[0]!.body);
    const weak = await reset(key, 'pete', 'short');
    expect(weak.statusCode).toBe(400);
    expect(weak.json().errors[0].code).toBe(AccessErrorCode.WeakPassword);
    const wrongUser = await reset(key, 'quinn', NEW_PW);
    expect(wrongUser.json().errors[0].code).toBe(AccessErrorCode.InvalidKey);
    await t.app.granary.database.db
      .update(passwordResetKeys)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(passwordResetKeys.keyHash, sha256(key)));
    const expired = await reset(key, 'pete', NEW_PW);
    expect(expired.statusCode).toBe(400);
    expect(expired.json().errors[0].code).toBe(AccessErrorCode.InvalidKey);
    expect((await login('pete', PW)).statusCode).toBe(200);
  });

  it('spec 000 §8: without a mail server the answer says so (console: contact an administrator) and the reset key is in security.log, in its own field', async () => {
    await configureMail(false);
    inbox.length = 0;
    const res = await forgot('quinn');
    expect(res.statusCode).toBe(200);
    expect(res.json().mailConfigured).toBe(false);
    expect(res.json().message).toMatch(/administrator/);
    expect((await forgot('no-such-user')).json()).toEqual(res.json());
    expect(inbox).toHaveLength(0);
    t.app.granary.logging.flush();
    const lines = readFileSync(`${t.app.granary.logging.dir}/security.log`, 'utf8')
      .split('\n')
      .filter((l) => l.includes('password.reset.link'))
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(1);
    expect(lines[0].user).toBe('quinn');
    expect(lines[0].resetPage).toBe('https://granary.example/ui/auth/reset-password');
    const ok = await reset(lines[0].resetKey, 'quinn', NEW_PW);
    expect(ok.statusCode).toBe(200);
    expect(ok.json().name).toBe('quinn');
  });

  it('spec 000 §4, §8: changePassword?prefix=changePassword replaces an expired password and signs in (rememberMe false); wrong old password, mismatch and reuse are refused with codes', async () => {
    await t.app.inject({
      method: 'POST',
      url: '/api/security/users/rosa',
      headers: { authorization: ADMIN },
      payload: { passwordExpired: true },
    });
    const expired = await login('rosa', PW);
    expect(expired.statusCode).toBe(403);
    expect(expired.json().errors[0].code).toBe(AccessErrorCode.CredentialsExpired);
    const change = (body: Record<string, string>) =>
      t.app.inject({ method: 'POST', url: `${V1}/changePassword?prefix=changePassword`, payload: body });
    const wrong = await change({
      userName: 'rosa',
      oldPassword: 'nope',
      newPassword1: NEW_PW,
      newPassword2: NEW_PW,
    });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().errors[0].code).toBe(AccessErrorCode.BadCredentials);
    const mismatch = await change({
      userName: 'rosa',
      oldPassword: PW,
      newPassword1: NEW_PW,
      newPassword2: 'x',
    });
    expect(mismatch.statusCode).toBe(400);
    expect(mismatch.json().errors[0].message).toContain('Passwords do not match');
    const same = await change({ userName: 'rosa', oldPassword: PW, newPassword1: PW, newPassword2: PW });
    expect(same.json().errors[0].code).toBe(AccessErrorCode.SamePassword);
    const weak = await change({
      userName: 'rosa',
      oldPassword: PW,
      newPassword1: 'weak',
      newPassword2: 'weak',
    });
    expect(weak.json().errors[0].code).toBe(AccessErrorCode.WeakPassword);
    const ok = await change({
      userName: 'rosa',
      oldPassword: PW,
      newPassword1: NEW_PW,
      newPassword2: NEW_PW,
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ name: 'rosa', anonymous: false });
    expect(cookieOf(ok)).toMatch(NEW_SESSION);
    expect(String(ok.headers['set-cookie'])).not.toMatch(/Max-Age/);
    expect((await login('rosa', NEW_PW)).statusCode).toBe(200);
  });

  it('audit: each forgot, reset and change is recorded; no password and no mailed key reaches a log file', async () => {
    const events = await t.app.inject({
      url: '/api/security/audit?limit=200',
      headers: { authorization: ADMIN },
    });
    const actions = events
      .json()
      .events.map((e: { action: string; result: string }) => `${e.action}:${e.result}`);
    for (const a of [
      'password.forgot:success',
      'password.forgot:failure',
      'password.reset:success',
      'password.reset:failure',
      'password.change:success',
      'password.change:failure',
    ])
      expect(actions).toContain(a);
    await configureMail(true);
    inbox.length = 0;
    await forgot('pete');
    const key = keyOf(inbox[0]!.body);
    await t.app.inject({ method: 'POST', url: `${V1}/validatetoken?key=${encodeURIComponent(key)}` });
    t.app.granary.logging.flush();
    for (const file of ['server.log', 'request.log', 'security.log']) {
      const text = readFileSync(`${t.app.granary.logging.dir}/${file}`, 'utf8');
      expect(text).not.toContain(PW);
      expect(text).not.toContain(NEW_PW);
      expect(text).not.toContain(key);
    }
  });
});
