import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateSigningKeyPair } from './saml-keys.ts';
import { samlify } from './saml-lib.ts';

/**
 * A SAML identity provider for tests (issue 20): `samlify` in the IdP role with its own key and
 * certificate, its metadata served over HTTP on loopback. It reads the SP's signed AuthnRequest
 * (redirect binding, signature checked against the SP's metadata) and signs assertions; `tweak`
 * changes the template values (audience, times, recipient…) before signing, as a misbehaving or
 * malicious IdP would.
 */
export interface TestIdpUser {
  uid: string;
  mail?: string;
  groups?: string[];
}

const NS_ASSERTION = 'urn:oasis:names:tc:SAML:2.0:assertion';

function template(attributes: string): string {
  return (
    '<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="{ID}" Version="2.0" IssueInstant="{IssueInstant}" Destination="{Destination}" InResponseTo="{InResponseTo}">' +
    '<saml:Issuer>{Issuer}</saml:Issuer><samlp:Status><samlp:StatusCode Value="{StatusCode}"/></samlp:Status>' +
    `<saml:Assertion xmlns:saml="${NS_ASSERTION}" ID="{AssertionID}" Version="2.0" IssueInstant="{IssueInstant}">` +
    '<saml:Issuer>{Issuer}</saml:Issuer><saml:Subject><saml:NameID Format="{NameIDFormat}">{NameID}</saml:NameID>' +
    '<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData NotOnOrAfter="{SubjectConfirmationDataNotOnOrAfter}" Recipient="{SubjectRecipient}" InResponseTo="{InResponseTo}"/></saml:SubjectConfirmation></saml:Subject>' +
    '<saml:Conditions NotBefore="{ConditionsNotBefore}" NotOnOrAfter="{ConditionsNotOnOrAfter}"><saml:AudienceRestriction><saml:Audience>{Audience}</saml:Audience></saml:AudienceRestriction></saml:Conditions>' +
    '<saml:AuthnStatement AuthnInstant="{IssueInstant}" SessionIndex="{SessionIndex}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>' +
    `<saml:AttributeStatement>${attributes}</saml:AttributeStatement>` +
    '</saml:Assertion></samlp:Response>'
  );
}

const esc = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function attributesXml(user: TestIdpUser): string {
  const attr = (name: string, values: string[]) =>
    `<saml:Attribute Name="${name}" NameFormat="urn:oasis:names:tc:SAML:2.0:attrname-format:basic">${values
      .map((v) => `<saml:AttributeValue>${esc(v)}</saml:AttributeValue>`)
      .join('')}</saml:Attribute>`;
  return [
    attr('uid', [user.uid]),
    user.mail ? attr('mail', [user.mail]) : '',
    user.groups?.length ? attr('groups', user.groups) : '',
  ].join('');
}

export interface TestIdp {
  entityId: string;
  /**
   * Lets a browser sign in here (spec 000 §2 SAML link, issue 20 acceptance "in Chromium"): `GET /sso`
   * shows a sign-in form for the registered SP's AuthnRequest; the user name typed picks a directory entry
   * and the answer is the HTML-POST binding's auto-submitted form to the SP's ACS. `GET /slo` sends the
   * browser back to the SP's single logout location with the RelayState.
   */
  serveBrowser(spMetadataXml: string, directory: Record<string, TestIdpUser>): void;
  metadataUrl: string;
  metadataXml: string;
  /** The AuthnRequest of an SP redirect URL, its signature checked: its ID. */
  readAuthnRequest(
    redirectUrl: string,
    spMetadataXml: string,
  ): Promise<{ id: string; relayState: string | null }>;
  /** A signed SAMLResponse (base64) for the SP; `inResponseTo` null: IdP-initiated. */
  respond(opts: {
    spMetadataXml: string;
    user: TestIdpUser;
    inResponseTo: string | null;
    tweak?: Record<string, string>;
  }): Promise<string>;
  /** LogoutRequests received at the SLO URL (query strings). */
  logoutRequests: URLSearchParams[];
  close(): Promise<void>;
}

const acsOf = (spMetadataXml: string) =>
  /<md:AssertionConsumerService [^>]*Location="([^"]+)"/.exec(spMetadataXml)?.[1] ?? '';
const sloOf = (spMetadataXml: string) =>
  /<md:SingleLogoutService [^>]*Location="([^"]+)"/.exec(spMetadataXml)?.[1] ?? null;

