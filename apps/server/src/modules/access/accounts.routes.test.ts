import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { AccessErrorCode, REAUTHENTICATION_HEADER, SESSION_COOKIE } from '@granary/contracts';
import { eq } from 'drizzle-orm';
import { generate } from 'otplib';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  basicAuth,
  createTestApp,
  TEST_ADMIN_PASSWORD,
  type TestApp,
  testEngine,
} from '../../testing/index.ts';
import { cliRegistrations, invitations } from './access.schema.ts';
import { sha256 } from './crypto.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
const PW = 'Invit3d-Passw0rd!';
const V1 = '/ui/api/v1';
const CSRF = { 'x-granary-csrf': '1' };

function cookieOf(res: { headers: Record<string, unknown> }): string {
  const m = new RegExp(`${SESSION_COOKIE}=([^;]*)`).exec(String(res.headers['set-cookie'] ?? ''));
  return m ? `${SESSION_COOKIE}=${m[1]}` : '';
}

interface Mail {
  to: string;
  body: string;
}

async function startSmtp(inbox: Mail[]): Promise<{ server: SMTPServer; port: number }> {
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      let body = '';
      stream.on('data', (c: Buffer) => {
        body += c.toString('utf8');
      });
      stream.on('end', () => {
        inbox.push({
          to: session.envelope.rcptTo.map((r) => r.address).join(','),
          body: body.replace(/=\r?\n/g, '').replace(/=3D/g, '='),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.server.address() as AddressInfo).port };
}

const tokenOf = (body: string) => {
  const m = /\/ui\/login\/invitation\?token=([A-Za-z0-9_%-]+)/.exec(body);
  if (!m) throw new Error(`no invitation link in ${body}`);
  return decodeURIComponent(m[1]!);
};

describe(`invitations, mailed links and CLI registration (${testEngine})`, () => {
  let t: TestApp;
  let smtp: SMTPServer;
  let port = 0;
  const inbox: Mail[] = [];
  const secrets: string[] = [];

  beforeAll(async () => {
    ({ server: smtp, port } = await startSmtp(inbox));
    // No GRANARY_BASE_URL: mailed links come from the request's Host, when it is trusted.
    t = await createTestApp();
    await t.app.inject({
      method: 'PATCH',
      url: '/api/security/configuration',
      headers: { authorization: ADMIN },
      payload: { mail: { enabled: true, host: '127.0.0.1', port, from: 'granary@example.com' } },
    });
    await t.app.inject({
      method: 'PUT',
      url: '/api/security/users/nina',
      headers: { authorization: ADMIN },
      payload: { password: PW, email: 'nina@example.com' },
    });
  });
  afterAll(async () => {
    await t?.close();
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
  });

  const invite = (email: string, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: 'POST',
      url: '/api/security/invitations',
      headers: { authorization: ADMIN, ...headers },
      payload: { email },
    });
  const verify = (token: string) =>
    t.app.inject({ method: 'POST', url: `${V1}/access/token/verify`, payload: { token } });
  const setPassword = (token: string, username: string, password: string) =>
    t.app.inject({
      method: 'POST',
      url: `${V1}/access/entities/users/invited/setPassword`,
      payload: { token, username, password },
    });

  it('spec 000 §2 invitation, §7 access/token/verify and invited/setPassword: the mailed single-use link creates the user and signs in', async () => {
    const res = await invite('ivy@example.com');
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().email).toBe('ivy@example.com');
    const mail = inbox.find((m) => m.to === 'ivy@example.com')!;
    expect(mail.body).toContain('http://localhost/ui/login/invitation?token=');
    const token = tokenOf(mail.body);
    secrets.push(token);
    // stored hashed only
    const rows = await t.app.granary.database.db
      .select()
      .from(invitations)
      .where(eq(invitations.tokenHash, sha256(token)));
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(token);

    const checked = await verify(token);
    expect(checked.statusCode).toBe(200);
    expect(checked.json().email).toBe('ivy@example.com');

    const weak = await setPassword(token, 'ivy', 'weak');
    expect(weak.statusCode).toBe(400);
    expect(weak.json().errors[0].code).toBe(AccessErrorCode.WeakPassword);
    const taken = await setPassword(token, 'nina', PW);
    expect(taken.statusCode).toBe(409);
    expect(taken.json().errors[0].code).toBe(AccessErrorCode.UserExists);

    const ok = await setPassword(token, 'ivy', PW);
    expect(ok.statusCode, ok.body).toBe(201);
    expect(ok.json()).toMatchObject({ name: 'ivy', admin: false, email: 'ivy@example.com' });
    const cookie = cookieOf(ok);
    expect((await t.app.inject({ url: `${V1}/ui/auth/current`, headers: { cookie } })).json().name).toBe(
      'ivy',
    );

    const again = await setPassword(token, 'ivy2', PW);
    expect(again.statusCode).toBe(400);
    expect(again.json().errors[0].code).toBe(AccessErrorCode.InvalidInvitation);
    expect((await verify(token)).statusCode).toBe(400);
  });

  it('spec 000 §5: a token of the wrong format or unknown is refused with 400 INVALID_INVITATION (never 500); an expired one too', async () => {
    for (const token of ['short', 'x'.repeat(43), '../../etc/passwd']) {
      const res = await verify(token);
      expect(res.statusCode, token).toBe(400);
      expect(res.json().errors[0].code).toBe(AccessErrorCode.InvalidInvitation);
    }
    await invite('old@example.com');
    const token = tokenOf(inbox.find((m) => m.to === 'old@example.com')!.body);
    secrets.push(token);
    await t.app.granary.database.db
      .update(invitations)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(invitations.tokenHash, sha256(token)));
    const res = await setPassword(token, 'oldie', PW);
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].code).toBe(AccessErrorCode.InvalidInvitation);
  });

  it('invitations are admin-only; a second invitation to the same address replaces the first', async () => {
    const asNina = await t.app.inject({
      method: 'POST',
      url: '/api/security/invitations',
      headers: { authorization: basicAuth('nina', PW) },
      payload: { email: 'x@example.com' },
    });
    expect(asNina.statusCode).toBe(403);
    await invite('twice@example.com');
    await invite('twice@example.com');
    const mails = inbox.filter((m) => m.to === 'twice@example.com');
    expect(mails).toHaveLength(2);
    const [first, second] = mails.map((m) => tokenOf(m.body));
    secrets.push(first!, second!);
    expect((await verify(first!)).statusCode).toBe(400);
    expect((await verify(second!)).statusCode).toBe(200);
  });

  it('hardening: without GRANARY_BASE_URL, a Host the server does not listen under gets no mail; security.log tells the admin to set GRANARY_BASE_URL', async () => {
    const before = inbox.length;
    const res = await invite('eve@example.com', { host: 'evil.example' });
    expect(res.statusCode).toBe(409);
    expect(res.json().errors[0].code).toBe(AccessErrorCode.BaseUrlUntrusted);
    expect(res.json().errors[0].message).toContain('GRANARY_BASE_URL');
    const forgot = await t.app.inject({
      method: 'POST',
      url: `${V1}/ui/auth/forgotpassword`,
      headers: { host: 'evil.example:8080' },
      payload: { user: 'nina' },
    });
    expect(forgot.statusCode).toBe(200);
    expect(inbox.length).toBe(before);
    t.app.granary.logging.flush();
    const log = readFileSync(`${t.app.granary.logging.dir}/security.log`, 'utf8');
    expect(log).toContain('user.invite.untrusted-host');
    expect(log).toContain('password.reset.untrusted-host');
    expect(log).toContain('set GRANARY_BASE_URL');
    expect(log).not.toContain('evil.example/ui');
    // An IP literal Host is fine (the server is reached by address).
    const byIp = await invite('ip@example.com', { host: '127.0.0.1:8081' });
    expect(byIp.statusCode).toBe(201);
    expect(inbox.at(-1)!.body).toContain('http://127.0.0.1:8081/ui/login/invitation?token=');
    secrets.push(tokenOf(inbox.at(-1)!.body));
  });

  it('an invitation without a mail server is refused with 409 MAIL_NOT_CONFIGURED', async () => {
    await t.app.inject({
      method: 'PATCH',
      url: '/api/security/configuration',
      headers: { authorization: ADMIN },
      payload: { mail: { enabled: false } },
    });
    const res = await invite('nomail@example.com');
    expect(res.statusCode).toBe(409);
    expect(res.json().errors[0].code).toBe(AccessErrorCode.MailNotConfigured);
    await t.app.inject({
      method: 'PATCH',
      url: '/api/security/configuration',
      headers: { authorization: ADMIN },
      payload: { mail: { enabled: true } },
    });
  });

  it('spec 000 §2 cli-registration: the CLI opens a session, the signed-in user confirms, one poll receives a working token, then the session is gone', async () => {
    const open = await t.app.inject({
      method: 'POST',
      url: '/api/security/cli-registrations',
      payload: { client: 'granary-cli 1.0' },
    });
    expect(open.statusCode, open.body).toBe(201);
    const { session, code, url } = open.json();
    secrets.push(session);
    expect(url).toMatch(/^http:\/\/localhost(:80)?\/ui\/login\/cli-registration\?session=/);
    expect(new URL(url).searchParams.get('session')).toBe(session);
    expect(code).toMatch(/^[A-Z2-9]{4}-[A-Z2-9]{4}$/);
    const poll = () => t.app.inject({ url: `/api/security/cli-registrations/${session}` });
    expect((await poll()).statusCode).toBe(202);
    expect((await poll()).json().status).toBe('pending');

    // The console page needs a signed-in user.
    expect((await t.app.inject({ url: `${V1}/access/cli-registration/${session}` })).statusCode).toBe(401);
    const login = await t.app.inject({
      method: 'POST',
      url: `${V1}/ui/auth/login`,
      payload: { user: 'nina', password: PW },
    });
    const cookie = cookieOf(login);
    const info = await t.app.inject({ url: `${V1}/access/cli-registration/${session}`, headers: { cookie } });
    expect(info.json()).toMatchObject({ code, client: 'granary-cli 1.0', confirmed: false });
    const confirm = await t.app.inject({
      method: 'POST',
      url: `${V1}/access/cli-registration/${session}/confirm`,
      headers: { cookie, ...CSRF },
    });
    expect(confirm.statusCode).toBe(204);

    const delivered = await poll();
    expect(delivered.statusCode).toBe(200);
    const body = delivered.json();
    expect(body).toMatchObject({ status: 'confirmed', username: 'nina', token_type: 'Bearer' });
    secrets.push(body.access_token);
    const me = await t.app.inject({
      url: '/api/security/tokens',
      headers: { authorization: `Bearer ${body.access_token}` },
    });
    expect(me.statusCode).toBe(200);
    expect(me.json().tokens.some((x: { description: string }) => x.description.includes('granary-cli'))).toBe(
      true,
    );
    // exactly once: the record is gone
    const after = await poll();
    expect(after.statusCode).toBe(404);
    expect(after.json().errors[0].code).toBe(AccessErrorCode.CliSessionNotFound);
    expect(await t.app.granary.database.db.select().from(cliRegistrations)).toHaveLength(0);
  });

  it('spec 000 §2 cli-registration: a session expires after 5 minutes; the user can refuse one; a malformed id is 404', async () => {
    const open = async () => {
      const res = await t.app.inject({ method: 'POST', url: '/api/security/cli-registrations' });
      expect(res.statusCode, res.body).toBe(201);
      secrets.push(res.json().session);
      return res.json() as { session: string; expiresAt: string };
    };
    const a = await open();
    const ttl = Date.parse(a.expiresAt) - Date.now();
    expect(ttl).toBeGreaterThan(4.9 * 60_000);
    expect(ttl).toBeLessThanOrEqual(5 * 60_000);
    await t.app.granary.database.db
      .update(cliRegistrations)
      .set({ expiresAt: new Date(Date.now() - 1) })
      .where(eq(cliRegistrations.sessionHash, sha256(a.session)));
    expect((await t.app.inject({ url: `/api/security/cli-registrations/${a.session}` })).statusCode).toBe(
      404,
    );

    const b = await open();
    const del = await t.app.inject({
      method: 'DELETE',
      url: `${V1}/access/cli-registration/${b.session}`,
      headers: { authorization: basicAuth('nina', PW) },
    });
    expect(del.statusCode).toBe(204);
    expect((await t.app.inject({ url: `/api/security/cli-registrations/${b.session}` })).statusCode).toBe(
      404,
    );
    expect((await t.app.inject({ url: '/api/security/cli-registrations/nope' })).statusCode).toBe(404);
  });

  it('no secret in any log line: invitation tokens, CLI session ids and delivered tokens never reach the logs', async () => {
    expect(secrets.length).toBeGreaterThan(5);
    t.app.granary.logging.flush();
    for (const file of ['security.log', 'request.log', 'server.log']) {
      let text = '';
      try {
        text = readFileSync(`${t.app.granary.logging.dir}/${file}`, 'utf8');
      } catch {
        continue;
      }
      for (const secret of secrets) expect(text, `${file} holds a secret`).not.toContain(secret);
    }
  });
});

