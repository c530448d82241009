import { createHash, randomBytes } from 'node:crypto';
import type * as Oidc from 'openid-client';
import type { OutboundClient } from '../../../platform/outbound/index.ts';
import type { SsoFlowData } from './login-state.ts';
import type { ResolvedProviderOf } from './providers.service.ts';

/**
 * OpenID Connect (openid-client: discovery, authorization code + PKCE, ID token validation — issuer,
 * audience, expiry with 30 s of clock tolerance, nonce, signature against the issuer's keys) and plain
 * OAuth 2.0 (GitHub style: the code for a token, then the user-info endpoint). Every request goes
 * through the outbound client: private and loopback addresses only when GRANARY_OUTBOUND_ALLOWLIST
 * names them.
 */

export type OidcProvider = ResolvedProviderOf<'oidc'>;
export type OAuth2Provider = ResolvedProviderOf<'oauth2'>;

/** Refused by the identity provider's answer; the reason is for security.log, the message for the user. */
export class SsoFlowError extends Error {
  constructor(
    readonly reason: string,
    message = 'Single sign-on failed',
  ) {
    super(message);
  }
}

const CLOCK_TOLERANCE_SECS = 30;

let oidcLib: Promise<typeof Oidc> | undefined;
/** openid-client, loaded on the first OpenID Connect sign-in, not at start (issue 24, idle memory). */
const openidClient = () => (oidcLib ??= import('openid-client'));
const DISCOVERY_TTL_MS = 10 * 60_000;

/** openid-client's fetch, through the outbound client (a web `Response` is what it expects). */
function outboundFetch(outbound: OutboundClient): Oidc.CustomFetch {
  return async (url, options) => {
    const headers: Record<string, string> = {};
    new Headers(options.headers as ConstructorParameters<typeof Headers>[0]).forEach((v, k) => {
      headers[k] = v;
    });
    let body: string | Uint8Array | undefined;
    if (options.body instanceof URLSearchParams) body = options.body.toString();
    else if (typeof options.body === 'string') body = options.body;
    else if (options.body instanceof Uint8Array) body = options.body;
    else if (options.body instanceof ArrayBuffer) body = new Uint8Array(options.body);
    const res = await outbound.fetch(url, {
      method: options.method,
      headers,
      body,
      signal: options.signal ?? undefined,
      redirect: 'manual',
    });
    const bytes = await res.arrayBuffer();
    const out = new Headers();
    res.headers.forEach((v, k) => {
      out.append(k, v);
    });
    const empty = res.status === 204 || res.status === 304;
    return new Response(empty ? null : bytes, {
      status: res.status,
      statusText: res.statusText,
      headers: out,
    });
  };
}

const configurations = new Map<string, { at: number; config: Oidc.Configuration }>();

/** The provider's discovered configuration, kept 10 minutes per node (a changed provider is re-read). */
export async function oidcConfiguration(
  outbound: OutboundClient,
  provider: OidcProvider,
): Promise<Oidc.Configuration> {
  const oidc = await openidClient();
  const stamp = createHash('sha256')
    .update(
      JSON.stringify([provider.key, provider.issuer, provider.clientId, provider.secrets.clientSecret ?? '']),
    )
    .digest('hex');
  const hit = configurations.get(stamp);
  if (hit && Date.now() - hit.at < DISCOVERY_TTL_MS) return hit.config;
  const fetchImpl = outboundFetch(outbound);
  const secret = provider.secrets.clientSecret;
  let config: Oidc.Configuration;
  try {
    config = await oidc.discovery(
      new URL(provider.issuer),
      provider.clientId,
      { [oidc.clockTolerance]: CLOCK_TOLERANCE_SECS },
      secret ? oidc.ClientSecretBasic(secret) : oidc.None(),
      {
        [oidc.customFetch]: fetchImpl,
        execute: provider.issuer.startsWith('http:') ? [oidc.allowInsecureRequests] : [],
        timeout: 15,
      },
    );
  } catch (err) {
    throw new SsoFlowError(
      `discovery failed: ${(err as Error).message}`,
      `The identity provider ${provider.name} cannot be reached: ${(err as Error).message}`,
    );
  }
  // The ID token's signature is checked against the issuer's published keys (jwks_uri) too.
  oidc.enableNonRepudiationChecks(config);
  for (const [k, v] of configurations) if (Date.now() - v.at >= DISCOVERY_TTL_MS) configurations.delete(k);
  configurations.set(stamp, { at: Date.now(), config });
  return config;
}

/** The authorization request's URL, and what the callback must check (stored with the state). */
export async function oidcAuthorizationUrl(
  outbound: OutboundClient,
  provider: OidcProvider,
  redirectUri: string,
  state: string,
  flow: SsoFlowData,
): Promise<URL> {
  const oidc = await openidClient();
  const config = await oidcConfiguration(outbound, provider);
  const params: Record<string, string> = {
    redirect_uri: redirectUri,
    scope: provider.scopes.includes('openid')
      ? provider.scopes.join(' ')
      : ['openid', ...provider.scopes].join(' '),
    response_type: 'code',
    state,
    nonce: flow.nonce!,
  };
  if (provider.usePkce && flow.codeVerifier) {
    params.code_challenge = await oidc.calculatePKCECodeChallenge(flow.codeVerifier);
    params.code_challenge_method = 'S256';
  }
  return oidc.buildAuthorizationUrl(config, params);
}

/** Fresh values for a new flow: nonce and (with PKCE) the code verifier. */
export function newOidcFlow(usePkce: boolean): Pick<SsoFlowData, 'nonce' | 'codeVerifier'> {
  // As openid-client's randomNonce() and randomPKCECodeVerifier(): 32 random bytes, base64url.
  const random = () => randomBytes(32).toString('base64url');
  return { nonce: random(), ...(usePkce ? { codeVerifier: random() } : {}) };
}

