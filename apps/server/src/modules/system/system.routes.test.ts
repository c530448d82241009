import { generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  ENTITLEMENT_RULES,
  FEATURE_FLAG_DEFAULTS,
  LICENSE_MESSAGES,
  type LicensePayload,
  LOGO_MAX_BYTES,
  NO_LICENSE,
  ONLINE_NODE_STATUS,
} from '@granary/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  basicAuth,
  createTestApp,
  TEST_ADMIN_PASSWORD,
  type TestApp,
  testEngine,
} from '../../testing/index.ts';
import { upsertNode } from './system.queries.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
const PW = 'Sam-pa55word!';
const SAM = basicAuth('sam', PW);
const V1 = '/ui/api/v1';
const PNG = Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), Buffer.alloc(64, 1)]);

function keyPair(): { publicKey: string; privateKey: KeyObject } {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  return { publicKey: publicKey.export({ format: 'der', type: 'spki' }).toString('base64'), privateKey };
}

function licenseKey(privateKey: KeyObject, payload: Partial<LicensePayload> = {}): string {
  const full: LicensePayload = {
    id: 'lic-1',
    type: 'COMMERCIAL',
    licensedTo: 'Acme',
    issuedAt: '2025-01-01T00:00:00Z',
    validThrough: '2099-01-01T00:00:00Z',
    ...payload,
  };
  const body = Buffer.from(JSON.stringify(full)).toString('base64url');
  return `${body}.${sign(null, Buffer.from(body), privateKey).toString('base64url')}`;
}

