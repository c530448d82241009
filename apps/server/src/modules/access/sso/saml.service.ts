import { createHash } from 'node:crypto';
import { SSO_MESSAGES, type SsoTestResult } from '@granary/contracts';
import { and, eq, gt, lt } from 'drizzle-orm';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../../../platform/db/index.ts';
import { InvalidError, NotFoundError } from '../../../platform/errors.ts';
import type { OutboundClient } from '../../../platform/outbound/index.ts';
import { sealFor } from '../../../platform/secrets/index.ts';
import { safeRedirect } from '../auth.routes.ts';
import type { AccessContext, RequestMeta } from '../context.ts';
import { resolveSession } from '../sessions.service.ts';
import { ssoLoginStates, ssoProviders } from './providers.schema.ts';
import { loadProvider, type ResolvedProviderOf } from './providers.service.ts';
import { mapClaims, signInExternalUser, testResultOf } from './provision.ts';
import { markReplay } from './replay.ts';
import {
  buildAuthnRequest,
  buildLogoutRequest,
  readIdpMetadata,
  SamlRefusedError,
  type SamlSpSettings,
  spMetadataXml,
  type VerifiedAssertion,
  verifySamlResponse,
} from './saml.ts';
import { generateSigningKeyPair } from './saml-keys.ts';

export type SamlProvider = ResolvedProviderOf<'saml'>;

/** How long an AuthnRequest may wait for its answer. */
const REQUEST_TTL_MS = 10 * 60_000;
/** How long the NameID / SessionIndex of a SAML session are kept for single logout. */
const SESSION_TTL_MS = 30 * 24 * 60 * 60_000;
const METADATA_TTL_MS = 10 * 60_000;
const METADATA_MAX_BYTES = 1024 * 1024;

const sha256 = (s: string) => createHash('sha256').update(s).digest('base64url');

/** The SAML endpoints of a provider under the console API (stable: the SP metadata URL is the entity id). */
export function samlPaths(key: string) {
  const base = `/ui/api/v1/sso/${encodeURIComponent(key)}/saml`;
  return { metadata: `${base}/metadata`, login: `${base}/login`, acs: `${base}/acs`, slo: `${base}/slo` };
}

/** Loads a SAML provider (404 when none of that key, or not SAML). */
export async function loadSamlProvider(ctx: AccessContext, key: string): Promise<SamlProvider> {
  const provider = await loadProvider(ctx.db, key);
  if (provider?.type !== 'saml') throw new NotFoundError(SSO_MESSAGES.unknownProvider);
  return provider;
}

/**
 * The SP's signing key pair: made on first use (node:crypto, self-signed certificate), the private key
 * sealed at rest with the provider's other secrets. Under a row lock, so two nodes never make two.
 */
async function ensureSpKeys(
  ctx: AccessContext,
  provider: SamlProvider,
): Promise<{ cert: string; key: string }> {
  if (provider.spCertificatePem && provider.secrets.spPrivateKey)
    return { cert: provider.spCertificatePem, key: provider.secrets.spPrivateKey };
  await ctx.db.transaction(async (tx) => {
    const db = tx as unknown as Db;
    const [row] = await db
      .select()
      .from(ssoProviders)
      .where(eq(ssoProviders.key, provider.key))
      .for('update');
    if (!row) throw new NotFoundError(SSO_MESSAGES.unknownProvider);
    if (row.config.spCertificatePem && row.secrets.spPrivateKey) return;
    const pair = generateSigningKeyPair(`Granary SAML SP ${provider.key}`);
    await db
      .update(ssoProviders)
      .set({
        config: { ...row.config, spCertificatePem: pair.certificatePem },
        secrets: { ...row.secrets, spPrivateKey: sealFor(ctx.db, pair.privateKeyPem) },
      })
      .where(eq(ssoProviders.key, provider.key));
  });
  const fresh = await loadSamlProvider(ctx, provider.key);
  if (!fresh.spCertificatePem || !fresh.secrets.spPrivateKey) throw new InvalidError('No SAML signing key');
  ctx.security.info({ event: 'sso.saml.sp-key', provider: provider.key }, 'SAML SP signing key created');
  return { cert: fresh.spCertificatePem, key: fresh.secrets.spPrivateKey };
}

export async function spSettings(
  ctx: AccessContext,
  provider: SamlProvider,
  baseUrl: string,
): Promise<SamlSpSettings> {
  const keys = await ensureSpKeys(ctx, provider);
  const paths = samlPaths(provider.key);
  const origin = baseUrl.replace(/\/+$/, '');
  return {
    entityId: provider.spEntityId || `${origin}${paths.metadata}`,
    acsUrl: `${origin}${paths.acs}`,
    sloUrl: `${origin}${paths.slo}`,
    certificatePem: keys.cert,
    privateKeyPem: keys.key,
    signAuthnRequest: provider.signAuthnRequest,
  };
}

