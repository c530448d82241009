import type { AddressInfo } from 'node:net';
import { SESSION_COOKIE, ssoProviderWriteSchema } from '@granary/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicAuth, createTestApp, TEST_ADMIN_PASSWORD, type TestApp } from '../../../testing/test-app.ts';
import { putProvider } from './providers.service.ts';
import { startTestIdp, type TestIdp, type TestIdpUser } from './saml-test-idp.ts';

/**
 * Acceptance (issue 20, SAML 2.0): a real Granary server on loopback and an identity provider started
 * by the test (samlify in the IdP role, its own key and certificate, its metadata read by URL through
 * platform/outbound). The IdP signs assertions that are posted to the server's ACS as a browser would.
 */
describe('SAML 2.0 sign-in against a real identity provider (issue 20)', () => {
  let t: TestApp;
  let idp: TestIdp;
  let base: string;
  let spMetadata: string;
  const alice: TestIdpUser = {
    uid: 'alice',
    mail: 'alice@example.test',
    groups: ['developers', 'saml-admins-not'],
  };

  const provider = (extra: Record<string, unknown> = {}) =>
    ssoProviderWriteSchema.parse({
      type: 'saml',
      name: 'Test IdP',
      idpMetadataUrl: idp.metadataUrl,
      allowIdpInitiated: false,
      autoCreateUsers: true,
      mapping: {
        usernameClaim: 'uid',
        emailClaim: 'mail',
        groupsClaim: 'groups',
        createMissingGroups: true,
        adminGroups: [],
      },
      ...extra,
    });
  const meta = {
    principal: null,
    ip: '127.0.0.1',
    requestId: 'test',
    baseUrl: '',
    mailBaseUrl: null,
    https: false,
  };

  /** A sign-in started at Granary: the signed AuthnRequest read by the IdP. */
  async function startLogin(key = 'idp', redirectTo = '/ui/packages') {
    const res = await fetch(
      `${base}/ui/api/v1/sso/${key}/saml/login?redirectTo=${encodeURIComponent(redirectTo)}`,
      {
        redirect: 'manual',
      },
    );
    expect(res.status).toBe(302);
    const location = res.headers.get('location')!;
    expect(location.startsWith(`${idp.metadataUrl.replace('/metadata', '/sso')}?`)).toBe(true);
    return idp.readAuthnRequest(location, spMetadata);
  }

  /** Posts a SAMLResponse to the ACS as the browser's auto-submitted form does. */
  async function post(samlResponse: string, key = 'idp', relayState?: string) {
    const form = new URLSearchParams({
      SAMLResponse: samlResponse,
      ...(relayState ? { RelayState: relayState } : {}),
    });
    const res = await fetch(`${base}/ui/api/v1/sso/${key}/saml/acs`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form,
    });
    const cookie = res.headers
      .getSetCookie()
      .find((c) => c.startsWith(`${SESSION_COOKIE}=`) && !c.startsWith(`${SESSION_COOKIE}=;`));
    return { status: res.status, location: res.headers.get('location') ?? '', cookie: cookie?.split(';')[0] };
  }

  /** Refused: the browser is back on the login page with the message, no session; the audit names the reason. */
  async function expectRefused(samlResponse: string, message: RegExp, reason: string, key = 'idp') {
    const answer = await post(samlResponse, key);
    expect(answer.status).toBe(303);
    expect(answer.location.startsWith('/ui/login?')).toBe(true);
    expect(new URL(answer.location, base).searchParams.get('ssoError')).toMatch(message);
    expect(answer.cookie).toBeUndefined();
    const [last] = (await t.app.access.context.audit.recent(20)).filter((e) => e.action === 'login.failure');
    expect(last?.details).toMatchObject({ channel: 'sso', realm: 'saml', provider: key, reason });
  }

  beforeAll(async () => {
    idp = await startTestIdp();
    t = await createTestApp({ outboundAllowlist: '127.0.0.1' });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    const ctx = t.app.access.context;
    await putProvider(ctx, meta, 'idp', provider());
    await putProvider(
      ctx,
      meta,
      'idp-initiated',
      // This one has the IdP's metadata uploaded (XML) rather than read from its URL.
      provider({
        name: 'IdP-initiated',
        allowIdpInitiated: true,
        idpMetadataUrl: null,
        idpMetadataXml: idp.metadataXml,
      }),
    );
    const res = await fetch(`${base}/ui/api/v1/sso/idp/saml/metadata`);
    expect(res.status).toBe(200);
    spMetadata = await res.text();
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    await idp?.close();
  });

  it('issue 20: the SP metadata is at a stable URL with the ACS, a signing certificate and signed requests', async () => {
    expect(spMetadata).toContain(`entityID="${base}/ui/api/v1/sso/idp/saml/metadata"`);
    expect(spMetadata).toContain(`Location="${base}/ui/api/v1/sso/idp/saml/acs"`);
    expect(spMetadata).toContain('AuthnRequestsSigned="true"');
    expect(spMetadata).toMatch(/<ds:X509Certificate>[A-Za-z0-9+/=]{200,}<\/ds:X509Certificate>/);
    // The same key on the next read: the SP's key pair is stored (sealed), not made per request.
    expect(await (await fetch(`${base}/ui/api/v1/sso/idp/saml/metadata`)).text()).toBe(spMetadata);
  });

  it('issue 20: SP-initiated sign-in with a signed assertion opens a session for the mapped user and groups', async () => {
    const request = await startLogin();
    const answer = await post(
      await idp.respond({ spMetadataXml: spMetadata, user: alice, inResponseTo: request.id }),
    );
    expect(answer.status).toBe(303);
    expect(answer.location).toBe('/ui/packages');
    expect(answer.cookie).toBeDefined();
    const me = await fetch(`${base}/ui/api/v1/ui/auth/current`, { headers: { cookie: answer.cookie! } });
    const user = (await me.json()) as {
      name: string;
      realm: string;
      email: string;
      groups: string[];
      anonymous: boolean;
    };
    expect(user).toMatchObject({
      name: 'alice',
      realm: 'saml',
      email: 'alice@example.test',
      anonymous: false,
    });
    expect(user.groups).toContain('developers');

    // spec 000 §4: a SAML user is sent to the SAML logout URL — here a LogoutRequest to the IdP's SLO.
    const logout = await fetch(`${base}/ui/api/v1/auth/saml/samlLogoutUrl`, {
      headers: { cookie: answer.cookie! },
    });
    const { logoutUrl } = (await logout.json()) as { logoutUrl: string | null };
    expect(logoutUrl).toMatch(new RegExp(`^${idp.metadataUrl.replace('/metadata', '/slo')}\\?SAMLRequest=`));
    expect(logoutUrl).toContain('Signature=');
    // Anonymous callers have none.
    const anonymous = await fetch(`${base}/ui/api/v1/auth/saml/samlLogoutUrl`);
    expect(await anonymous.json()).toEqual({ logoutUrl: null });
  });

  it('issue 20: an admin test sign-in shows the mapped user and groups, and creates nobody', async () => {
    const anonymous = await fetch(`${base}/ui/api/v1/sso/idp/saml/login?test=true`, { redirect: 'manual' });
    expect(anonymous.status).toBe(403);
    const res = await fetch(`${base}/ui/api/v1/sso/idp/saml/login?test=true`, {
      redirect: 'manual',
      headers: { authorization: basicAuth('admin', TEST_ADMIN_PASSWORD) },
    });
    expect(res.status).toBe(302);
    const request = await idp.readAuthnRequest(res.headers.get('location')!, spMetadata);
    const tester: TestIdpUser = { uid: 'tess', mail: 'tess@example.test', groups: ['qa'] };
    const form = new URLSearchParams({
      SAMLResponse: await idp.respond({ spMetadataXml: spMetadata, user: tester, inResponseTo: request.id }),
    });
    const page = await fetch(`${base}/ui/api/v1/sso/idp/saml/acs`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form,
    });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<dd>tess</dd>');
    expect(html).toContain('<dd>qa</dd>');
    expect(page.headers.getSetCookie().some((c) => c.startsWith(`${SESSION_COOKIE}=`))).toBe(false);
    const user = await fetch(`${base}/api/security/users/tess`, {
      headers: { authorization: basicAuth('admin', TEST_ADMIN_PASSWORD) },
    });
    expect(user.status).toBe(404);
  });

  it('issue 20: an unsigned assertion is refused', async () => {
    const request = await startLogin();
    const signed = await idp.respond({ spMetadataXml: spMetadata, user: alice, inResponseTo: request.id });
    const xml = Buffer.from(signed, 'base64').toString('utf8');
    const unsigned = xml.replace(/<ds:Signature[\s\S]*?<\/ds:Signature>/, '');
    expect(unsigned).not.toContain('Signature');
    await expectRefused(Buffer.from(unsigned).toString('base64'), /not signed/, 'assertion not signed');
  });

  it('issue 20: an assertion whose signed content was altered is refused', async () => {
    const request = await startLogin();
    const xml = Buffer.from(
      await idp.respond({ spMetadataXml: spMetadata, user: alice, inResponseTo: request.id }),
      'base64',
    ).toString('utf8');
    const altered = xml.replace(
      '<saml:AttributeValue>alice</saml:AttributeValue>',
      '<saml:AttributeValue>admin</saml:AttributeValue>',
    );
    expect(altered).not.toBe(xml);
    await expectRefused(Buffer.from(altered).toString('base64'), /Single sign-on failed/, 'bad signature');
  });

  it('issue 20: an assertion for another audience is refused', async () => {
    const request = await startLogin();
    await expectRefused(
      await idp.respond({
        spMetadataXml: spMetadata,
        user: alice,
        inResponseTo: request.id,
        tweak: { Audience: 'https://another-sp.example/metadata' },
      }),
      /Single sign-on failed/,
      'wrong audience',
    );
  });

  it('issue 20: an expired assertion is refused', async () => {
    const request = await startLogin();
    const past = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
    await expectRefused(
      await idp.respond({
        spMetadataXml: spMetadata,
        user: alice,
        inResponseTo: request.id,
        tweak: {
          IssueInstant: past(60),
          ConditionsNotBefore: past(60),
          ConditionsNotOnOrAfter: past(55),
          SubjectConfirmationDataNotOnOrAfter: past(55),
        },
      }),
      /expired/,
      'expired',
    );
  });

  it('issue 20: a response for another recipient is refused', async () => {
    const request = await startLogin();
    await expectRefused(
      await idp.respond({
        spMetadataXml: spMetadata,
        user: alice,
        inResponseTo: request.id,
        tweak: {
          Destination: 'https://elsewhere.example/saml/acs',
          SubjectRecipient: 'https://elsewhere.example/saml/acs',
        },
      }),
      /Single sign-on failed/,
      'wrong destination',
    );
    // The assertion's own (signed) Recipient decides even when the Response's Destination looks right.
    const again = await startLogin();
    await expectRefused(
      await idp.respond({
        spMetadataXml: spMetadata,
        user: alice,
        inResponseTo: again.id,
        tweak: { SubjectRecipient: 'https://elsewhere.example/saml/acs' },
      }),
      /Single sign-on failed/,
      'wrong recipient',
    );
  });

  it('issue 20: a replayed assertion is refused (IdP-initiated, the assertion id remembered)', async () => {
    const response = await idp.respond({
      spMetadataXml: spMetadata.replaceAll('/sso/idp/saml/', '/sso/idp-initiated/saml/'),
      user: { uid: 'bob', groups: ['developers'] },
      inResponseTo: null,
    });
    const first = await post(response, 'idp-initiated', '/ui/builds');
    expect(first.status).toBe(303);
    expect(first.location).toBe('/ui/builds');
    expect(first.cookie).toBeDefined();
    const again = await post(response, 'idp-initiated');
    expect(again.location).toMatch(/^\/ui\/login\?/);
    expect(new URL(again.location, base).searchParams.get('ssoError')).toMatch(/already used/);
    expect(again.cookie).toBeUndefined();
  });

  it('issue 20: an answer to a request already answered, or never made, is refused', async () => {
    const request = await startLogin();
    const ok = await post(
      await idp.respond({ spMetadataXml: spMetadata, user: alice, inResponseTo: request.id }),
    );
    expect(ok.cookie).toBeDefined();
    await expectRefused(
      await idp.respond({ spMetadataXml: spMetadata, user: alice, inResponseTo: request.id }),
      /took too long or was already used/,
      'unknown or used InResponseTo',
    );
    await expectRefused(
      await idp.respond({ spMetadataXml: spMetadata, user: alice, inResponseTo: '_never-requested' }),
      /took too long or was already used/,
      'unknown or used InResponseTo',
    );
  });

  it('issue 20: IdP-initiated sign-in is refused where the provider does not allow it', async () => {
    await expectRefused(
      await idp.respond({ spMetadataXml: spMetadata, user: alice, inResponseTo: null }),
      /start the sign-in from Granary/,
      'IdP-initiated sign-in not allowed',
    );
  });

  it('issue 20: XML signature wrapping — a second, unsigned assertion beside or around the signed one — is refused', async () => {
    const forged = (id: string) =>
      `<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${id}" Version="2.0" IssueInstant="${new Date().toISOString()}"><saml:Issuer>${idp.entityId}</saml:Issuer><saml:Subject><saml:NameID>admin</saml:NameID></saml:Subject><saml:AttributeStatement><saml:Attribute Name="uid"><saml:AttributeValue>admin</saml:AttributeValue></saml:Attribute></saml:AttributeStatement>`;
    // Beside: the forged assertion first, the signed one after it.
    let request = await startLogin();
    let xml = Buffer.from(
      await idp.respond({ spMetadataXml: spMetadata, user: alice, inResponseTo: request.id }),
      'base64',
    ).toString('utf8');
    const beside = xml.replace('<saml:Assertion ', `${forged('_evil1')}</saml:Assertion><saml:Assertion `);
    await expectRefused(
      Buffer.from(beside).toString('base64'),
      /Single sign-on failed/,
      'several assertions',
    );

    // Around: the signed assertion moved inside the forged one (in its Advice), the forged one in its place.
    request = await startLogin();
    xml = Buffer.from(
      await idp.respond({ spMetadataXml: spMetadata, user: alice, inResponseTo: request.id }),
      'base64',
    ).toString('utf8');
    const start = xml.indexOf('<saml:Assertion ');
    const end = xml.indexOf('</saml:Assertion>') + '</saml:Assertion>'.length;
    const signedAssertion = xml.slice(start, end);
    const around = `${xml.slice(0, start)}${forged('_evil2')}<saml:Advice>${signedAssertion}</saml:Advice></saml:Assertion>${xml.slice(end)}`;
    await expectRefused(
      Buffer.from(around).toString('base64'),
      /Single sign-on failed/,
      'several assertions',
    );

    // Neither made a user of the forged name sign in, nor an admin session.
    const users = await t.app.inject({ method: 'GET', url: '/api/security/users' });
    expect(users.statusCode).toBe(401);
  });
});
