import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { applicationCreatedSchema, consentRequestSchema, SESSION_COOKIE } from '@granary/contracts';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  basicAuth,
  createTestApp,
  TEST_ADMIN_PASSWORD,
  type TestApp,
  testEngine,
} from '../../testing/index.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
const PW = 'Ursula-pa55word!';
const API = '/ui/api/v1/integrations/applications';
const teamRead = {
  repo: {
    repositories: ['team-files'],
    include_patterns: ['public/**'],
    exclude_patterns: [],
    actions: { users: { ursula: ['read'] } },
  },
};

/**
 * A third-party web application on loopback, written as such applications are, with `openid-client`
 * 6 (OAuth 2.0 mode, client_secret_basic): `/login` starts the authorization-code flow with PKCE
 * S256, `/callback` redeems the code. It knows Granary only by its base URL and RFC 8414 metadata.
 */
class ThirdPartyApp {
  server: Server = createServer((req, res) => void this.handle(req.url ?? '/', res));
  config!: oidc.Configuration;
  pending = new Map<string, string>();
  tokens: oidc.TokenEndpointResponse | undefined;
  error: unknown;

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  async connect(granary: string, clientId: string, secret: string): Promise<void> {
    this.config = await oidc.discovery(
      new URL(granary),
      clientId,
      undefined,
      oidc.ClientSecretBasic(secret),
      {
        execute: [oidc.allowInsecureRequests],
        algorithm: 'oauth2',
      },
    );
  }
  private async handle(path: string, res: import('node:http').ServerResponse): Promise<void> {
    const url = new URL(path, this.url);
    if (url.pathname === '/login') {
      const verifier = oidc.randomPKCECodeVerifier();
      const state = oidc.randomState();
      this.pending.set(state, verifier);
      const to = oidc.buildAuthorizationUrl(this.config, {
        redirect_uri: `${this.url}/callback`,
        scope: 'applied-permissions/user',
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        state,
      });
      res.writeHead(302, { location: to.href }).end();
      return;
    }
    if (url.pathname === '/callback') {
      const state = url.searchParams.get('state') ?? '';
      try {
        this.tokens = await oidc.authorizationCodeGrant(this.config, url, {
          pkceCodeVerifier: this.pending.get(state),
          expectedState: state,
        });
        res.writeHead(200).end('connected to Granary');
      } catch (err) {
        this.error = err;
        res.writeHead(500).end(String(err));
      }
      return;
    }
    res.writeHead(404).end();
  }
  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

describe(`issue 18 acceptance: a third-party app does authorization code + PKCE as a regular user (${testEngine})`, () => {
  let t: TestApp;
  let granary: string;
  let thirdParty: ThirdPartyApp;
  const admin = (method: string, path: string, body?: unknown, contentType = 'application/json') =>
    fetch(`${granary}${path}`, {
      method,
      headers:
        body === undefined ? { authorization: ADMIN } : { authorization: ADMIN, 'content-type': contentType },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
  const download = (token: string, path: string) =>
    fetch(`${granary}/repository/${path}`, { headers: { authorization: `Bearer ${token}` } });

  beforeAll(async () => {
    t = await createTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    granary = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    thirdParty = await new ThirdPartyApp().start();
    expect((await admin('PUT', '/api/security/users/ursula', { password: PW })).status).toBe(201);
    for (const key of ['team-files', 'secret-files']) {
      expect(
        (await admin('PUT', `/api/repositories/${key}`, { rclass: 'local', packageType: 'generic' })).ok,
      ).toBe(true);
      for (const file of ['public/report.txt', 'private/plan.txt'])
        expect(
          (await admin('PUT', `/repository/${key}/${file}`, `${key} ${file}`, 'text/plain')).status,
        ).toBe(201);
    }
    // Ursula may read team-files/public/** only.
    const grant = await admin('PUT', '/api/security/permissions/team-read', teamRead);
    expect(grant.ok).toBe(true);
  });
  afterAll(async () => {
    await thirdParty?.stop();
    await t?.close();
  });

  it('issue 18 / spec 001 §7: consent in the console, a token acting for the user (200 on their artifact; refused one they may not read, 403 on a write they may not do), rotating refresh, RFC 7009 revocation, and revoking the user integration kills the tokens (401)', async () => {
    // The admin registers the application (spec 001 §7 POST create) with its callback.
    const res = await admin('POST', API, {
      name: 'report-bot',
      type: 'web',
      callbackUrl: `${thirdParty.url}/callback`,
      platformBaseUrl: thirdParty.url,
    });
    expect(res.status).toBe(201);
    const app = applicationCreatedSchema.parse(await res.json());
    await thirdParty.connect(granary, app.clientId, app.clientSecret);

    // The user's browser: the app sends it to Granary, Granary to the console's consent screen.
    const toGranary = await fetch(`${thirdParty.url}/login`, { redirect: 'manual' });
    const authorizeUrl = new URL(toGranary.headers.get('location')!);
    expect(authorizeUrl.searchParams.get('code_challenge_method')).toBe('S256');
    const toConsent = await fetch(authorizeUrl, { redirect: 'manual' });
    expect(toConsent.status).toBe(302);
    const consentUrl = new URL(toConsent.headers.get('location')!, granary);
    expect(consentUrl.pathname).toBe('/ui/oauth/consent');
    const requestId = consentUrl.searchParams.get('request')!;

    // Signed in to the console as ursula, the consent screen's calls.
    const login = await fetch(`${granary}/ui/api/v1/ui/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ user: 'ursula', password: PW }),
    });
    expect(login.status).toBe(200);
    const cookie = login.headers
      .getSetCookie()
      .find((c) => c.startsWith(`${SESSION_COOKIE}=`))!
      .split(';')[0]!;
    const session = { cookie, 'x-granary-csrf': '1', 'content-type': 'application/json' };
    const consent = consentRequestSchema.parse(
      await (await fetch(`${granary}${API}/consent/${requestId}`, { headers: { cookie } })).json(),
    );
    expect(consent).toMatchObject({
      applicationName: 'report-bot',
      username: 'ursula',
      scopes: ['applied-permissions/user'],
    });
    const approved = await fetch(`${granary}${API}/authorize/${app.clientId}/ursula`, {
      method: 'POST',
      headers: session,
      body: JSON.stringify({ requestId }),
    });
    expect(approved.status).toBe(200);
    const { url } = (await approved.json()) as { url: string };
    expect(url.startsWith(`${thirdParty.url}/callback?code=`)).toBe(true);

    // The browser lands on the app's callback; the app redeems the code (PKCE verifier, client secret).
    const landed = await fetch(url);
    expect(landed.status, String(thirdParty.error)).toBe(200);
    const first = thirdParty.tokens!;
    expect(first).toMatchObject({
      token_type: expect.stringMatching(/^bearer$/i),
      scope: 'applied-permissions/user',
    });
    expect(first.refresh_token).toBeTruthy();
    // A code is used once.
    const replay = await fetch(url);
    expect(replay.status).toBe(500);

    // The token acts for ursula with her rights, answered exactly as her own password is: an artifact
    // she may not read is refused as Granary refuses it to her (404, DESIGN Access model: what she may
    // not read she does not see), and writing where she may only read is refused with 403.
    const ok = await download(first.access_token, 'team-files/public/report.txt');
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('team-files public/report.txt');
    const withPassword = (path: string) =>
      fetch(`${granary}/repository/${path}`, { headers: { authorization: basicAuth('ursula', PW) } });
    for (const path of ['team-files/private/plan.txt', 'secret-files/public/report.txt']) {
      const refused = await download(first.access_token, path);
      expect(refused.status, path).toBe(404);
      expect(await refused.text()).not.toContain('plan.txt');
      expect((await withPassword(path)).status, path).toBe(404);
    }
    const write = await fetch(`${granary}/repository/team-files/public/new.txt`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${first.access_token}`, 'content-type': 'text/plain' },
      body: 'x',
    });
    expect(write.status).toBe(403);

    // Refresh rotates: a new pair, and the old refresh token is spent.
    const second = await oidc.refreshTokenGrant(thirdParty.config, first.refresh_token!);
    expect(second.access_token).not.toBe(first.access_token);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect((await download(second.access_token, 'team-files/public/report.txt')).status).toBe(200);
    await expect(oidc.refreshTokenGrant(thirdParty.config, first.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });

    // The token has the user's current rights, not those at consent: a withdrawn permission applies at once.
    expect((await admin('DELETE', '/api/security/permissions/team-read')).ok).toBe(true);
    expect((await download(second.access_token, 'team-files/public/report.txt')).status).toBe(404);
    expect((await admin('PUT', '/api/security/permissions/team-read', teamRead)).ok).toBe(true);
    expect((await download(second.access_token, 'team-files/public/report.txt')).status).toBe(200);

    // RFC 7009: the app revokes its first access token; it is refused at once.
    await oidc.tokenRevocation(thirdParty.config, first.access_token);
    expect((await download(first.access_token, 'team-files/public/report.txt')).status).toBe(401);
    expect((await download(second.access_token, 'team-files/public/report.txt')).status).toBe(200);

    // Ursula sees the integration and revokes it: every token of the app stops working.
    const mine = await (
      await fetch(`${granary}${API}/user-integrations/ursula`, { headers: { cookie } })
    ).json();
    expect(mine).toEqual([
      expect.objectContaining({
        username: 'ursula',
        client_id: app.clientId,
        application_name: 'report-bot',
      }),
    ]);
    const revoked = await fetch(`${granary}${API}/user-integrations/${app.clientId}/ursula`, {
      method: 'DELETE',
      headers: { cookie, 'x-granary-csrf': '1' },
    });
    expect(revoked.status).toBe(204);
    expect((await download(second.access_token, 'team-files/public/report.txt')).status).toBe(401);
    await expect(oidc.refreshTokenGrant(thirdParty.config, second.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    expect(
      await (await fetch(`${granary}${API}/user-integrations/ursula`, { headers: { cookie } })).json(),
    ).toEqual([]);

    // Secrets are never logged: not the client secret, the access tokens or the refresh tokens.
    t.app.granary.logging.flush();
    for (const file of ['server.log', 'request.log', 'security.log']) {
      const text = await readFile(path.join(t.app.granary.logging.dir, file), 'utf8');
      for (const secret of [
        app.clientSecret,
        first.access_token,
        second.access_token,
        first.refresh_token!,
        second.refresh_token!,
      ])
        expect(text.includes(secret), `${file} holds a secret`).toBe(false);
    }
  });

  it('issue 18: the token endpoint refuses an unknown client (401 invalid_client), a public client without its secret, and an unknown code (invalid_grant)', async () => {
    const token = (body: string, authorization?: string) =>
      fetch(`${granary}/access/api/v1/oauth2/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          ...(authorization ? { authorization } : {}),
        },
        body,
      });
    const wrong = await token('grant_type=authorization_code&code=abc', basicAuth('granary-unknown', 'x'));
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ error: 'invalid_client' });
    const created = await admin('POST', API, {
      name: 'second-app',
      type: 'cli',
      callbackUrl: 'http://127.0.0.1:9/cb',
      platformBaseUrl: 'http://127.0.0.1:9',
    });
    const app = applicationCreatedSchema.parse(await created.json());
    // A code_verifier alone does not replace the client secret: these clients are confidential.
    const publicClient = await token(
      `grant_type=authorization_code&code=abc&client_id=${app.clientId}&code_verifier=${'a'.repeat(43)}`,
    );
    expect(publicClient.status).toBe(400);
    expect(await publicClient.json()).toMatchObject({ error: 'invalid_client' });
    const unknownCode = await token(
      `grant_type=authorization_code&code=abc&redirect_uri=${encodeURIComponent(app.callbackUrl)}`,
      basicAuth(app.clientId, app.clientSecret),
    );
    expect(unknownCode.status).toBe(400);
    expect(await unknownCode.json()).toMatchObject({ error: 'invalid_grant' });
  });
});