describe(`self-service profile and API key (${testEngine})`, () => {
  let t: TestApp;
  let cookie = '';
  beforeAll(async () => {
    t = await createTestApp();
    await t.app.inject({
      method: 'PUT',
      url: '/api/security/users/paul',
      headers: { authorization: ADMIN },
      payload: { password: PW, email: 'paul@example.com' },
    });
    await t.app.inject({
      method: 'PUT',
      url: '/api/security/users/fixed',
      headers: { authorization: ADMIN },
      payload: { password: PW, email: 'fixed@example.com', profileUpdatable: false },
    });
    cookie = cookieOf(
      await t.app.inject({
        method: 'POST',
        url: `${V1}/ui/auth/login`,
        payload: { user: 'paul', password: PW },
      }),
    );
  });
  afterAll(async () => {
    await t?.close();
  });
  const profile = (payload: object, c = cookie) =>
    t.app.inject({ method: 'POST', url: `${V1}/ui/userProfile`, headers: { cookie: c, ...CSRF }, payload });

  it('spec 000 §7 POST ui/userProfile, spec 001 §7: a non-admin changes their own email with the current password', async () => {
    const wrong = await profile({ password: 'not-it', email: 'new@example.com' });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().errors[0].message).toBe('The current password is wrong');
    const ok = await profile({ password: PW, email: 'paul.new@example.com' });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toMatchObject({ name: 'paul', email: 'paul.new@example.com' });
    const user = await t.app.inject({ url: '/api/security/users/paul', headers: { authorization: ADMIN } });
    expect(user.json().email).toBe('paul.new@example.com');
    const bad = await profile({ password: PW, email: 'not-an-email' });
    expect(bad.statusCode).toBe(400);
    expect((await profile({ email: 'x@example.com' })).statusCode).toBe(400);
  });

  it('spec 000 §3 profileUpdatable: when the admin turned it off, the email stays as it is (403 PROFILE_NOT_UPDATABLE)', async () => {
    const fixed = cookieOf(
      await t.app.inject({
        method: 'POST',
        url: `${V1}/ui/auth/login`,
        payload: { user: 'fixed', password: PW },
      }),
    );
    const res = await profile({ password: PW, email: 'other@example.com' }, fixed);
    expect(res.statusCode).toBe(403);
    expect(res.json().errors[0].code).toBe(AccessErrorCode.ProfileNotUpdatable);
    const user = await t.app.inject({ url: '/api/security/users/fixed', headers: { authorization: ADMIN } });
    expect(user.json().email).toBe('fixed@example.com');
  });

  // Updated for issue 12 §2: the reset used to need only the password (that was the bug); now it also
  // needs a fresh code from the authenticator being removed.
  it('self-service MFA reset: a non-admin removes their own authenticator with their password and a fresh code (issue 12 §2)', async () => {
    const enroll = await t.app.inject({ url: `${V1}/auth/mfa/enroll/GOOGLE`, headers: { cookie } });
    const secret = enroll.json().secret as string;
    const verified = await t.app.inject({
      method: 'POST',
      url: `${V1}/auth/mfa/verify/GOOGLE`,
      headers: { cookie, ...CSRF },
      payload: { otp: await generate({ secret }) },
    });
    expect(verified.statusCode).toBe(200);
    const mfaOf = async () =>
      (await t.app.inject({ url: '/api/security/users/paul', headers: { authorization: ADMIN } })).json()
        .mfaEnabled;
    expect(await mfaOf()).toBe(true);
    const reset = (password: string, otp?: string) =>
      t.app.inject({
        method: 'POST',
        url: `${V1}/auth/mfa/reset`,
        headers: { cookie, ...CSRF },
        payload: { password, ...(otp ? { otp } : {}) },
      });
    expect((await reset('wrong')).statusCode).toBe(401);
    expect(await mfaOf()).toBe(true);
    const passwordOnly = await reset(PW);
    expect(passwordOnly.statusCode).toBe(401);
    expect(passwordOnly.json().errors[0].code).toBe(AccessErrorCode.OtpRequired);
    expect(await mfaOf()).toBe(true);
    // The enrolment spent this 30-second step; the next step's code is fresh.
    const next = await generate({ secret, epoch: Math.floor(Date.now() / 1000) + 30 });
    expect((await reset(PW, next)).statusCode).toBe(204);
    expect(await mfaOf()).toBe(false);
  });

  it('spec 001 §7 GET apiKey/{username} with the re-authentication header: a new API key that works as a password; GET ui/userApiKey says it exists; revoking ends it', async () => {
    const info = () => t.app.inject({ url: `${V1}/ui/userApiKey`, headers: { cookie } });
    expect((await info()).json().exists).toBe(false);
    const fetchKey = (header: string | undefined, user = 'paul') =>
      t.app.inject({
        url: `${V1}/apiKey/${user}`,
        headers: { cookie, ...(header ? { [REAUTHENTICATION_HEADER]: header } : {}) },
      });
    expect((await fetchKey(undefined)).statusCode).toBe(403);
    expect((await fetchKey(basicAuth('paul', 'wrong'))).statusCode).toBe(401);
    expect((await fetchKey(basicAuth('admin', TEST_ADMIN_PASSWORD), 'admin')).statusCode).toBe(403);
    const res = await fetchKey(basicAuth('paul', PW));
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const { apiKey } = res.json();
    expect(apiKey).toMatch(/^grn_/);
    expect((await info()).json().exists).toBe(true);
    const asKey = await t.app.inject({
      url: `${V1}/ui/auth/current`,
      headers: { authorization: basicAuth('paul', apiKey) },
    });
    expect(asKey.json().name).toBe('paul');

    // A new key replaces the old one.
    const second = (await fetchKey(basicAuth('paul', PW))).json().apiKey;
    const old = await t.app.inject({
      url: '/api/security/tokens',
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(old.statusCode).toBe(401);
    const del = await t.app.inject({
      method: 'DELETE',
      url: `${V1}/ui/userApiKey`,
      headers: { cookie, ...CSRF },
    });
    expect(del.statusCode).toBe(204);
    expect((await info()).json().exists).toBe(false);
    const revoked = await t.app.inject({
      url: '/api/security/tokens',
      headers: { authorization: `Bearer ${second}` },
    });
    expect(revoked.statusCode).toBe(401);
    t.app.granary.logging.flush();
    for (const file of ['security.log', 'request.log']) {
      const text = readFileSync(`${t.app.granary.logging.dir}/${file}`, 'utf8');
      expect(text).not.toContain(apiKey);
      expect(text).not.toContain(second);
    }
  });

  it('spec 000 §2 my-jfrog-redirect: loginRelatedData carries the admin-set accountPortalUrl (null by default)', async () => {
    const related = () => t.app.inject({ url: `${V1}/access/api/ui/security/loginRelatedData` });
    expect((await related()).json().accountPortalUrl).toBeNull();
    const bad = await t.app.inject({
      method: 'PATCH',
      url: '/api/security/configuration',
      headers: { authorization: ADMIN },
      payload: { accountPortalUrl: 'javascript:alert(1)' },
    });
    expect(bad.statusCode).toBe(400);
    const ok = await t.app.inject({
      method: 'PATCH',
      url: '/api/security/configuration',
      headers: { authorization: ADMIN },
      payload: { accountPortalUrl: 'https://account.example.com/' },
    });
    expect(ok.statusCode).toBe(200);
    expect((await related()).json().accountPortalUrl).toBe('https://account.example.com/');
  });
});