const metadataCache = new Map<string, { xml: string; until: number }>();

/** The IdP's metadata: the uploaded XML, or the URL's (fetched through platform/outbound, cached a few minutes). */
export async function idpMetadata(provider: SamlProvider, outbound: OutboundClient): Promise<string> {
  if (provider.idpMetadataXml?.trim()) return provider.idpMetadataXml;
  const url = provider.idpMetadataUrl;
  if (!url) throw new InvalidError(SSO_MESSAGES.samlMetadata);
  const hit = metadataCache.get(url);
  if (hit && hit.until > Date.now()) return hit.xml;
  let xml: string;
  try {
    const answer = await outbound.fetch(url, { signal: AbortSignal.timeout(10_000) });
    if (!answer.ok) throw new Error(`HTTP ${answer.status}`);
    const bytes = await answer.arrayBuffer();
    if (bytes.byteLength > METADATA_MAX_BYTES) throw new Error('larger than 1 MiB');
    xml = Buffer.from(bytes).toString('utf8');
    readIdpMetadata(xml);
  } catch (err) {
    throw new InvalidError(
      `The identity provider metadata could not be read from ${url}: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  metadataCache.set(url, { xml, until: Date.now() + METADATA_TTL_MS });
  return xml;
}

export async function samlMetadataDocument(
  ctx: AccessContext,
  key: string,
  baseUrl: string,
): Promise<string> {
  const provider = await loadSamlProvider(ctx, key);
  return spMetadataXml(await spSettings(ctx, provider, baseUrl));
}

/**
 * SP-initiated sign-in: a signed AuthnRequest (redirect binding). Its ID is remembered (database, so
 * the answer may reach any node) with where to land; the answer must carry it in InResponseTo.
 */
export async function startSamlLogin(
  ctx: AccessContext,
  outbound: OutboundClient,
  meta: RequestMeta,
  key: string,
  opts: { redirectTo?: string; mode: 'login' | 'test' },
): Promise<string> {
  const provider = await loadSamlProvider(ctx, key);
  if (!provider.enabled && opts.mode === 'login') throw new InvalidError(SSO_MESSAGES.providerDisabled);
  const sp = await spSettings(ctx, provider, meta.baseUrl);
  const xml = await idpMetadata(provider, outbound);
  const relayState = opts.mode === 'test' ? 'test' : safeRedirect(opts.redirectTo);
  const request = buildAuthnRequest(sp, xml, relayState);
  await ctx.db.delete(ssoLoginStates).where(lt(ssoLoginStates.expiresAt, new Date()));
  await ctx.db.insert(ssoLoginStates).values({
    stateHash: sha256(`saml-request:${request.id}`),
    providerKey: provider.key,
    mode: opts.mode,
    data: { redirectTo: safeRedirect(opts.redirectTo), requester: meta.principal?.name ?? null },
    expiresAt: new Date(Date.now() + REQUEST_TTL_MS),
  });
  return request.url;
}

/** Takes the stored request an answer claims to respond to: once, before it expires. */
async function takeRequest(db: Db, providerKey: string, requestId: string) {
  const rows = await db
    .delete(ssoLoginStates)
    .where(
      and(
        eq(ssoLoginStates.stateHash, sha256(`saml-request:${requestId}`)),
        eq(ssoLoginStates.providerKey, providerKey),
        gt(ssoLoginStates.expiresAt, new Date()),
      ),
    )
    .returning();
  return rows[0];
}

function claimsOf(assertion: VerifiedAssertion): Record<string, unknown> {
  const claims: Record<string, unknown> = { nameID: assertion.nameId };
  for (const [name, values] of Object.entries(assertion.attributes))
    claims[name] = values.length === 1 ? values[0] : values;
  return claims;
}

export type AcsOutcome =
  | { kind: 'signed-in'; redirectTo: string }
  | { kind: 'test'; result: SsoTestResult }
  | { kind: 'refused'; message: string };

/**
 * The assertion consumer service (POST binding). Every check of saml.ts, then: InResponseTo names a
 * request this SP issued and not yet answered (or, when absent, the provider allows IdP-initiated
 * sign-in), the assertion id was never seen (remembered until it expires, on every node), and the
 * mapped user signs in with realm `saml`.
 */
export async function consumeAssertion(
  ctx: AccessContext,
  outbound: OutboundClient,
  request: FastifyRequest,
  reply: FastifyReply,
  meta: RequestMeta,
  key: string,
  form: { SAMLResponse?: string; RelayState?: string },
): Promise<AcsOutcome> {
  const provider = await loadSamlProvider(ctx, key);
  const fail = async (reason: string, message: string): Promise<AcsOutcome> => {
    await ctx.audit.record({
      action: 'login.failure',
      result: 'failure',
      actor: null,
      ip: meta.ip,
      requestId: meta.requestId,
      details: { channel: 'sso', realm: 'saml', provider: provider.key, reason },
    });
    return { kind: 'refused', message };
  };
  if (!form.SAMLResponse) return fail('no SAMLResponse', SSO_MESSAGES.signInFailed);
  let assertion: VerifiedAssertion;
  try {
    const sp = await spSettings(ctx, provider, meta.baseUrl);
    assertion = await verifySamlResponse(sp, await idpMetadata(provider, outbound), form.SAMLResponse);
  } catch (err) {
    if (err instanceof SamlRefusedError)
      return fail(err.reason, `${SSO_MESSAGES.signInFailed}: ${err.message}`);
    if (err instanceof InvalidError) return fail('metadata', err.message);
    throw err;
  }
  let mode = 'login';
  let redirectTo = '/ui/';
  if (assertion.inResponseTo) {
    const pending = await takeRequest(ctx.db, provider.key, assertion.inResponseTo);
    if (!pending) return fail('unknown or used InResponseTo', SSO_MESSAGES.expiredState);
    mode = pending.mode;
    redirectTo = safeRedirect(pending.data.redirectTo as string | undefined);
  } else {
    if (!provider.allowIdpInitiated)
      return fail(
        'IdP-initiated sign-in not allowed',
        `${SSO_MESSAGES.signInFailed}: start the sign-in from Granary`,
      );
    redirectTo = safeRedirect(form.RelayState);
  }
  if (!(await markReplay(ctx.db, provider.key, `saml:${assertion.assertionId}`, assertion.notOnOrAfter)))
    return fail('replayed assertion', `${SSO_MESSAGES.signInFailed}: this answer was already used`);

  const claims = claimsOf(assertion);
  const mapped = mapClaims(provider.mapping, claims, { usernameClaims: ['uid', 'username', 'nameID'] });
  if (mode === 'test') {
    await ctx.audit.record({
      action: 'sso.test',
      result: 'success',
      actor: null,
      ip: meta.ip,
      requestId: meta.requestId,
      details: { realm: 'saml', provider: provider.key, username: mapped.username },
    });
    return { kind: 'test', result: testResultOf(provider, 'saml', mapped, claims) };
  }
  const grant = await signInExternalUser(
    ctx,
    {
      realm: 'saml',
      providerKey: provider.key,
      username: mapped.username ?? '',
      email: mapped.email,
      groups: mapped.groups,
    },
    request,
    reply,
  );
  // Kept for single logout: the IdP's name for the user and its session.
  const session = await resolveSession(ctx.db, grant.token);
  if (session)
    await ctx.db
      .insert(ssoLoginStates)
      .values({
        stateHash: sha256(`saml-session:${session.session.id}`),
        providerKey: provider.key,
        mode: 'saml-session',
        data: { nameId: assertion.nameId, sessionIndex: assertion.sessionIndex },
        expiresAt: new Date(Date.now() + SESSION_TTL_MS),
      })
      .onConflictDoNothing();
  return { kind: 'signed-in', redirectTo };
}

/**
 * `GET auth/saml/samlLogoutUrl` (spec 000 §4, §7): where a signed-in SAML user goes on signing out —
 * the provider's logout URL when set, else a LogoutRequest to the IdP's single logout service; null
 * for anyone else. The console asks before it ends the session.
 */
export async function samlLogoutUrl(
  ctx: AccessContext,
  outbound: OutboundClient,
  meta: RequestMeta,
): Promise<string | null> {
  const principal = meta.principal;
  if (!principal?.sessionId) return null;
  const [stored] = await ctx.db
    .select()
    .from(ssoLoginStates)
    .where(eq(ssoLoginStates.stateHash, sha256(`saml-session:${principal.sessionId}`)));
  if (!stored) return null;
  const provider = await loadProvider(ctx.db, stored.providerKey);
  if (provider?.type !== 'saml') return null;
  if (provider.logoutUrl) return provider.logoutUrl;
  try {
    const sp = await spSettings(ctx, provider, meta.baseUrl);
    const request = buildLogoutRequest(
      sp,
      await idpMetadata(provider, outbound),
      String(stored.data.nameId ?? principal.name),
      (stored.data.sessionIndex as string | null) ?? null,
      '/ui/login',
    );
    return request?.url ?? null;
  } catch (err) {
    ctx.security.warn(
      {
        event: 'sso.saml.logout.failure',
        provider: provider.key,
        err: err instanceof Error ? err.message : String(err),
      },
      'no SAML logout request',
    );
    return null;
  }
}