const page = (title: string, body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${esc(title)}</title></head><body>${body}</body></html>`;

async function formBody(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

export async function startTestIdp(): Promise<TestIdp> {
  const keys = generateSigningKeyPair('Granary test IdP');
  const logoutRequests: URLSearchParams[] = [];
  let metadataXml = '';
  let browserSp: { spMetadataXml: string; directory: Record<string, TestIdpUser> } | null = null;
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', base);
    if (url.pathname === '/metadata') {
      res.writeHead(200, { 'content-type': 'application/samlmetadata+xml' }).end(metadataXml);
      return;
    }
    if (url.pathname === '/slo') {
      logoutRequests.push(url.searchParams);
      const back = browserSp && sloOf(browserSp.spMetadataXml);
      if (back) {
        const relay = url.searchParams.get('RelayState');
        res
          .writeHead(303, { location: relay ? `${back}?RelayState=${encodeURIComponent(relay)}` : back })
          .end();
      } else res.writeHead(200, { 'content-type': 'text/plain' }).end('signed out at the IdP');
      return;
    }
    if (url.pathname === '/sso' && browserSp && req.method === 'GET') {
      // The SP's signed AuthnRequest is checked before the form is shown; the raw query rides along.
      await api.readAuthnRequest(url.href, browserSp.spMetadataXml);
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(
          page(
            'Test IdP sign-in',
            `<h1>Test IdP</h1><form method="post" action="/sso"><label>User name <input name="username" autofocus></label>` +
              `<input type="hidden" name="query" value="${esc(url.search.slice(1))}"><button type="submit">Sign in at the IdP</button></form>`,
          ),
        );
      return;
    }
    if (url.pathname === '/sso' && browserSp && req.method === 'POST') {
      const form = await formBody(req);
      const user = browserSp.directory[form.get('username') ?? ''];
      if (!user) {
        res.writeHead(401, { 'content-type': 'text/plain' }).end('unknown user at the IdP');
        return;
      }
      const request = await api.readAuthnRequest(
        `${base}/sso?${form.get('query') ?? ''}`,
        browserSp.spMetadataXml,
      );
      const samlResponse = await api.respond({
        spMetadataXml: browserSp.spMetadataXml,
        user,
        inResponseTo: request.id,
      });
      const relay = request.relayState
        ? `<input type="hidden" name="RelayState" value="${esc(request.relayState)}">`
        : '';
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(
          page(
            'Signing in…',
            `<form method="post" action="${esc(acsOf(browserSp.spMetadataXml))}"><input type="hidden" name="SAMLResponse" value="${esc(samlResponse)}">${relay}</form>` +
              '<script>document.forms[0].submit()</script>',
          ),
        );
      return;
    }
    res.writeHead(404).end();
  };
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(400, { 'content-type': 'text/plain' });
      res.end(`refused at the IdP: ${err instanceof Error ? err.message : String(err)}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const entityId = `${base}/metadata`;
  const settings = {
    entityID: entityId,
    signingCert: keys.certificatePem,
    privateKey: keys.privateKeyPem,
    wantAuthnRequestsSigned: true,
    nameIDFormat: ['urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified'],
    singleSignOnService: [
      { Binding: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect', Location: `${base}/sso` },
    ],
    singleLogoutService: [
      { Binding: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect', Location: `${base}/slo` },
    ],
  };
  const idp = samlify().IdentityProvider(settings);
  metadataXml = idp.getMetadata();
  const api: TestIdp = {
    entityId,
    metadataUrl: entityId,
    metadataXml,
    logoutRequests,
    serveBrowser(spMetadataXml, directory) {
      browserSp = { spMetadataXml, directory };
    },
    async readAuthnRequest(redirectUrl, spMetadataXml) {
      const url = new URL(redirectUrl);
      const sp = samlify().ServiceProvider({ metadata: spMetadataXml });
      const query = Object.fromEntries(url.searchParams);
      // The octet string the SP signed: the raw query parameters in their order (SAML bindings §3.4.4.1).
      const raw = url.search.slice(1).split('&');
      const pick = (name: string) => raw.find((p) => p.startsWith(`${name}=`));
      const octetString = ['SAMLRequest', 'RelayState', 'SigAlg'].map(pick).filter(Boolean).join('&');
      const parsed = await idp.parseLoginRequest(sp, 'redirect', { query, octetString });
      const extract = parsed.extract as { request: { id: string } };
      return { id: extract.request.id, relayState: url.searchParams.get('RelayState') };
    },
    async respond({ spMetadataXml, user, inResponseTo, tweak }) {
      const sp = samlify().ServiceProvider({ metadata: spMetadataXml });
      const acs = acsOf(spMetadataXml);
      const now = new Date();
      const later = new Date(now.getTime() + 5 * 60_000).toISOString();
      const values: Record<string, string> = {
        ID: `_${randomUUID()}`,
        AssertionID: `_${randomUUID()}`,
        Destination: acs,
        Audience: sp.entityMeta.getEntityID(),
        SubjectRecipient: acs,
        Issuer: entityId,
        IssueInstant: now.toISOString(),
        StatusCode: 'urn:oasis:names:tc:SAML:2.0:status:Success',
        ConditionsNotBefore: now.toISOString(),
        ConditionsNotOnOrAfter: later,
        SubjectConfirmationDataNotOnOrAfter: later,
        NameIDFormat: 'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified',
        NameID: user.uid,
        InResponseTo: inResponseTo ?? '',
        SessionIndex: `_session-${randomUUID()}`,
        ...tweak,
      };
      const body = template(attributesXml(user));
      const filled = Object.entries(values).reduce((xml, [k, v]) => xml.replaceAll(`{${k}}`, esc(v)), body);
      // IdP-initiated: no InResponseTo at all.
      const context = inResponseTo ? filled : filled.replaceAll(' InResponseTo=""', '');
      const { context: signed } = await idp.createLoginResponse(
        sp,
        { extract: { request: { id: inResponseTo ?? '' } } },
        'post',
        {},
        { customTagReplacement: () => ({ id: values.ID!, context }) },
      );
      return signed;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  return api;
}
