import { readFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { REAUTHENTICATION_HEADER, SESSION_COOKIE, SSO_MESSAGES, ssoProviderSchema } from '@granary/contracts';
import { decodeJwt, exportJWK, generateKeyPair, importJWK, type JWK, SignJWT } from 'jose';
import { Provider } from 'oidc-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  basicAuth,
  createTestApp,
  TEST_ADMIN_PASSWORD,
  type TestApp,
  testEngine,
} from '../../../testing/index.ts';
import { ssoProviders } from './providers.schema.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
const V1 = '/ui/api/v1';
const CLIENT_SECRET = 'corp-client-Secret-1234';
/** The identity provider's users and their groups claim. */
const DIRECTORY: Record<string, string[]> = {
  alice: ['developers', 'granary-admins'],
  bob: ['developers'],
  carol: ['qa'],
  dave: ['developers'],
};

/** A browser's cookies, per origin (enough for two loopback servers that use distinct names). */
class CookieJar {
  private readonly jar = new Map<string, Map<string, string>>();
  store(url: URL, res: Response) {
    const cookies = this.jar.get(url.origin) ?? new Map<string, string>();
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (/max-age=0/i.test(line) || value === '') cookies.delete(name);
      else cookies.set(name, value);
    }
    this.jar.set(url.origin, cookies);
  }
  header(url: URL): string {
    return [...(this.jar.get(url.origin) ?? new Map()).entries()].map(([k, v]) => `${k}=${v}`).join('; ');
  }
  get(url: URL, name: string): string | undefined {
    return this.jar.get(url.origin)?.get(name);
  }
}

type Tamper = 'none' | 'audience' | 'expired';

