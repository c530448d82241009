import { certificateBody } from './saml-keys.ts';
import { samlify, type XDocument, type XElement, type XNode, xmldom } from './saml-lib.ts';

/**
 * The SAML 2.0 service provider's protocol (issue 20), with `samlify` 2 doing the XML signatures and
 * the schema check (`@authenio/samlify-node-xmllint`: libxml2's xmllint compiled to JavaScript, no
 * native binary). On top of samlify, this file enforces what samlify leaves to its caller:
 *
 * - the assertion itself must be signed (a signature on the Response alone is not enough): the
 *   Response-level signature is set aside before samlify verifies, so only the assertion's counts;
 * - exactly one `<Assertion>` in the whole document, a child of the Response, no EncryptedAssertion,
 *   no DOCTYPE, and the signature's reference is that assertion's (unique) ID — the XML signature
 *   wrapping attacks (a second assertion beside, around or inside the signed one) are refused;
 * - audience = this SP's entity id, Recipient (and Destination, when present) = this ACS URL,
 *   NotBefore / NotOnOrAfter (Conditions and SubjectConfirmationData) within a small clock skew,
 *   InResponseTo checked by the caller against the requests it issued (or absent: IdP-initiated).
 */

const NS = {
  protocol: 'urn:oasis:names:tc:SAML:2.0:protocol',
  assertion: 'urn:oasis:names:tc:SAML:2.0:assertion',
  dsig: 'http://www.w3.org/2000/09/xmldsig#',
  metadata: 'urn:oasis:names:tc:SAML:2.0:metadata',
};
const BINDING = {
  redirect: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect',
  post: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST',
};
/** The largest SAML message read (an assertion with many groups is a few tens of KiB). */
export const SAML_MAX_MESSAGE_BYTES = 512 * 1024;
/** The clock difference tolerated between this server and the identity provider. */
export const SAML_CLOCK_SKEW_MS = 2 * 60_000;

/** Why an assertion was refused: a stable reason (logged and audited) and what the user reads. */
export class SamlRefusedError extends Error {
  constructor(
    readonly reason: string,
    message = 'The identity provider’s answer was refused',
  ) {
    super(message);
  }
}

export interface SamlSpSettings {
  /** This SP's entity id (the audience the IdP must name). */
  entityId: string;
  acsUrl: string;
  /** Where the IdP sends LogoutResponses and LogoutRequests (redirect binding). */
  sloUrl: string;
  certificatePem: string;
  privateKeyPem: string;
  signAuthnRequest: boolean;
}

export interface SamlIdpSummary {
  entityId: string;
  ssoUrl: string | null;
  sloUrl: string | null;
  wantsSignedRequests: boolean;
  signingCertificates: string[];
}

function parseXml(xml: string): XDocument & { documentElement: XElement } {
  if (Buffer.byteLength(xml) > SAML_MAX_MESSAGE_BYTES) throw new SamlRefusedError('message too large');
  // No DTD at all: entities could smuggle elements past every check below.
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) throw new SamlRefusedError('document type declaration');
  const errors: string[] = [];
  const doc = new xmldom.DOMParser({
    errorHandler: {
      error: (msg: unknown) => errors.push(String(msg)),
      fatalError: (msg: unknown) => errors.push(String(msg)),
    },
  }).parseFromString(xml, 'text/xml');
  if (errors.length > 0 || !doc?.documentElement) throw new SamlRefusedError('malformed XML');
  return doc as XDocument & { documentElement: XElement };
}

function elements(root: XDocument | XElement, ns: string, local: string): XElement[] {
  return Array.from(root.getElementsByTagNameNS(ns, local));
}
function children(parent: XElement, ns: string, local: string): XElement[] {
  return Array.from(parent.childNodes).filter(
    (n): n is XElement =>
      n.nodeType === 1 && (n as XElement).namespaceURI === ns && (n as XElement).localName === local,
  );
}

