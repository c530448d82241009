import { SESSION_COOKIE } from '@granary/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, testEngine } from '../../testing/index.ts';
import { startupWarnings } from './startup-warnings.ts';

const V1 = '/ui/api/v1';
const NEW_PW = 'Chosen-Adm1n-Password!';

function cookieOf(res: { headers: Record<string, unknown> }): string {
  const m = new RegExp(`${SESSION_COOKIE}=([^;]*)`).exec(String(res.headers['set-cookie'] ?? ''));
  return m ? `${SESSION_COOKIE}=${m[1]}` : '';
}

describe(`issue 12 §23: the generated admin password and plain HTTP are warned about (${testEngine})`, () => {
  let t: TestApp;
  let generated = '';
  beforeAll(async () => {
    const printed: string[] = [];
    t = await createTestApp({ adminPassword: undefined }, { print: (line) => printed.push(line) });
    generated = /generated password (\S+)/.exec(printed.join('\n'))?.[1] ?? '';
  });
  afterAll(async () => {
    await t?.close();
  });
  const warnings = (overrides: Partial<Parameters<typeof startupWarnings>[1]> = {}) =>
    startupWarnings(t.app.granary.database.db, {
      home: t.home,
      host: '127.0.0.1',
      port: 8080,
      baseUrl: undefined,
      trustProxy: false,
      ...overrides,
    });

  it('issue 12 §23: start-up warns about plain HTTP beyond loopback (a listen address or an http:// base URL), not on loopback or behind a trusted TLS proxy', async () => {
    const http = (lines: string[]) => lines.filter((l) => /plain HTTP/.test(l));
    expect(http(await warnings())).toEqual([]);
    expect(http(await warnings({ host: '0.0.0.0' }))[0]).toMatch(/0\.0\.0\.0:8080.*cookies are not Secure/);
    expect(http(await warnings({ host: '0.0.0.0', trustProxy: true }))).toEqual([]);
    expect(http(await warnings({ baseUrl: 'http://repo.example.com' }))[0]).toMatch(
      /GRANARY_BASE_URL http:\/\/repo\.example\.com is plain HTTP/,
    );
    expect(http(await warnings({ host: '0.0.0.0', baseUrl: 'https://repo.example.com' }))).toEqual([]);
    expect(http(await warnings({ baseUrl: 'http://localhost:8080' }))).toEqual([]);
  });

  it('issue 12 §23: the console answer flags the admin whose generated password is unchanged, and start-up warns, until the password changes', async () => {
    // 18 random bytes, base64url
    expect(generated).toMatch(/^[\w-]{24}$/);
    const login = await t.app.inject({
      method: 'POST',
      url: `${V1}/ui/auth/login`,
      payload: { user: 'admin', password: generated, type: 'login' },
    });
    expect(login.statusCode).toBe(200);
    expect(login.json().initialPasswordUnchanged).toBe(true);
    const cookie = cookieOf(login);
    const current = await t.app.inject({ url: `${V1}/ui/auth/current`, headers: { cookie } });
    expect(current.json().initialPasswordUnchanged).toBe(true);
    expect((await warnings()).some((l) => /still has the password generated at installation/.test(l))).toBe(
      true,
    );

    const change = await t.app.inject({
      method: 'POST',
      url: `${V1}/changePassword?prefix=changePassword`,
      headers: { cookie, 'x-granary-csrf': '1' },
      payload: { userName: 'admin', oldPassword: generated, newPassword1: NEW_PW, newPassword2: NEW_PW },
    });
    expect(change.statusCode, change.body).toBe(200);
    expect(change.json().initialPasswordUnchanged).toBe(false);
    const after = await t.app.inject({ url: `${V1}/ui/auth/current`, headers: { cookie: cookieOf(change) } });
    expect(after.json().initialPasswordUnchanged).toBe(false);
    expect((await warnings()).some((l) => /generated at installation/.test(l))).toBe(false);
  });
});