/**
 * The callback: exchanges the code and validates the ID token (openid-client refuses a wrong issuer,
 * audience, nonce or signature, and an expired token). Answers the claims, the user-info endpoint's
 * added when the mapping needs a claim the ID token lacks.
 */
export async function oidcCallback(
  outbound: OutboundClient,
  provider: OidcProvider,
  callbackUrl: URL,
  state: string,
  flow: SsoFlowData,
): Promise<Record<string, unknown>> {
  const oidc = await openidClient();
  const config = await oidcConfiguration(outbound, provider);
  let tokens: Awaited<ReturnType<typeof Oidc.authorizationCodeGrant>>;
  try {
    tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
      expectedState: state,
      expectedNonce: flow.nonce,
      pkceCodeVerifier: provider.usePkce ? flow.codeVerifier : undefined,
      idTokenExpected: true,
    });
  } catch (err) {
    const e = err as Error & { code?: string; error?: string; error_description?: string; cause?: unknown };
    const detail = e.error_description ?? e.error ?? e.message;
    // openid-client wraps oauth4webapi's error: its message and the claim it compared are further in.
    let claim: unknown;
    let inner = '';
    for (let c: unknown = e.cause, depth = 0; c && typeof c === 'object' && depth < 4; depth++) {
      const x = c as { message?: unknown; claim?: unknown; cause?: unknown };
      if (typeof x.message === 'string' && x.message !== e.message) inner = x.message;
      if (typeof x.claim === 'string') claim = x.claim;
      c = x.cause;
    }
    throw new SsoFlowError(
      `token or ID token refused: ${e.code ?? ''} ${detail}${inner ? `: ${inner}` : ''}${
        typeof claim === 'string' ? ` (claim ${claim})` : ''
      }`.trim(),
    );
  }
  const claims: Record<string, unknown> = { ...(tokens.claims() ?? {}) };
  const m = provider.mapping;
  const missing = [m.usernameClaim, m.emailClaim, m.groupsClaim].some((c) => !(c in claims));
  if (missing && config.serverMetadata().userinfo_endpoint && tokens.access_token) {
    try {
      const info = await oidc.fetchUserInfo(config, tokens.access_token, String(claims.sub));
      for (const [k, v] of Object.entries(info)) if (!(k in claims)) claims[k] = v;
    } catch (err) {
      throw new SsoFlowError(`user-info refused: ${(err as Error).message}`);
    }
  }
  return claims;
}

// ----------------------------------------------------------------------------------------------
// Plain OAuth 2.0 (GitHub style)
// ----------------------------------------------------------------------------------------------

export async function oauth2AuthorizationUrl(
  provider: OAuth2Provider,
  redirectUri: string,
  state: string,
  flow: SsoFlowData,
): Promise<URL> {
  const oidc = await openidClient();
  const url = new URL(provider.authorizationUrl);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', provider.clientId);
  url.searchParams.set('redirect_uri', redirectUri);
  if (provider.scopes.length > 0) url.searchParams.set('scope', provider.scopes.join(' '));
  url.searchParams.set('state', state);
  if (flow.codeVerifier) {
    url.searchParams.set('code_challenge', await oidc.calculatePKCECodeChallenge(flow.codeVerifier));
    url.searchParams.set('code_challenge_method', 'S256');
  }
  return url;
}

const MAX_ANSWER = 1024 * 1024;

async function readJson(res: { text(): Promise<string>; headers: Headers }, what: string) {
  const text = await res.text();
  if (text.length > MAX_ANSWER) throw new SsoFlowError(`${what}: answer too large`);
  const type = res.headers.get('content-type') ?? '';
  if (type.includes('application/x-www-form-urlencoded'))
    return Object.fromEntries(new URLSearchParams(text)) as Record<string, unknown>;
  try {
    const value = JSON.parse(text) as unknown;
    if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error('not an object');
    return value as Record<string, unknown>;
  } catch {
    throw new SsoFlowError(`${what}: not JSON`);
  }
}

/** The code for an access token (client secret in the body, as GitHub wants), then the user-info answer. */
export async function oauth2Callback(
  outbound: OutboundClient,
  provider: OAuth2Provider,
  code: string,
  redirectUri: string,
  flow: SsoFlowData,
): Promise<Record<string, unknown>> {
  const form = new URLSearchParams({
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirectUri,
    client_id: provider.clientId,
  });
  if (provider.secrets.clientSecret) form.set('client_secret', provider.secrets.clientSecret);
  if (flow.codeVerifier) form.set('code_verifier', flow.codeVerifier);
  let token: Record<string, unknown>;
  try {
    const res = await outbound.fetch(provider.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form.toString(),
      redirect: 'manual',
    });
    token = await readJson(res, 'token endpoint');
    if (!res.ok || typeof token.access_token !== 'string')
      throw new SsoFlowError(`token refused: ${res.status} ${String(token.error ?? '')}`.trim());
  } catch (err) {
    if (err instanceof SsoFlowError) throw err;
    throw new SsoFlowError(`token endpoint: ${(err as Error).message}`);
  }
  try {
    const res = await outbound.fetch(provider.userInfoUrl, {
      headers: { authorization: `Bearer ${token.access_token}`, accept: 'application/json' },
      redirect: 'manual',
    });
    const info = await readJson(res, 'user-info endpoint');
    if (!res.ok) throw new SsoFlowError(`user-info refused: ${res.status}`);
    return info;
  } catch (err) {
    if (err instanceof SsoFlowError) throw err;
    throw new SsoFlowError(`user-info endpoint: ${(err as Error).message}`);
  }
}