/** Reads the IdP's metadata: entity id, endpoints, signing certificates. Throws when it is not IdP metadata. */
export function readIdpMetadata(xml: string): SamlIdpSummary {
  const doc = parseXml(xml);
  const entity = doc.documentElement;
  if (entity.namespaceURI !== NS.metadata || entity.localName !== 'EntityDescriptor')
    throw new SamlRefusedError(
      'not SAML metadata',
      'The identity provider metadata is not a SAML EntityDescriptor',
    );
  const idp = children(entity, NS.metadata, 'IDPSSODescriptor')[0];
  if (!idp)
    throw new SamlRefusedError('no IDPSSODescriptor', 'The metadata describes no SAML identity provider');
  const endpoint = (local: string) =>
    children(idp, NS.metadata, local)
      .find((e) => e.getAttribute('Binding') === BINDING.redirect)
      ?.getAttribute('Location') ?? null;
  const certs = children(idp, NS.metadata, 'KeyDescriptor')
    .filter((k) => (k.getAttribute('use') ?? 'signing') === 'signing')
    .flatMap((k) => elements(k, NS.dsig, 'X509Certificate'))
    .map((c) => (c.textContent ?? '').replace(/\s+/g, ''))
    .filter(Boolean);
  if (certs.length === 0)
    throw new SamlRefusedError(
      'no signing certificate',
      'The identity provider metadata has no signing certificate',
    );
  return {
    entityId: entity.getAttribute('entityID') ?? '',
    ssoUrl: endpoint('SingleSignOnService'),
    sloUrl: endpoint('SingleLogoutService'),
    wantsSignedRequests: idp.getAttribute('WantAuthnRequestsSigned') === 'true',
    signingCertificates: certs,
  };
}

/** The IdP metadata with WantAuthnRequestsSigned set as this SP signs (samlify insists both sides agree). */
function idpMetadataFor(xml: string, signRequests: boolean): string {
  const doc = parseXml(xml);
  const idp = children(doc.documentElement, NS.metadata, 'IDPSSODescriptor')[0];
  if (!idp) throw new SamlRefusedError('no IDPSSODescriptor');
  idp.setAttribute('WantAuthnRequestsSigned', String(signRequests));
  return new xmldom.XMLSerializer().serializeToString(doc);
}

function signsRequests(sp: SamlSpSettings, idpMetadataXml: string): boolean {
  return sp.signAuthnRequest || readIdpMetadata(idpMetadataXml).wantsSignedRequests;
}

function entities(sp: SamlSpSettings, idpMetadataXml: string) {
  const sign = signsRequests(sp, idpMetadataXml);
  const serviceProvider = samlify().ServiceProvider({
    entityID: sp.entityId,
    authnRequestsSigned: sign,
    wantAssertionsSigned: true,
    wantMessageSigned: false,
    wantLogoutResponseSigned: false,
    signingCert: sp.certificatePem,
    privateKey: sp.privateKeyPem,
    nameIDFormat: ['urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified'],
    assertionConsumerService: [{ Binding: BINDING.post, Location: sp.acsUrl }],
    singleLogoutService: [{ Binding: BINDING.redirect, Location: sp.sloUrl }],
    clockDrifts: [-SAML_CLOCK_SKEW_MS, SAML_CLOCK_SKEW_MS],
  });
  const identityProvider = samlify().IdentityProvider({
    metadata: idpMetadataFor(idpMetadataXml, sign),
    // Our LogoutRequests are always signed.
    wantLogoutRequestSigned: true,
  });
  return { serviceProvider, identityProvider };
}

