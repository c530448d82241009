import { createHash } from 'node:crypto';
import {
  APPLICATION_MESSAGES,
  applicationClientDataSchema,
  applicationCreatedSchema,
  applicationListSchema,
  applicationNameSchema,
  applicationValidateSchema,
  OAUTH_CONSENT_ROUTE,
  SESSION_COOKIE,
} from '@granary/contracts';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../platform/db/index.ts';
import {
  basicAuth,
  createTestApp,
  TEST_ADMIN_PASSWORD,
  type TestApp,
  testEngine,
} from '../../testing/index.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
const PW = 'Nora-pa55word!';
const NORA = basicAuth('nora', PW);
const API = '/ui/api/v1/integrations/applications';
const CSRF = { 'x-granary-csrf': '1' };

const form = (over: Record<string, unknown> = {}) => ({
  name: 'ci-dashboard',
  type: 'web',
  description: 'Shows build status',
  callbackUrl: 'https://dashboard.example.com/callback',
  platformBaseUrl: 'https://dashboard.example.com',
  ...over,
});

describe(`issue 18 application integrations: admin API (${testEngine})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    for (const name of ['nora', 'otto'])
      await t.app.inject({
        method: 'PUT',
        url: `/api/security/users/${name}`,
        headers: { authorization: ADMIN },
        payload: { password: PW },
      });
  });
  afterAll(async () => {
    await t?.close();
  });
  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown, auth = ADMIN) =>
    t.app.inject({ method, url, headers: { authorization: auth }, payload: payload as object });

  it("spec 001 §5: the application name refuses spaces and special characters ('Name cannot contain spaces or special characters'); empty fields are 'This field is mandatory'", async () => {
    expect(applicationNameSchema.safeParse('my app').error?.issues[0]?.message).toBe(
      APPLICATION_MESSAGES.name,
    );
    expect(applicationNameSchema.safeParse('').error?.issues[0]?.message).toBe(
      APPLICATION_MESSAGES.mandatory,
    );
    for (const name of ['my app', 'app$', 'ünï']) {
      const res = await call('POST', API, form({ name }));
      expect(res.statusCode, name).toBe(400);
      expect(res.body).toContain(APPLICATION_MESSAGES.name);
    }
    const empty = await call('POST', API, form({ name: '', callbackUrl: '' }));
    expect(empty.statusCode).toBe(400);
    expect(empty.body).toContain(APPLICATION_MESSAGES.mandatory);
    const badUrl = await call('POST', API, form({ callbackUrl: 'javascript:alert(1)' }));
    expect(badUrl.statusCode).toBe(400);
    expect(badUrl.body).toContain(APPLICATION_MESSAGES.url);
  });

  it('issue 18 / spec 001 §7-§8: create answers a client id and the secret once; list, validate and client data never show it; the database keeps only a hash', async () => {
    const res = await call('POST', API, form());
    expect(res.statusCode, res.body).toBe(201);
    const created = applicationCreatedSchema.parse(res.json());
    expect(created).toMatchObject({
      name: 'ci-dashboard',
      type: 'web',
      callbackUrl: 'https://dashboard.example.com/callback',
    });
    expect(created.clientId).toMatch(/^granary-[0-9a-f]{24}$/);
    expect(created.clientSecret.length).toBeGreaterThanOrEqual(40);

    const list = applicationListSchema.parse((await call('GET', API)).json());
    expect(list.map((a) => a.name)).toEqual(['ci-dashboard']);
    const validate = applicationValidateSchema.parse(
      (await call('GET', `${API}/validate/${created.id}`)).json(),
    );
    const auth = new URL(validate.auth_url);
    expect(auth.pathname).toBe('/access/api/v1/oauth2/authorize');
    expect(auth.searchParams.get('client_id')).toBe(created.clientId);
    expect(auth.searchParams.get('redirect_uri')).toBe(created.callbackUrl);
    const data = applicationClientDataSchema.parse(
      (await call('GET', `${API}/client-data/${created.id}`)).json(),
    );
    expect(data).toMatchObject({ client_id: created.clientId, code_challenge_methods_supported: ['S256'] });
    for (const body of [JSON.stringify(list), JSON.stringify(validate), JSON.stringify(data)])
      expect(body).not.toContain(created.clientSecret);

    const rows = await queryRows<Record<string, unknown>>(
      t.app.granary.database.db,
      sql`select * from oauth_applications`,
    );
    expect(JSON.stringify(rows)).not.toContain(created.clientSecret);
    expect(rows[0]!.client_secret_hash).toMatch(/^[0-9a-f]{64}$/);

    const dup = await call('POST', API, form({ name: 'CI-Dashboard' }));
    expect(dup.statusCode).toBe(409);
    expect(dup.body).toContain(APPLICATION_MESSAGES.duplicate);
  });

  it('issue 18: every admin call is refused to a regular user (403) and to anonymous callers (401), checked on the server', async () => {
    const created = applicationCreatedSchema.parse(
      (await call('POST', API, form({ name: 'other-app' }))).json(),
    );
    for (const [method, url] of [
      ['POST', API],
      ['GET', API],
      ['DELETE', `${API}/${created.id}`],
      ['GET', `${API}/validate/${created.id}`],
      ['GET', `${API}/client-data/${created.id}`],
    ] as const) {
      expect(
        (await call(method, url, method === 'POST' ? form({ name: 'x1' }) : undefined, NORA)).statusCode,
        `${method} ${url}`,
      ).toBe(403);
      expect((await t.app.inject({ method, url })).statusCode, `${method} ${url} anonymous`).toBe(401);
    }
  });

  it("issue 18: a user lists their own integrations, never another user's; an admin may list anyone's", async () => {
    expect((await call('GET', `${API}/user-integrations/nora`, undefined, NORA)).json()).toEqual([]);
    expect((await call('GET', `${API}/user-integrations/otto`, undefined, NORA)).statusCode).toBe(403);
    expect(
      (await call('DELETE', `${API}/user-integrations/granary-x/otto`, undefined, NORA)).statusCode,
    ).toBe(403);
    expect((await call('GET', `${API}/user-integrations/otto`)).statusCode).toBe(200);
    expect(
      (await call('DELETE', `${API}/user-integrations/granary-x/nora`, undefined, NORA)).statusCode,
    ).toBe(404);
  });

  it('issue 18: the authorization endpoint requires PKCE with S256 and refuses a redirect URI other than the registered one', async () => {
    const created = applicationCreatedSchema.parse(
      (await call('POST', API, form({ name: 'pkce-app' }))).json(),
    );
    const authorize = (q: Record<string, string>) =>
      t.app.inject({ url: `/access/api/v1/oauth2/authorize?${new URLSearchParams(q)}` });
    const base = { response_type: 'code', client_id: created.clientId, state: 's1' };
    const challenge = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

    const wrongRedirect = await authorize({
      ...base,
      redirect_uri: 'https://evil.example.com/cb',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    expect(wrongRedirect.statusCode).toBe(400);
    expect(wrongRedirect.headers.location).toBeUndefined();
    expect((await authorize({ ...base, client_id: 'nope' })).statusCode).toBe(400);

    const withoutS256: Record<string, string>[] = [
      {},
      { code_challenge: challenge, code_challenge_method: 'plain' },
      { code_challenge: challenge },
    ];
    for (const q of withoutS256) {
      const res = await authorize({ ...base, ...q });
      expect(res.statusCode).toBe(302);
      const to = new URL(String(res.headers.location));
      expect(to.origin + to.pathname).toBe(created.callbackUrl);
      expect(to.searchParams.get('error')).toBe('invalid_request');
      expect(to.searchParams.get('state')).toBe('s1');
    }
    const bad = await authorize({
      ...base,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      scope: 'applied-permissions/admin',
    });
    expect(new URL(String(bad.headers.location)).searchParams.get('error')).toBe('invalid_scope');

    const ok = await authorize({ ...base, code_challenge: challenge, code_challenge_method: 'S256' });
    expect(ok.statusCode).toBe(302);
    const consent = new URL(String(ok.headers.location), 'http://x');
    expect(consent.pathname).toBe(OAUTH_CONSENT_ROUTE);
    const requestId = consent.searchParams.get('request')!;

    // The consent calls belong to the signed-in user in the console: not to a password or token caller.
    expect((await call('GET', `${API}/consent/${requestId}`, undefined, NORA)).statusCode).toBe(403);
    const login = await t.app.inject({
      method: 'POST',
      url: '/ui/api/v1/ui/auth/login',
      payload: { user: 'nora', password: PW },
    });
    const cookie = new RegExp(`${SESSION_COOKIE}=[^;]*`).exec(String(login.headers['set-cookie']))![0];
    const shown = await t.app.inject({ url: `${API}/consent/${requestId}`, headers: { cookie } });
    expect(shown.json()).toMatchObject({
      applicationName: 'pkce-app',
      username: 'nora',
      scopes: ['applied-permissions/user'],
    });
    // Another user cannot take it over, nor approve in nora's name.
    const login2 = await t.app.inject({
      method: 'POST',
      url: '/ui/api/v1/ui/auth/login',
      payload: { user: 'otto', password: PW },
    });
    const cookie2 = new RegExp(`${SESSION_COOKIE}=[^;]*`).exec(String(login2.headers['set-cookie']))![0];
    expect(
      (await t.app.inject({ url: `${API}/consent/${requestId}`, headers: { cookie: cookie2 } })).statusCode,
    ).toBe(404);
    const forged = await t.app.inject({
      method: 'POST',
      url: `${API}/authorize/${created.clientId}/nora`,
      headers: { cookie: cookie2, ...CSRF },
      payload: { requestId },
    });
    expect(forged.statusCode).toBe(403);
    // Deny: back to the application with access_denied; the request is used up.
    const deny = await t.app.inject({
      method: 'POST',
      url: `${API}/consent/${requestId}/deny`,
      headers: { cookie, ...CSRF },
    });
    const back = new URL(deny.json().url);
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('state')).toBe('s1');
    expect((await t.app.inject({ url: `${API}/consent/${requestId}`, headers: { cookie } })).statusCode).toBe(
      404,
    );
  });

  it('spec 001 §8 / issue 18: deleting an application revokes every token it holds (401 at once) and the user integrations with it', async () => {
    const created = applicationCreatedSchema.parse(
      (await call('POST', API, form({ name: 'doomed-app' }))).json(),
    );
    const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const start = await t.app.inject({
      url: `/access/api/v1/oauth2/authorize?${new URLSearchParams({ response_type: 'code', client_id: created.clientId, code_challenge: challenge, code_challenge_method: 'S256' })}`,
    });
    const requestId = new URL(String(start.headers.location), 'http://x').searchParams.get('request')!;
    const login = await t.app.inject({
      method: 'POST',
      url: '/ui/api/v1/ui/auth/login',
      payload: { user: 'nora', password: PW },
    });
    const cookie = new RegExp(`${SESSION_COOKIE}=[^;]*`).exec(String(login.headers['set-cookie']))![0];
    await t.app.inject({ url: `${API}/consent/${requestId}`, headers: { cookie } });
    const approved = await t.app.inject({
      method: 'POST',
      url: `${API}/authorize/${created.clientId}/nora`,
      headers: { cookie, ...CSRF },
      payload: { requestId },
    });
    const code = new URL(approved.json().url).searchParams.get('code')!;
    const token = await t.app.inject({
      method: 'POST',
      url: '/access/api/v1/oauth2/token',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: basicAuth(created.clientId, created.clientSecret),
      },
      payload: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
        redirect_uri: created.callbackUrl,
      }).toString(),
    });
    expect(token.statusCode, token.body).toBe(200);
    const bearer = `Bearer ${token.json().access_token}`;
    const mine = await call('GET', `${API}/user-integrations/nora`, undefined, bearer);
    expect(mine.statusCode).toBe(200);
    expect(mine.json()).toEqual([
      expect.objectContaining({ client_id: created.clientId, application_name: 'doomed-app' }),
    ]);

    expect((await call('DELETE', `${API}/${created.id}`)).statusCode).toBe(204);
    expect((await call('GET', `${API}/user-integrations/nora`, undefined, bearer)).statusCode).toBe(401);
    expect((await call('GET', `${API}/user-integrations/nora`, undefined, NORA)).json()).toEqual([]);
  });

  it('spec 001 §8: delete removes the application from the list (404 afterwards); RFC 8414 metadata names the endpoints', async () => {
    const created = applicationCreatedSchema.parse(
      (await call('POST', API, form({ name: 'short-lived' }))).json(),
    );
    expect((await call('DELETE', `${API}/${created.id}`)).statusCode).toBe(204);
    const names = applicationListSchema.parse((await call('GET', API)).json()).map((a) => a.name);
    expect(names).not.toContain('short-lived');
    expect((await call('DELETE', `${API}/${created.id}`)).statusCode).toBe(404);
    const meta = (await t.app.inject({ url: '/.well-known/oauth-authorization-server' })).json();
    expect(meta).toMatchObject({
      token_endpoint: expect.stringMatching(/\/access\/api\/v1\/oauth2\/token$/),
      revocation_endpoint: expect.stringMatching(/\/access\/api\/v1\/oauth2\/revoke$/),
      code_challenge_methods_supported: ['S256'],
    });
  });
});