describe(`system: console start-up calls (${testEngine})`, () => {
  let t: TestApp;
  const trusted = keyPair();
  const stranger = keyPair();
  beforeAll(async () => {
    t = await createTestApp({ licensePublicKeys: trusted.publicKey, flavour: 'cloud,trial' });
    await t.app.inject({
      method: 'PUT',
      url: '/api/security/users/sam',
      headers: { authorization: ADMIN },
      payload: { password: PW },
    });
  });
  afterAll(async () => {
    await t?.close();
  });
  const call = (
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    url: string,
    auth?: string,
    payload?: object,
  ) => t.app.inject({ method, url, headers: auth ? { authorization: auth } : {}, payload });
  const setAnonymous = (on: boolean) =>
    // The security settings are the access module's; an admin changes them through its API.
    t.app.access.context.settings.update({ anonymousAccess: on });

  it('spec 000 §7 GET ui/generalConfig: the login page gets server name, logo, footer, help links, anonymous flag and flavour; base URL and licence only once signed in', async () => {
    const anon = await call('GET', `${V1}/ui/generalConfig`);
    expect(anon.statusCode).toBe(200);
    expect(anon.json()).toEqual({
      serverName: 'Granary',
      logoUrl: null,
      footer: { text: '', logoUrl: null },
      helpLinksEnabled: true,
      anonymousAccessAllowed: false,
      dateFormat: 'dd-MM-yy HH:mm:ss z',
      flavour: { cloud: true, trial: true, freeTier: false, lightweight: false, registryOnly: false },
    });
    const signedIn = (await call('GET', `${V1}/ui/generalConfig`, SAM)).json();
    expect(signedIn.baseUrl).toBe('http://localhost:80');
    expect(signedIn.licenseType).toBe('ENTERPRISE_PLUS');
    await setAnonymous(true);
    try {
      const allowed = (await call('GET', `${V1}/ui/generalConfig`)).json();
      expect(allowed.anonymousAccessAllowed).toBe(true);
      expect(allowed.licenseType).toBe('ENTERPRISE_PLUS');
    } finally {
      await setAnonymous(false);
    }
  });

  it('spec 000 §7 POST ui/artifactgeneral: an admin changes server name, footer and help links; a regular user gets 403; bad values 400', async () => {
    expect((await call('POST', `${V1}/ui/artifactgeneral`, SAM, { serverName: 'x' })).statusCode).toBe(403);
    expect((await call('POST', `${V1}/ui/artifactgeneral`, undefined, { serverName: 'x' })).statusCode).toBe(
      401,
    );
    const res = await call('POST', `${V1}/ui/artifactgeneral`, ADMIN, {
      serverName: 'Acme Repo',
      footerText: 'Acme Corp',
      footerLogoUrl: 'https://acme.example/logo.png',
      helpLinksEnabled: false,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      serverName: 'Acme Repo',
      footer: { text: 'Acme Corp', logoUrl: 'https://acme.example/logo.png' },
      helpLinksEnabled: false,
    });
    const anon = (await call('GET', `${V1}/ui/generalConfig`)).json();
    expect(anon.serverName).toBe('Acme Repo');
    expect(
      (await call('POST', `${V1}/ui/artifactgeneral`, ADMIN, { footerLogoUrl: 'javascript:alert(1)' }))
        .statusCode,
    ).toBe(400);
    expect((await call('POST', `${V1}/ui/artifactgeneral`, ADMIN, { serverName: '' })).statusCode).toBe(400);
    expect((await call('POST', `${V1}/ui/artifactgeneral`, ADMIN, { unknown: 1 })).statusCode).toBe(400);
    const cleared = await call('POST', `${V1}/ui/artifactgeneral`, ADMIN, {
      footerLogoUrl: null,
      helpLinksEnabled: true,
    });
    expect(cleared.json().footer).toEqual({ text: 'Acme Corp', logoUrl: null });
  });

  it('spec 000 §4 logo choice: an admin uploads a PNG logo, served inert at a stable URL with its content type, then removes it', async () => {
    const up = await t.app.inject({
      method: 'PUT',
      url: `${V1}/ui/generalConfig/logo`,
      headers: { authorization: ADMIN, 'content-type': 'image/png' },
      payload: PNG,
    });
    expect(up.statusCode).toBe(200);
    const logoUrl: string = up.json().logoUrl;
    expect(logoUrl).toMatch(/^\/ui\/api\/v1\/ui\/logo\?v=[0-9a-f]{12}$/);
    const got = await t.app.inject({ method: 'GET', url: logoUrl });
    expect(got.statusCode).toBe(200);
    expect(got.headers['content-type']).toBe('image/png');
    expect(got.headers['x-content-type-options']).toBe('nosniff');
    expect(got.headers['content-security-policy']).toContain('sandbox');
    expect(got.rawPayload.equals(PNG)).toBe(true);
    const again = await t.app.inject({
      method: 'GET',
      url: logoUrl,
      headers: { 'if-none-match': got.headers.etag as string },
    });
    expect(again.statusCode).toBe(304);
    expect((await call('GET', `${V1}/ui/generalConfig`)).json().logoUrl).toBe(logoUrl);

    const del = await call('DELETE', `${V1}/ui/generalConfig/logo`, ADMIN);
    expect(del.json().logoUrl).toBeNull();
    expect((await call('GET', '/ui/api/v1/ui/logo')).statusCode).toBe(404);
  });

  it('logo upload refuses non-images, SVG, bytes that are not the declared type, oversized files and regular users', async () => {
    const put = (type: string, body: Buffer, auth = ADMIN) =>
      t.app.inject({
        method: 'PUT',
        url: `${V1}/ui/generalConfig/logo`,
        headers: { authorization: auth, 'content-type': type },
        payload: body,
      });
    expect((await put('text/html', Buffer.from('<script>alert(1)</script>'))).statusCode).toBe(415);
    expect((await put('image/svg+xml', Buffer.from('<svg onload="alert(1)"/>'))).statusCode).toBe(415);
    const disguised = await put('image/png', Buffer.from('<html><script>alert(1)</script></html>'));
    expect(disguised.statusCode).toBe(415);
    expect(disguised.json().errors[0].message).toBe('The file is not a image/png image');
    expect((await put('image/jpeg', PNG)).statusCode).toBe(415);
    const big = Buffer.concat([PNG, Buffer.alloc(LOGO_MAX_BYTES)]);
    expect((await put('image/png', big)).statusCode).toBe(413);
    expect((await put('image/png', PNG, SAM)).statusCode).toBe(403);
    expect((await call('GET', `${V1}/ui/generalConfig`)).json().logoUrl).toBeNull();
  });

  it('spec 000 §7 GET /system/featuresConfig: defaults for every flag; admin PATCH/PUT; unknown flags refused; needs sign-in unless anonymous access is allowed', async () => {
    expect((await call('GET', `${V1}/system/featuresConfig`)).statusCode).toBe(401);
    const defaults = await call('GET', `${V1}/system/featuresConfig`, SAM);
    expect(defaults.json()).toEqual(FEATURE_FLAG_DEFAULTS);
    expect((await call('PATCH', `${V1}/system/featuresConfig`, SAM, { demo: true })).statusCode).toBe(403);
    const patched = await call('PATCH', `${V1}/system/featuresConfig`, ADMIN, {
      demo: true,
      educationCenter: false,
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toMatchObject({ demo: true, educationCenter: false, helpLinks: true });
    const unknown = await call('PATCH', `${V1}/system/featuresConfig`, ADMIN, { flyingCars: true });
    expect(unknown.statusCode).toBe(400);
    expect((await call('PATCH', `${V1}/system/featuresConfig`, ADMIN, { demo: 'yes' })).statusCode).toBe(400);
    const replaced = await call('PUT', `${V1}/system/featuresConfig`, ADMIN, { template: true });
    expect(replaced.json()).toEqual({ ...FEATURE_FLAG_DEFAULTS, template: true });
    await setAnonymous(true);
    try {
      expect((await call('GET', `${V1}/system/featuresConfig`)).json().template).toBe(true);
    } finally {
      await setAnonymous(false);
    }
  });

  it('spec 000 §7 GET /system/ismicroserviceenabled (and /mc): repositories, access, scanning (issue 16) and distribution (issue 19) run here, mission control does not', async () => {
    const all = await call('GET', `${V1}/system/ismicroserviceenabled`);
    expect(all.json()).toEqual({
      artifactory: true,
      access: true,
      xray: true,
      distribution: true,
      mc: false,
      pipelines: false,
    });
    expect((await call('GET', `${V1}/system/ismicroserviceenabled/mc`)).json()).toEqual({
      name: 'mc',
      enabled: false,
    });
    expect((await call('GET', `${V1}/system/ismicroserviceenabled/access`)).json().enabled).toBe(true);
    expect((await call('GET', `${V1}/system/ismicroserviceenabled/nonsense`)).json().enabled).toBe(false);
  });

  it('spec 000 §7 GET /system/status/nodes, spec 000 §9: this node is Online with its version and heartbeat; a node silent for 15 s (issue 15) is Offline; admins only', async () => {
    expect((await call('GET', `${V1}/system/status/nodes`, SAM)).statusCode).toBe(403);
    const stale = new Date(Date.now() - 31_000);
    await upsertNode(t.app.granary.database.db, {
      id: 'node-gone',
      url: 'http://gone:8080',
      version: '0.0.1',
      revision: 'x',
      startedAt: new Date(Date.now() - 3_600_000),
      lastHeartbeatAt: stale,
    });
    const res = await call('GET', `${V1}/system/status/nodes`, ADMIN);
    expect(res.statusCode).toBe(200);
    const nodes = res.json().nodes as {
      node_id: string;
      status: string;
      current: boolean;
      version: string;
    }[];
    const self = nodes.find((n) => n.current)!;
    expect(self.status).toBe(ONLINE_NODE_STATUS);
    expect(self.node_id).toBe(readFileSync(`${t.home}/node-id`, 'utf8').trim());
    expect(self.version).toBe((await call('GET', '/api/system/version')).json().version);
    expect(nodes.find((n) => n.node_id === 'node-gone')?.status).toBe('Offline');
    const before = Date.parse((self as unknown as { last_heartbeat: string }).last_heartbeat);
    await new Promise((r) => setTimeout(r, 5));
    await t.app.system.nodes.beat();
    const after = (await call('GET', `${V1}/system/status/nodes`, ADMIN))
      .json()
      .nodes.find((n: { current: boolean }) => n.current);
    expect(Date.parse(after.last_heartbeat)).toBeGreaterThan(before);
  });

  it('spec 000 §7 GET /system/onboarding: starts not completed; an admin marks it completed', async () => {
    expect((await call('GET', `${V1}/system/onboarding`)).statusCode).toBe(401);
    expect((await call('GET', `${V1}/system/onboarding`, SAM)).json()).toEqual({
      completed: false,
      completedAt: null,
    });
    expect((await call('PUT', `${V1}/system/onboarding`, SAM, { completed: true })).statusCode).toBe(403);
    const done = await call('PUT', `${V1}/system/onboarding`, ADMIN, { completed: true });
    expect(done.json().completed).toBe(true);
    expect((await call('GET', `${V1}/system/onboarding`, SAM)).json().completed).toBe(true);
  });

  it('spec 000 §3 licence kinds: a fresh install carries the built-in ENTERPRISE_PLUS licence without expiry, entitling to everything', async () => {
    const lic = await call('GET', '/api/system/licenses', SAM);
    expect(lic.json()).toMatchObject({
      type: 'ENTERPRISE_PLUS',
      rank: 5,
      source: 'builtin',
      validThrough: null,
    });
    const ent = (await call('GET', `${V1}/jfconnect/entitlements`)).json();
    expect(ent.licenseType).toBe('ENTERPRISE_PLUS');
    expect(Object.keys(ent.entitlements).sort()).toEqual(Object.keys(ENTITLEMENT_RULES).sort());
    expect(Object.values(ent.entitlements).every(Boolean)).toBe(true);
  });

  it('spec 000 §3 licence install: a key signed by a trusted Ed25519 key is installed; bad signature, untrusted key, expired or malformed keys are refused with a clear message; regular users get 403', async () => {
    const bad = (key: string) => call('POST', '/api/system/licenses', ADMIN, { licenseKey: key });
    const expectRefused = async (key: string, message: string) => {
      const res = await bad(key);
      expect(res.statusCode).toBe(400);
      expect(res.json().errors[0].message).toBe(message);
    };
    const good = licenseKey(trusted.privateKey, { type: 'COMMERCIAL' });
    await expectRefused(licenseKey(stranger.privateKey), LICENSE_MESSAGES.badSignature);
    const [body, sig] = good.split('.') as [string, string];
    const tampered = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(body, 'base64url').toString()), type: 'ENTERPRISE_PLUS' }),
    ).toString('base64url');
    await expectRefused(`${tampered}.${sig}`, LICENSE_MESSAGES.badSignature);
    await expectRefused(
      licenseKey(trusted.privateKey, { validThrough: '2020-01-01T00:00:00Z' }),
      LICENSE_MESSAGES.expired,
    );
    await expectRefused('not-a-licence', LICENSE_MESSAGES.malformed);
    expect((await call('POST', '/api/system/licenses', SAM, { licenseKey: good })).statusCode).toBe(403);
    expect((await call('GET', '/api/system/licenses', SAM)).json().type).toBe('ENTERPRISE_PLUS');

    const installed = await call('POST', `${V1}/system/licenses`, ADMIN, { licenseKey: good });
    expect(installed.statusCode).toBe(200);
    expect(installed.json()).toMatchObject({
      type: 'COMMERCIAL',
      rank: 2,
      source: 'installed',
      licensedTo: 'Acme',
    });
    const ent = (await call('GET', `${V1}/jfconnect/entitlements`)).json();
    expect(ent).toMatchObject({ licenseType: 'COMMERCIAL', rank: 2 });
    expect(ent.entitlements).toMatchObject({
      repositories: true,
      scanning: true,
      distribution: false,
      releaseBundleSource: false,
    });
    expect((await call('GET', `${V1}/ui/generalConfig`, SAM)).json().licenseType).toBe('COMMERCIAL');
  });

  it('spec 000 §3: removing the licence leaves type N/A (rank 0, no entitlements); installing a key restores one', async () => {
    expect((await call('DELETE', '/api/system/licenses', SAM)).statusCode).toBe(403);
    const removed = await call('DELETE', '/api/system/licenses', ADMIN);
    expect(removed.json()).toMatchObject({
      type: NO_LICENSE,
      rank: 0,
      source: 'none',
      reason: LICENSE_MESSAGES.removed,
    });
    const ent = (await call('GET', `${V1}/jfconnect/entitlements`)).json();
    expect(ent.licenseType).toBe(NO_LICENSE);
    expect(Object.values(ent.entitlements).some(Boolean)).toBe(false);
    const edge = await call('POST', '/api/system/licenses', ADMIN, {
      licenseKey: licenseKey(trusted.privateKey, { type: 'EDGE', validThrough: null }),
    });
    expect(edge.json()).toMatchObject({ type: 'EDGE', rank: 4 });
    expect((await call('GET', `${V1}/jfconnect/entitlements`)).json().entitlements).toMatchObject({
      distribution: true,
      releaseBundleSource: false,
      highAvailability: true,
    });
  });

  it('spec 000 §4 route guard data, GET/PATCH system/loginConfig: public read; admins set the SSO URL, auto-redirect and SAML logout URL; auto-redirect needs an SSO URL; bad URLs 400', async () => {
    const fresh = await call('GET', `${V1}/system/loginConfig`);
    expect(fresh.statusCode).toBe(200);
    expect(fresh.json()).toEqual({ ssoLoginUrl: null, autoRedirectLogin: false, samlLogoutUrl: null });
    expect(
      (await call('PATCH', `${V1}/system/loginConfig`, SAM, { autoRedirectLogin: true })).statusCode,
    ).toBe(403);
    expect(
      (await call('PATCH', `${V1}/system/loginConfig`, undefined, { autoRedirectLogin: true })).statusCode,
    ).toBe(401);
    // Auto-redirect alone has nowhere to send visitors: it stays off until an SSO URL is set.
    const alone = await call('PATCH', `${V1}/system/loginConfig`, ADMIN, { autoRedirectLogin: true });
    expect(alone.json()).toEqual({ ssoLoginUrl: null, autoRedirectLogin: false, samlLogoutUrl: null });
    const set = await call('PATCH', `${V1}/system/loginConfig`, ADMIN, {
      ssoLoginUrl: 'https://idp.example/sso',
      samlLogoutUrl: 'https://idp.example/slo',
    });
    expect(set.statusCode).toBe(200);
    expect((await call('GET', `${V1}/system/loginConfig`)).json()).toEqual({
      ssoLoginUrl: 'https://idp.example/sso',
      autoRedirectLogin: true,
      samlLogoutUrl: 'https://idp.example/slo',
    });
    for (const bad of [
      { ssoLoginUrl: 'javascript:alert(1)' },
      { samlLogoutUrl: 'not a url' },
      { autoRedirectLogin: 'yes' },
      { unknown: true },
    ])
      expect(
        (await call('PATCH', `${V1}/system/loginConfig`, ADMIN, bad)).statusCode,
        JSON.stringify(bad),
      ).toBe(400);
    const cleared = await call('PATCH', `${V1}/system/loginConfig`, ADMIN, {
      ssoLoginUrl: null,
      samlLogoutUrl: null,
      autoRedirectLogin: false,
    });
    expect(cleared.json()).toEqual({ ssoLoginUrl: null, autoRedirectLogin: false, samlLogoutUrl: null });
  });

  it('every system route declares its access; a regular user gets 403 on each admin route', async () => {
    const mine = t.app.routeAccessTable.filter(
      (r) => r.method !== 'HEAD' && /\/(system|ui\/generalConfig|ui\/artifactgeneral|jfconnect)/.test(r.url),
    );
    const admin = mine.filter((r) => r.access === 'admin');
    expect(admin.map((r) => `${r.method} ${r.url}`).sort()).toEqual(
      [
        'DELETE /api/system/licenses',
        'DELETE /ui/api/v1/system/licenses',
        'DELETE /ui/api/v1/ui/generalConfig/logo',
        'PATCH /ui/api/v1/system/featuresConfig',
        'PATCH /ui/api/v1/system/loginConfig',
        'POST /api/system/licenses',
        'POST /ui/api/v1/system/licenses',
        'POST /ui/api/v1/ui/artifactgeneral',
        'PUT /ui/api/v1/system/featuresConfig',
        'PUT /ui/api/v1/system/onboarding',
        'PUT /ui/api/v1/ui/generalConfig/logo',
        'GET /ui/api/v1/system/status/nodes',
        'GET /ui/api/v1/system/status/ha',
        'GET /ui/api/v1/system/status/services',
        'GET /api/v1/system/health/detail',
        'GET /api/system/jobs',
        'POST /api/system/jobs/:name/run',
        'GET /api/system/jobs/queues/:name/dead',
        'POST /api/system/jobs/queues/:name/dead/:id/retry',
        'GET /api/system/storage/scrub',
        // issue 21 blob garbage collection (modules/storage/gc; Artifactory's path)
        'POST /api/system/storage/gc',
        // issue 15 support bundles (Artifactory's public twins)
        'POST /api/system/support/bundle',
        'GET /api/system/support/bundles',
        'GET /api/system/support/bundle/:id',
        'GET /api/system/support/bundle/:id/archive',
        'DELETE /api/system/support/bundle/:id',
        // issue 15 reverse proxy settings (modules/proxies; Artifactory's public paths)
        'GET /api/system/configuration/webServer',
        'POST /api/system/configuration/webServer',
        'GET /api/system/configuration/reverseProxy/nginx',
        // issue 15 log viewer (console calls and Artifactory's public twins)
        'GET /ui/api/v1/system/logs/config/:logType',
        'GET /ui/api/v1/system/logs/data/:logType',
        'GET /api/system/logs/config',
        'GET /api/system/logs/data',
      ].sort(),
    );
    for (const { method, url } of admin) {
      const res = await t.app.inject({
        method: method as 'GET',
        url,
        headers: { authorization: SAM },
        payload: method === 'GET' ? undefined : {},
      });
      expect(res.statusCode, `${method} ${url}`).toBe(403);
    }
  });

  it('no licence key or password reaches a log file', async () => {
    t.app.granary.logging.flush();
    const dir = t.app.granary.logging.dir;
    const sig = licenseKey(trusted.privateKey, { type: 'COMMERCIAL' }).split('.')[1]!;
    for (const file of ['server.log', 'request.log', 'security.log']) {
      const text = readFileSync(`${dir}/${file}`, 'utf8');
      expect(text).not.toContain(sig);
      expect(text).not.toContain(PW);
      expect(text).not.toContain(TEST_ADMIN_PASSWORD);
    }
  });
});

