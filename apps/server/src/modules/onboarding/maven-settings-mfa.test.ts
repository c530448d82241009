import { AccessErrorCode, OTP_HEADER, SESSION_COOKIE } from '@granary/contracts';
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
const PW = 'Mfa-admin-Pa55word!';
const V1 = '/ui/api/v1';
const CSRF = { 'x-granary-csrf': '1' };

/** A code of the next 30-second step: fresh after the enrolment spent the current one. */
const nextCode = (secret: string) => generate({ secret, epoch: Math.floor(Date.now() / 1000) + 30 });

describe(`quick-start Maven settings.xml for a user with an authenticator (issue 17, ${testEngine})`, () => {
  let t: TestApp;
  let cookie = '';
  let secret = '';
  beforeAll(async () => {
    t = await createTestApp();
    const inject = t.app.inject.bind(t.app);
    await inject({
      method: 'PUT',
      url: '/api/security/users/mia',
      headers: { authorization: ADMIN },
      payload: { password: PW, admin: true },
    });
    await inject({
      method: 'PUT',
      url: '/api/repositories/libs-release-local',
      headers: { authorization: ADMIN },
      payload: { rclass: 'local', packageType: 'maven' },
    });
    const login = await inject({
      method: 'POST',
      url: `${V1}/ui/auth/login`,
      payload: { user: 'mia', password: PW, type: 'login' },
    });
    const m = new RegExp(`${SESSION_COOKIE}=([^;]*)`).exec(String(login.headers['set-cookie'] ?? ''));
    cookie = `${SESSION_COOKIE}=${m?.[1]}`;
    secret = (await inject({ url: `${V1}/auth/mfa/enroll/GOOGLE`, headers: { cookie } })).json().secret;
    const verified = await inject({
      method: 'POST',
      url: `${V1}/auth/mfa/verify/GOOGLE`,
      headers: { cookie, ...CSRF },
      payload: { otp: await generate({ secret }) },
    });
    expect(verified.statusCode, verified.body).toBe(200);
  });
  afterAll(async () => {
    await t?.close();
  });

  const download = (headers: Record<string, string> = {}) =>
    t.app.inject({
      method: 'POST',
      url: `${V1}/ui/setMeUp/downloadBuildMaven`,
      headers: { cookie, ...CSRF, ...headers },
      payload: { release: 'libs-release-local', includeToken: true },
    });

  it('issue 17 / issue 12 §2: settings.xml with includeToken needs a fresh one-time code (401 OTP_REQUIRED without), and with one it carries a real token mvn can use', async () => {
    const refused = await download();
    expect(refused.statusCode).toBe(401);
    expect(refused.json().errors[0].code).toBe(AccessErrorCode.OtpRequired);

    const ok = await download({ [OTP_HEADER]: await nextCode(secret) });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.body).not.toContain('GRANARY_TOKEN}');
    const token = /<password>([^<]+)<\/password>/.exec(ok.body)?.[1];
    expect(token).toBeTruthy();
    // The token in the file works as the password of the repository, as mvn will send it.
    const res = await t.app.inject({
      method: 'PUT',
      url: '/repository/libs-release-local/com/example/app/1.0/app-1.0.txt',
      headers: { authorization: basicAuth('mia', token!) },
      payload: 'hello',
    });
    expect(res.statusCode, res.body).toBe(201);
  });
});