/** This SP's metadata document (entity id, ACS with the POST binding, SLO, signing certificate). */
export function spMetadataXml(sp: SamlSpSettings): string {
  const cert = certificateBody(sp.certificatePem);
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<md:EntityDescriptor xmlns:md="${NS.metadata}" xmlns:ds="${NS.dsig}" entityID="${esc(sp.entityId)}">`,
    `<md:SPSSODescriptor AuthnRequestsSigned="${sp.signAuthnRequest}" WantAssertionsSigned="true" protocolSupportEnumeration="${NS.protocol}">`,
    `<md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${cert}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>`,
    `<md:SingleLogoutService Binding="${BINDING.redirect}" Location="${esc(sp.sloUrl)}"/>`,
    `<md:NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified</md:NameIDFormat>`,
    `<md:AssertionConsumerService index="0" isDefault="true" Binding="${BINDING.post}" Location="${esc(sp.acsUrl)}"/>`,
    `</md:SPSSODescriptor>`,
    `</md:EntityDescriptor>`,
  ].join('');
}

/** A signed AuthnRequest (redirect binding): its ID (remember it for InResponseTo) and the IdP URL. */
export function buildAuthnRequest(
  sp: SamlSpSettings,
  idpMetadataXml: string,
  relayState: string,
): { id: string; url: string } {
  const { serviceProvider, identityProvider } = entities(sp, idpMetadataXml);
  if (!readIdpMetadata(idpMetadataXml).ssoUrl)
    throw new SamlRefusedError(
      'no SSO endpoint',
      'The identity provider metadata has no HTTP-Redirect sign-in endpoint',
    );
  const request = serviceProvider.createLoginRequest(identityProvider, 'redirect', { relayState });
  return { id: request.id, url: request.context };
}

/** A LogoutRequest (redirect binding, signed) for the user's IdP session, or null when the IdP has no SLO. */
export function buildLogoutRequest(
  sp: SamlSpSettings,
  idpMetadataXml: string,
  nameId: string,
  sessionIndex: string | null,
  relayState: string,
): { id: string; url: string } | null {
  if (!readIdpMetadata(idpMetadataXml).sloUrl) return null;
  const { serviceProvider, identityProvider } = entities(sp, idpMetadataXml);
  const request = serviceProvider.createLogoutRequest(
    identityProvider,
    'redirect',
    { logoutNameID: nameId, sessionIndex: sessionIndex ?? undefined },
    { relayState },
  );
  return { id: request.id, url: request.context };
}

export interface VerifiedAssertion {
  assertionId: string;
  /** When the assertion stops being usable: its id is remembered until then (replay). */
  notOnOrAfter: Date;
  /** The AuthnRequest it answers, or null for an IdP-initiated sign-in. */
  inResponseTo: string | null;
  nameId: string;
  sessionIndex: string | null;
  /** Attribute name → values, from the signed assertion only. */
  attributes: Record<string, string[]>;
}

function checkTime(notBefore: string | null, notOnOrAfter: string | null, now: number) {
  if (notBefore && !(Date.parse(notBefore) - SAML_CLOCK_SKEW_MS <= now))
    throw new SamlRefusedError('not yet valid');
  if (notOnOrAfter && !(now < Date.parse(notOnOrAfter) + SAML_CLOCK_SKEW_MS))
    throw new SamlRefusedError('expired', 'The identity provider’s answer has expired: sign in again');
}

/**
 * Checks a `SAMLResponse` (POST binding, base64) and answers the signed assertion's content. Throws
 * `SamlRefusedError` with the reason. Replay (the assertion id) and InResponseTo (the requests this SP
 * issued) are the caller's, as they need the database.
 */
export async function verifySamlResponse(
  sp: SamlSpSettings,
  idpMetadataXml: string,
  samlResponse: string,
  now = Date.now(),
): Promise<VerifiedAssertion> {
  if (samlResponse.length > (SAML_MAX_MESSAGE_BYTES * 4) / 3 + 4)
    throw new SamlRefusedError('message too large');
  const xml = Buffer.from(samlResponse, 'base64').toString('utf8');
  const doc = parseXml(xml);
  const response = doc.documentElement;
  if (response.namespaceURI !== NS.protocol || response.localName !== 'Response')
    throw new SamlRefusedError('not a SAML Response');
  if (elements(doc, NS.assertion, 'EncryptedAssertion').length > 0)
    throw new SamlRefusedError('encrypted assertions are not supported');
  // Every element named Assertion, whatever its namespace: exactly one, the Response's child.
  const all = Array.from(doc.getElementsByTagName('*')).filter((e) => e.localName === 'Assertion');
  if (all.length !== 1) throw new SamlRefusedError(all.length === 0 ? 'no assertion' : 'several assertions');
  const assertion = all[0]!;
  if (assertion.namespaceURI !== NS.assertion || assertion.parentNode !== response)
    throw new SamlRefusedError('assertion misplaced');
  const assertionId = assertion.getAttribute('ID') ?? '';
  if (!assertionId) throw new SamlRefusedError('assertion without ID');
  const sameId = Array.from(doc.getElementsByTagName('*')).filter(
    (e) =>
      e.getAttribute('ID') === assertionId ||
      e.getAttribute('Id') === assertionId ||
      e.getAttribute('id') === assertionId,
  );
  if (sameId.length !== 1) throw new SamlRefusedError('duplicate ID');
  const signature = children(assertion, NS.dsig, 'Signature');
  if (signature.length !== 1)
    throw new SamlRefusedError('assertion not signed', 'The identity provider’s assertion is not signed');
  const references = elements(signature[0]!, NS.dsig, 'Reference');
  if (references.length !== 1 || references[0]!.getAttribute('URI') !== `#${assertionId}`)
    throw new SamlRefusedError('signature does not cover the assertion');
  // Set the Response's own signature aside: only the assertion's may vouch for it.
  for (const s of children(response, NS.dsig, 'Signature')) response.removeChild(s as XNode);
  const destination = response.getAttribute('Destination');
  if (destination && destination !== sp.acsUrl) throw new SamlRefusedError('wrong destination');

  const { serviceProvider, identityProvider } = entities(sp, idpMetadataXml);
  const stripped = Buffer.from(new xmldom.XMLSerializer().serializeToString(doc), 'utf8').toString('base64');
  try {
    await serviceProvider.parseLoginResponse(identityProvider, 'post', { body: { SAMLResponse: stripped } });
  } catch (err) {
    const code = err instanceof Error ? err.message : String(err);
    if (code.includes('SUBJECT_UNCONFIRMED') || code.includes('EXPIRED_SESSION'))
      throw new SamlRefusedError('expired', 'The identity provider’s answer has expired: sign in again');
    if (code.includes('UNMATCH_ISSUER')) throw new SamlRefusedError('wrong issuer');
    if (code.includes('SIGNATURE') || code.includes('CERTIFICATE'))
      throw new SamlRefusedError('bad signature');
    throw new SamlRefusedError(`rejected: ${code.slice(0, 120)}`);
  }

  // What follows reads the one assertion, whose signature samlify verified.
  const audiences = elements(assertion, NS.assertion, 'Audience').map((a) => (a.textContent ?? '').trim());
  if (!audiences.includes(sp.entityId)) throw new SamlRefusedError('wrong audience');
  const conditions = children(assertion, NS.assertion, 'Conditions')[0];
  checkTime(
    conditions?.getAttribute('NotBefore') || null,
    conditions?.getAttribute('NotOnOrAfter') || null,
    now,
  );
  const subject = children(assertion, NS.assertion, 'Subject')[0];
  const bearer = subject
    ? children(subject, NS.assertion, 'SubjectConfirmation').find(
        (c) => c.getAttribute('Method') === 'urn:oasis:names:tc:SAML:2.0:cm:bearer',
      )
    : undefined;
  const data = bearer ? children(bearer, NS.assertion, 'SubjectConfirmationData')[0] : undefined;
  if (!data) throw new SamlRefusedError('no bearer subject confirmation');
  if (data.getAttribute('Recipient') !== sp.acsUrl) throw new SamlRefusedError('wrong recipient');
  const dataNotOnOrAfter = data.getAttribute('NotOnOrAfter');
  if (!dataNotOnOrAfter) throw new SamlRefusedError('subject confirmation without NotOnOrAfter');
  checkTime(data.getAttribute('NotBefore') || null, dataNotOnOrAfter, now);
  const inResponseTo = data.getAttribute('InResponseTo') || null;
  const responseInResponseTo = response.getAttribute('InResponseTo') || null;
  if (responseInResponseTo && inResponseTo && responseInResponseTo !== inResponseTo)
    throw new SamlRefusedError('InResponseTo mismatch');

  const nameId = subject ? (children(subject, NS.assertion, 'NameID')[0]?.textContent ?? '').trim() : '';
  const authn = children(assertion, NS.assertion, 'AuthnStatement')[0];
  const attributes: Record<string, string[]> = {};
  for (const statement of children(assertion, NS.assertion, 'AttributeStatement'))
    for (const attribute of children(statement, NS.assertion, 'Attribute')) {
      const names = [attribute.getAttribute('Name'), attribute.getAttribute('FriendlyName')].filter(
        (n): n is string => !!n,
      );
      const values = children(attribute, NS.assertion, 'AttributeValue').map((v) =>
        (v.textContent ?? '').trim(),
      );
      for (const n of names) attributes[n] = [...(attributes[n] ?? []), ...values];
    }
  const expiry = Math.max(
    Date.parse(dataNotOnOrAfter),
    conditions?.getAttribute('NotOnOrAfter') ? Date.parse(conditions.getAttribute('NotOnOrAfter')!) : 0,
  );
  return {
    assertionId,
    notOnOrAfter: new Date(expiry + SAML_CLOCK_SKEW_MS),
    inResponseTo: inResponseTo ?? responseInResponseTo,
    nameId,
    sessionIndex: authn?.getAttribute('SessionIndex') || null,
    attributes,
  };
}