describe(`system: licensing off by configuration (${testEngine})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ license: 'none' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('spec 000 §3, §4 route guard: GRANARY_LICENSE=none gives licence type N/A everywhere, and installing is refused', async () => {
    const lic = await t.app.inject({ url: '/api/system/licenses', headers: { authorization: ADMIN } });
    expect(lic.json()).toMatchObject({
      type: NO_LICENSE,
      rank: 0,
      reason: LICENSE_MESSAGES.disabledByConfig,
    });
    const general = await t.app.inject({ url: `${V1}/ui/generalConfig`, headers: { authorization: ADMIN } });
    expect(general.json().licenseType).toBe(NO_LICENSE);
    const ent = await t.app.inject({ url: `${V1}/jfconnect/entitlements` });
    expect(ent.json().licenseType).toBe(NO_LICENSE);
    const install = await t.app.inject({
      method: 'POST',
      url: '/api/system/licenses',
      headers: { authorization: ADMIN },
      payload: { licenseKey: 'a.b' },
    });
    expect(install.statusCode).toBe(400);
    expect(install.json().errors[0].message).toBe(LICENSE_MESSAGES.disabledByConfig);
  });

  it('without a trusted public key, a licence cannot be verified', async () => {
    // spec 000 §3: no GRANARY_LICENSE_PUBLIC_KEYS and no built-in issuing key yet.
    const other = await createTestApp();
    try {
      const res = await other.app.inject({
        method: 'POST',
        url: '/api/system/licenses',
        headers: { authorization: ADMIN },
        payload: { licenseKey: licenseKey(keyPair().privateKey) },
      });
      expect(res.json().errors[0].message).toBe(LICENSE_MESSAGES.noTrustedKey);
    } finally {
      await other.close();
    }
  });
});