describe(`issue 20: OpenID Connect sign-in against oidc-provider on loopback (${testEngine})`, () => {
  let t: TestApp;
  let granary: string;
  let idp: http.Server;
  let front: http.Server;
  let issuer: string;
  let tamper: Tamper = 'none';
  let privateJwk: JWK;
  /** Every callback URL the IdP sent the browser to (to replay a code). */
  const callbacks: URL[] = [];

  beforeAll(async () => {
    t = await createTestApp({ outboundAllowlist: '127.0.0.1', trustProxy: '10.9.9.9' });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    granary = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;

    // The IdP: oidc-provider behind a tiny front server that can re-sign its ID tokens wrongly.
    const { privateKey } = await generateKeyPair('RS256', { extractable: true });
    privateJwk = { ...(await exportJWK(privateKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };
    front = http.createServer();
    await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
    issuer = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
    const provider = new Provider(issuer, {
      clients: [
        {
          client_id: 'granary',
          client_secret: CLIENT_SECRET,
          redirect_uris: [`${granary}${V1}/sso/corp/callback`],
          grant_types: ['authorization_code'],
          response_types: ['code'],
          token_endpoint_auth_method: 'client_secret_basic',
        },
      ],
      jwks: { keys: [privateJwk] },
      cookies: { keys: ['oidc-test-cookie-key'] },
      claims: { openid: ['sub'], profile: ['preferred_username'], email: ['email'], groups: ['groups'] },
      scopes: ['openid', 'profile', 'email', 'groups'],
      conformIdTokenClaims: false,
      findAccount: async (_ctx, id) => ({
        accountId: id,
        claims: async () => ({
          sub: id,
          preferred_username: id,
          email: `${id}@corp.example`,
          groups: DIRECTORY[id] ?? [],
        }),
      }),
    });
    idp = http.createServer(provider.callback());
    await new Promise<void>((resolve) => idp.listen(0, '127.0.0.1', resolve));
    const idpPort = (idp.address() as AddressInfo).port;
    front.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const upstream = http.request(
          { host: '127.0.0.1', port: idpPort, method: req.method, path: req.url, headers: req.headers },
          (answer) => {
            const parts: Buffer[] = [];
            answer.on('data', (c: Buffer) => parts.push(c));
            answer.on('end', async () => {
              let body = Buffer.concat(parts);
              const headers = { ...answer.headers };
              if (req.url === '/token' && tamper !== 'none' && answer.statusCode === 200) {
                const json = JSON.parse(body.toString()) as { id_token: string };
                const claims = decodeJwt(json.id_token);
                const now = Math.floor(Date.now() / 1000);
                if (tamper === 'audience') claims.aud = 'someone-else';
                if (tamper === 'expired') Object.assign(claims, { iat: now - 7200, exp: now - 3600 });
                json.id_token = await new SignJWT(claims)
                  .setProtectedHeader({ alg: 'RS256', kid: 'test-key' })
                  .sign(await importJWK(privateJwk, 'RS256'));
                body = Buffer.from(JSON.stringify(json));
                headers['content-length'] = String(body.length);
              }
              res.writeHead(answer.statusCode ?? 502, headers);
              res.end(body);
            });
          },
        );
        upstream.end(Buffer.concat(chunks));
      });
    });

    const put = await t.app.inject({
      method: 'PUT',
      url: `${V1}/sso/providers/corp`,
      headers: { authorization: ADMIN },
      payload: {
        type: 'oidc',
        name: 'Corp SSO',
        brand: 'Okta',
        issuer,
        clientId: 'granary',
        clientSecret: CLIENT_SECRET,
        scopes: ['openid', 'profile', 'email', 'groups'],
        isDefault: true,
        autoRedirect: true,
        mapping: { createMissingGroups: true, adminGroups: ['granary-admins'] },
      },
    });
    expect(put.statusCode, put.body).toBe(201);
  }, 60_000);

  afterAll(async () => {
    await new Promise((resolve) => front?.close(resolve));
    await new Promise((resolve) => idp?.close(resolve));
    await t?.close();
  });

  /**
   * A browser signing in: follows every redirect by hand with a cookie jar and fills oidc-provider's
   * login and consent forms. Answers where Granary finally sent the browser and the jar.
   */
  async function browserSignIn(
    login: string,
    start = `${granary}${V1}/sso/corp/login?redirectTo=%2Fui%2Fpackages%3Ftab%3Dnpm`,
  ) {
    const jar = new CookieJar();
    let url = new URL(start);
    let method = 'GET';
    let body: string | undefined;
    for (let hop = 0; hop < 20; hop++) {
      const res = await fetch(url, {
        method,
        redirect: 'manual',
        headers: {
          cookie: jar.header(url),
          ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        },
        body,
      });
      jar.store(url, res);
      method = 'GET';
      body = undefined;
      if (res.status >= 300 && res.status < 400) {
        const next = new URL(res.headers.get('location')!, url);
        if (next.pathname === `${V1}/sso/corp/callback`) callbacks.push(next);
        if (url.origin === granary && next.origin === granary && !next.pathname.startsWith(`${V1}/`))
          return { landing: next, jar };
        url = next;
        continue;
      }
      const html = await res.text();
      const form = /<form[^>]*action="([^"]+)"[^>]*method="post"/.exec(html);
      const prompt = /name="prompt" value="(\w+)"/.exec(html);
      if (res.status !== 200 || !form || !prompt)
        throw new Error(`unexpected ${res.status} at ${url}: ${html.slice(0, 300)}`);
      url = new URL(form[1]!.replace(/&amp;/g, '&'), url);
      method = 'POST';
      body = new URLSearchParams(
        prompt[1] === 'login' ? { prompt: 'login', login, password: 'any' } : { prompt: prompt[1]! },
      ).toString();
    }
    throw new Error('too many hops');
  }

  const session = (jar: CookieJar) => jar.get(new URL(granary), SESSION_COOKIE);
  // security.log is written asynchronously: flush, then read.
  const securityLog = async () => {
    t.app.granary.logging.flush();
    return readFile(path.join(t.home, 'logs', 'security.log'), 'utf8');
  };

  it('issue 20 / spec 000 §3: the provider is written with its secret sealed at rest and never answered', async () => {
    const res = await t.app.inject({ url: `${V1}/sso/providers/corp`, headers: { authorization: ADMIN } });
    expect(res.statusCode).toBe(200);
    const provider = ssoProviderSchema.parse(res.json());
    expect(provider).toMatchObject({ type: 'oidc', clientSecret: '', clientSecretSet: true, issuer });
    const list = await t.app.inject({ url: `${V1}/sso/providers`, headers: { authorization: ADMIN } });
    expect(list.body).not.toContain(CLIENT_SECRET);
    expect(list.json().providers).toHaveLength(1);
    const [row] = await t.app.granary.database.db.select().from(ssoProviders);
    expect(JSON.stringify(row!.secrets)).not.toContain(CLIENT_SECRET);
    expect(row!.secrets.clientSecret).toMatch(/^gs1\./);
    // A save without the secret keeps it (the sign-ins below still work with it).
    const again = await t.app.inject({
      method: 'PUT',
      url: `${V1}/sso/providers/corp`,
      headers: { authorization: ADMIN },
      payload: { ...provider, clientSecret: '' },
    });
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toMatchObject({ clientSecret: '', clientSecretSet: true });
  });

  it('issue 20 / spec 000 §3, §4: the login state lists the provider with its icon and asks for auto-redirect', async () => {
    const res = await t.app.inject({ url: `${V1}/sso/loginState` });
    expect(res.json()).toMatchObject({
      oauthProviders: [
        { key: 'corp', name: 'Corp SSO', type: 'Okta', icon: 'okta', url: `${V1}/sso/corp/login` },
      ],
      ssoProviderLink: `${V1}/sso/corp/login`,
      isAutoRedirectLogin: true,
    });
    expect((await t.app.inject({ url: `${V1}/autoRedirectState` })).json()).toEqual({
      isAutoRedirectLogin: true,
    });
    expect((await t.app.inject({ url: `${V1}/loginRelatedData` })).json()).toMatchObject({
      ssoProviderLink: `${V1}/sso/corp/login`,
    });
  });

  it('issue 20: signing in through the real redirects creates the user with the mapped groups, admin by group, and lands on the asked path', async () => {
    const { landing, jar } = await browserSignIn('alice');
    expect(landing.pathname + landing.search).toBe('/ui/packages?tab=npm');
    const cookie = session(jar);
    expect(cookie).toBeTruthy();
    const me = await t.app.inject({
      url: `${V1}/ui/auth/current`,
      headers: { cookie: `${SESSION_COOKIE}=${cookie}` },
    });
    expect(me.json()).toMatchObject({
      name: 'alice',
      realm: 'oauth',
      admin: true,
      email: 'alice@corp.example',
    });
    expect(me.json().groups).toEqual(expect.arrayContaining(['developers', 'granary-admins']));
    const user = await t.app.inject({ url: '/api/security/users/alice', headers: { authorization: ADMIN } });
    expect(user.json()).toMatchObject({ name: 'alice', realm: 'oauth' });
    await expect.poll(securityLog).toMatch(/"event":"login.success".*"actor":"alice".*"channel":"sso"/);
    const log = await securityLog();
    expect(log).toMatch(/"event":"sso.groups.sync".*"actor":"alice"/);
    expect(log).not.toContain(CLIENT_SECRET);
    // The authorization code is not written to the request log.
    const code = callbacks.at(-1)!.searchParams.get('code')!;
    const requestLog = await readFile(path.join(t.home, 'logs', 'request.log'), 'utf8');
    expect(requestLog).toContain('/sso/corp/callback?code=[redacted]');
    expect(requestLog).not.toContain(code);

    // spec 000 §6: an OAuth realm user fetches an API key with an empty password.
    const key = await t.app.inject({
      url: `${V1}/apiKey/alice`,
      headers: {
        cookie: `${SESSION_COOKIE}=${cookie}`,
        [REAUTHENTICATION_HEADER]: basicAuth('alice', ''),
      },
    });
    expect(key.statusCode, key.body).toBe(200);
    const apiKey = key.json().apiKey as string;
    const withKey = await t.app.inject({
      url: `${V1}/ui/auth/current`,
      headers: { authorization: basicAuth('alice', apiKey) },
    });
    expect(withKey.json()).toMatchObject({ name: 'alice' });
  }, 30_000);

  it('issue 20 / spec 000 §2, §7: loginRequestPlatform with a registrationToken lands on the CLI registration page; auth-provider/{type} starts the flow', async () => {
    const session = 'S'.repeat(43);
    const { landing, jar } = await browserSignIn(
      'alice',
      `${granary}${V1}/ui/oauth2/loginRequestPlatform?provider=okta&registrationToken=${session}`,
    );
    expect(landing.pathname + landing.search).toBe(`/ui/login/cli-registration?session=${session}`);
    expect(jar.get(new URL(granary), SESSION_COOKIE)).toBeTruthy();
    for (const path of [`${V1}/auth-provider/okta`, `${V1}/sso/login/oauth`]) {
      const res = await t.app.inject({ url: path });
      expect(res.statusCode, path).toBe(302);
      expect(String(res.headers.location)).toMatch(new RegExp(`^${issuer}/auth\\?`));
    }
    const outsider = await t.app.inject({ url: `${V1}/sso/corp/login?redirectTo=https://evil.example/x` });
    expect(outsider.statusCode).toBe(302);
    const bad = await t.app.inject({ url: `${V1}/ui/oauth2/loginRequestPlatform?registrationToken=nope` });
    expect(bad.statusCode).toBe(400);
  }, 30_000);

  it('issue 20: an ID token for another audience is refused and nobody is signed in', async () => {
    tamper = 'audience';
    try {
      const { landing, jar } = await browserSignIn('bob');
      expect(landing.pathname).toBe('/ui/login');
      expect(landing.searchParams.get('ssoError')).toBe(SSO_MESSAGES.signInFailed);
      expect(session(jar)).toBeUndefined();
    } finally {
      tamper = 'none';
    }
    const user = await t.app.inject({ url: '/api/security/users/bob', headers: { authorization: ADMIN } });
    expect(user.statusCode).toBe(404);
    await expect
      .poll(securityLog)
      .toMatch(
        /"event":"login.failure".*"provider":"corp".*"reason":"token or ID token refused[^\n]*\(claim aud\)/,
      );
  }, 30_000);

  it('issue 20: an expired ID token is refused', async () => {
    tamper = 'expired';
    try {
      const { landing, jar } = await browserSignIn('bob');
      expect(landing.pathname).toBe('/ui/login');
      expect(session(jar)).toBeUndefined();
    } finally {
      tamper = 'none';
    }
    await expect.poll(securityLog).toMatch(/"reason":"token or ID token refused[^\n]*(claim exp|timestamp)/i);
  }, 30_000);

  it('issue 20: a replayed authorization code is refused, even with a fresh state', async () => {
    const { landing } = await browserSignIn('carol');
    expect(landing.pathname).toBe('/ui/packages');
    const used = callbacks.at(-1)!;
    // The same browser starts again and brings the old code back with the new state.
    const jar = new CookieJar();
    const startUrl = new URL(`${granary}${V1}/sso/corp/login`);
    const start = await fetch(startUrl, { redirect: 'manual' });
    jar.store(startUrl, start);
    const state = new URL(start.headers.get('location')!).searchParams.get('state')!;
    const replay = new URL(used);
    replay.searchParams.set('state', state);
    const res = await fetch(replay, { redirect: 'manual', headers: { cookie: jar.header(replay) } });
    expect(res.status).toBe(303);
    expect(new URL(res.headers.get('location')!, granary).pathname).toBe('/ui/login');
    expect(res.headers.getSetCookie().join()).not.toContain(`${SESSION_COOKIE}=`);
    await expect.poll(securityLog).toMatch(/"reason":"authorization code replayed"/);
  }, 30_000);

  it('issue 20: a disabled user is refused with a clear message', async () => {
    expect((await browserSignIn('dave')).landing.pathname).toBe('/ui/packages');
    const disable = await t.app.inject({
      method: 'POST',
      url: '/api/security/users/dave',
      headers: { authorization: ADMIN },
      payload: { disabled: true },
    });
    expect(disable.statusCode, disable.body).toBeLessThan(300);
    const { landing, jar } = await browserSignIn('dave');
    expect(landing.pathname).toBe('/ui/login');
    expect(landing.searchParams.get('ssoError')).toBe(SSO_MESSAGES.userDisabled);
    expect(session(jar)).toBeUndefined();
  }, 30_000);

  it('issue 20: the next sign-in syncs groups — a group the IdP no longer names is left, and admin goes with the admin group', async () => {
    DIRECTORY.alice = ['developers'];
    const { jar } = await browserSignIn('alice');
    const me = await t.app.inject({
      url: `${V1}/ui/auth/current`,
      headers: { cookie: `${SESSION_COOKIE}=${session(jar)}` },
    });
    expect(me.json()).toMatchObject({ name: 'alice', admin: false, groups: ['developers'] });
    await expect
      .poll(securityLog)
      .toMatch(/"event":"sso.groups.sync".*"removed":\["granary-admins"\].*"adminChanged":true/);
  }, 30_000);

  it('issue 20: with auto-create off, a user unknown to Granary is refused with a clear message', async () => {
    const current = ssoProviderSchema.parse(
      (await t.app.inject({ url: `${V1}/sso/providers/corp`, headers: { authorization: ADMIN } })).json(),
    );
    const off = await t.app.inject({
      method: 'PUT',
      url: `${V1}/sso/providers/corp`,
      headers: { authorization: ADMIN },
      payload: { ...current, autoCreateUsers: false },
    });
    expect(off.statusCode, off.body).toBe(200);
    try {
      const { landing, jar } = await browserSignIn('zed');
      expect(landing.searchParams.get('ssoError')).toBe(SSO_MESSAGES.unknownUser);
      expect(session(jar)).toBeUndefined();
      // The local administrator's name is never claimed through the identity provider.
      const admin = await browserSignIn('admin');
      expect(admin.landing.searchParams.get('ssoError')).toBe(SSO_MESSAGES.localUserExists);
      expect(session(admin.jar)).toBeUndefined();
      // Known users still sign in.
      expect((await browserSignIn('alice')).landing.pathname).toBe('/ui/packages');
    } finally {
      await t.app.inject({
        method: 'PUT',
        url: `${V1}/sso/providers/corp`,
        headers: { authorization: ADMIN },
        payload: { ...current, autoCreateUsers: true },
      });
    }
  }, 30_000);

  it('issue 20 / spec 000 §7: the test sign-in shows the mapped user to the admin and creates nobody', async () => {
    const admin = await t.app.inject({
      method: 'POST',
      url: `${V1}/ui/auth/login`,
      payload: { user: 'admin', password: TEST_ADMIN_PASSWORD, type: 'login' },
    });
    const adminCookie = /granary_session=([^;]+)/.exec(String(admin.headers['set-cookie']))![1]!;
    const jar = new CookieJar();
    const base = new URL(granary);
    // The admin's console session is in the popup's jar.
    jar.store(
      base,
      new Response(null, { headers: { 'set-cookie': `${SESSION_COOKIE}=${adminCookie}; Path=/` } }),
    );
    let url = new URL(`${granary}${V1}/sso/corp/test`);
    let method = 'GET';
    let body: string | undefined;
    let page = '';
    for (let hop = 0; hop < 20 && !page; hop++) {
      const res = await fetch(url, {
        method,
        redirect: 'manual',
        headers: {
          cookie: jar.header(url),
          ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        },
        body,
      });
      jar.store(url, res);
      method = 'GET';
      body = undefined;
      if (res.status >= 300 && res.status < 400) {
        url = new URL(res.headers.get('location')!, url);
        continue;
      }
      const html = await res.text();
      if (url.origin === granary) {
        expect(res.headers.get('content-type')).toMatch(/text\/html/);
        page = html;
        break;
      }
      const form = /<form[^>]*action="([^"]+)"/.exec(html)!;
      const prompt = /name="prompt" value="(\w+)"/.exec(html)!;
      url = new URL(form[1]!, url);
      method = 'POST';
      body = new URLSearchParams(
        prompt[1] === 'login' ? { prompt: 'login', login: 'erin', password: 'x' } : { prompt: prompt[1]! },
      ).toString();
    }
    const result = JSON.parse(
      /<script type="application\/json" id="granary-sso-test">(.*?)<\/script>/s.exec(page)![1]!,
    );
    expect(result).toMatchObject({
      ok: true,
      provider: 'corp',
      username: 'erin',
      email: 'erin@corp.example',
      admin: false,
    });
    expect(page).toContain('window.opener.postMessage');
    const user = await t.app.inject({ url: '/api/security/users/erin', headers: { authorization: ADMIN } });
    expect(user.statusCode).toBe(404);
  }, 30_000);

  it('issue 20: a plain OAuth 2.0 provider (GitHub style: code, token, then the user endpoint) signs a user in', async () => {
    // A GitHub-like server: it signs "octo" in at once, wants the secret in the form, answers the user as JSON.
    const codes = new Map<string, string>();
    const gh = http.createServer((req, res) => {
      const url = new URL(req.url!, 'http://x');
      if (url.pathname === '/login/oauth/authorize') {
        const code = `c${codes.size}`;
        codes.set(code, url.searchParams.get('code_challenge') ?? '');
        const back = new URL(url.searchParams.get('redirect_uri')!);
        back.searchParams.set('code', code);
        back.searchParams.set('state', url.searchParams.get('state')!);
        res.writeHead(302, { location: back.href }).end();
        return;
      }
      if (url.pathname === '/login/oauth/access_token') {
        let body = '';
        req.on('data', (c: Buffer) => {
          body += c.toString();
        });
        req.on('end', () => {
          const form = new URLSearchParams(body);
          const ok = codes.has(form.get('code')!) && form.get('client_secret') === 'gh-secret';
          res.writeHead(ok ? 200 : 400, { 'content-type': 'application/json' });
          res.end(
            JSON.stringify(
              ok ? { access_token: 'gho_x', token_type: 'bearer' } : { error: 'bad_verification_code' },
            ),
          );
        });
        return;
      }
      if (url.pathname === '/user' && req.headers.authorization === 'Bearer gho_x') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ login: 'octo', email: 'octo@github.example', id: 1 }));
        return;
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => gh.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(gh.address() as AddressInfo).port}`;
    try {
      const put = await t.app.inject({
        method: 'PUT',
        url: `${V1}/sso/providers/github`,
        headers: { authorization: ADMIN },
        payload: {
          type: 'oauth2',
          name: 'GitHub',
          brand: 'GitHub',
          authorizationUrl: `${base}/login/oauth/authorize`,
          tokenUrl: `${base}/login/oauth/access_token`,
          userInfoUrl: `${base}/user`,
          clientId: 'gh-client',
          clientSecret: 'gh-secret',
          scopes: ['read:user'],
        },
      });
      expect(put.statusCode, put.body).toBe(201);
      const state = (await t.app.inject({ url: `${V1}/sso/loginState` })).json();
      expect(state.oauthProviders).toContainEqual(
        expect.objectContaining({ key: 'github', type: 'GitHub', icon: 'github' }),
      );
      const { landing, jar } = await browserSignIn(
        'octo',
        `${granary}${V1}/sso/github/login?redirectTo=%2Fui%2Fbuilds`,
      );
      expect(landing.pathname).toBe('/ui/builds');
      const me = await t.app.inject({
        url: `${V1}/ui/auth/current`,
        headers: { cookie: `${SESSION_COOKIE}=${session(jar)}` },
      });
      expect(me.json()).toMatchObject({ name: 'octo', realm: 'oauth', email: 'octo@github.example' });
    } finally {
      await t.app.inject({
        method: 'DELETE',
        url: `${V1}/sso/providers/github`,
        headers: { authorization: ADMIN },
      });
      await new Promise((resolve) => gh.close(resolve));
    }
  }, 30_000);

  it('issue 20 / spec 000 §7: an HTTP SSO header is believed only from a GRANARY_TRUST_PROXY address', async () => {
    const off = await t.app.inject({ url: `${V1}/ui/httpsso`, headers: { 'x-remote-user': 'frank' } });
    expect(off.statusCode).toBe(404);
    const put = await t.app.inject({
      method: 'PUT',
      url: `${V1}/sso/providers/proxy`,
      headers: { authorization: ADMIN },
      payload: {
        type: 'http',
        name: 'Reverse proxy',
        header: 'X-Remote-User',
        groupsHeader: 'X-Remote-Groups',
      },
    });
    expect(put.statusCode, put.body).toBe(201);
    const stranger = await t.app.inject({
      url: `${V1}/ui/httpsso`,
      remoteAddress: '10.1.1.1',
      headers: { 'x-remote-user': 'frank' },
    });
    expect(stranger.statusCode).toBe(401);
    expect(String(stranger.headers['set-cookie'] ?? '')).not.toContain(SESSION_COOKIE);
    const proxied = await t.app.inject({
      url: `${V1}/ui/httpsso`,
      remoteAddress: '10.9.9.9',
      headers: { 'x-remote-user': 'frank', 'x-remote-groups': 'developers' },
    });
    expect(proxied.statusCode, proxied.body).toBe(200);
    expect(proxied.json()).toMatchObject({ name: 'frank', realm: 'http', groups: ['developers'] });
    expect(String(proxied.headers['set-cookie'])).toContain(`${SESSION_COOKIE}=`);
    await expect.poll(securityLog).toMatch(/HTTP SSO header from an untrusted address/);
  });

  it('issue 20 / spec 000 §7: Crowd answers clearly that it is not supported', async () => {
    const res = await t.app.inject({ url: `${V1}/ui/crowd/login` });
    expect(res.statusCode).toBe(501);
    expect(res.json().errors[0].message).toBe(SSO_MESSAGES.crowdUnsupported);
  });

  it('issue 20: a non-admin gets 403 on every admin route and secrets stay write-only', async () => {
    await t.app.inject({
      method: 'PUT',
      url: '/api/security/users/nora',
      headers: { authorization: ADMIN },
      payload: { password: 'Nora-pa55word!', email: 'nora@example.com' },
    });
    const nora = basicAuth('nora', 'Nora-pa55word!');
    for (const [method, url] of [
      ['GET', `${V1}/sso/providers`],
      ['GET', `${V1}/sso/providers/corp`],
      ['PUT', `${V1}/sso/providers/corp`],
      ['DELETE', `${V1}/sso/providers/corp`],
      ['GET', `${V1}/sso/corp/test`],
    ] as const) {
      const res = await t.app.inject({
        method,
        url,
        headers: { authorization: nora },
        ...(method === 'PUT' ? { payload: { type: 'http', name: 'x' } } : {}),
      });
      expect(res.statusCode, `${method} ${url}`).toBe(403);
    }
    const del = await t.app.inject({
      method: 'DELETE',
      url: `${V1}/sso/providers/proxy`,
      headers: { authorization: ADMIN },
    });
    expect(del.statusCode).toBe(204);
  });
});
