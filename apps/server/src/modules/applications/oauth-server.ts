import { randomBytes } from 'node:crypto';
import {
  APPLICATION_DEFAULT_SCOPE,
  APPLICATION_SCOPES,
  type AuthorizeAnswer,
  type ConsentRequest,
  OAUTH_CONSENT_ROUTE,
  OAUTH_PATHS,
} from '@granary/contracts';
import type OAuth2Server from '@node-oauth/oauth2-server';
import { ForbiddenError, NotFoundError } from '../../platform/errors.ts';
import type { Principal } from '../../platform/http/access-control.ts';
import { auditOf } from '../access/audit.service.ts';
import type { RequestMeta } from '../access/context.ts';
import { sha256 } from '../access/crypto.ts';
import { issueApplicationToken, revokeApplicationTokens } from '../access/tokens.service.ts';
import {
  type ApplicationRow,
  claimAuthorizationRequest,
  deleteAuthorizationCode,
  deleteRefreshToken,
  findApplicationByClientId,
  findApplicationById,
  findAuthorizationCode,
  findAuthorizationRequest,
  findGrant,
  findGrantTokenByHash,
  findRefreshToken,
  insertAuthorizationCode,
  insertAuthorizationRequest,
  insertGrantToken,
  insertRefreshToken,
  pruneExpired,
  takeAuthorizationRequest,
  tokenIdsOfGrants,
  touchGrant,
  upsertGrant,
} from './applications.queries.ts';
import { type ApplicationsContext, clientSecretMatches } from './applications.service.ts';

/**
 * Granary's OAuth 2.0 authorization server for application integrations (issue 18), on
 * `@node-oauth/oauth2-server` 5 (the protocol: request validation, PKCE verification, the
 * authorization-code and refresh-token grants, rotation, error answers). Granary supplies the model:
 * clients are the registered applications (confidential: a client secret is always required at the
 * token endpoint), codes and refresh tokens are kept as SHA-256, and the access tokens are Granary's
 * own (`grn_…`, scope `applied-permissions/user` [+ `granary/read-only`]), so every route accepts
 * them and they act with the user's current rights. The library has no revocation endpoint: RFC 7009
 * is `revokeOAuthToken` below. PKCE with S256 is required before the library sees the request.
 */

export const ACCESS_TOKEN_SECS = 3600;
export const REFRESH_TOKEN_SECS = 30 * 24 * 3600;
const CODE_SECS = 120;
const CONSENT_SECS = 600;

interface OAuthUser {
  id: string;
  name: string;
}

function formDecode(value: string): string {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return value;
  }
}

function clientOf(app: ApplicationRow): OAuth2Server.Client {
  return {
    id: app.id,
    clientId: app.clientId,
    name: app.name,
    redirectUris: [app.callbackUrl],
    grants: ['authorization_code', 'refresh_token'],
    accessTokenLifetime: ACCESS_TOKEN_SECS,
    refreshTokenLifetime: REFRESH_TOKEN_SECS,
  };
}

/** The scope items as Granary's token scope: the user's own rights, optionally read-only. */
export function granaryScopeOf(items: string[]): string {
  return items.includes('granary/read-only')
    ? `${APPLICATION_DEFAULT_SCOPE} granary/read-only`
    : APPLICATION_DEFAULT_SCOPE;
}

function normaliseScope(items: string[] | undefined): string[] | false {
  const list = items && items.length > 0 ? items : [APPLICATION_DEFAULT_SCOPE];
  if (!list.every((s) => (APPLICATION_SCOPES as readonly string[]).includes(s))) return false;
  // Every token acts for the user; `granary/read-only` only narrows it.
  return [...new Set([APPLICATION_DEFAULT_SCOPE, ...list])];
}

function model(
  ctx: ApplicationsContext,
): OAuth2Server.AuthorizationCodeModel & OAuth2Server.RefreshTokenModel {
  return {
    async getClient(rawId: string, rawSecret: string | null) {
      // RFC 6749 §2.3.1: Basic credentials are form-encoded (openid-client encodes even `-` and `_`);
      // the library hands them over as sent. Ids and secrets here never contain `%` or `+` themselves.
      const clientId = formDecode(rawId);
      const clientSecret = rawSecret === null ? null : formDecode(rawSecret);
      const app = await findApplicationByClientId(ctx.db, clientId);
      if (!app) return false;
      // `null`: the authorization endpoint looks the client up; at the token endpoint a secret is
      // always required (a request with only a code_verifier is refused: these clients are confidential).
      if (clientSecret !== null && (!clientSecret || !clientSecretMatches(app, clientSecret))) return false;
      return clientOf(app);
    },
    async validateScope(_user, _client, scope) {
      return normaliseScope(scope);
    },
    async saveAuthorizationCode(code, client, user) {
      await insertAuthorizationCode(ctx.db, {
        codeHash: sha256(code.authorizationCode),
        applicationId: client.id,
        userId: (user as OAuthUser).id,
        redirectUri: code.redirectUri,
        scope: (code.scope ?? []).join(' '),
        codeChallenge: code.codeChallenge ?? '',
        codeChallengeMethod: code.codeChallengeMethod ?? '',
        expiresAt: code.expiresAt,
      });
      return { ...code, client, user };
    },
    async getAuthorizationCode(authorizationCode) {
      const hit = await findAuthorizationCode(ctx.db, sha256(authorizationCode));
      if (!hit) return false;
      const app = await findApplicationById(ctx.db, hit.code.applicationId);
      if (!app) return false;
      return {
        authorizationCode,
        expiresAt: hit.code.expiresAt,
        redirectUri: hit.code.redirectUri,
        scope: hit.code.scope.split(' ').filter(Boolean),
        client: clientOf(app),
        user: { id: hit.user.id, name: hit.user.name } satisfies OAuthUser,
        codeChallenge: hit.code.codeChallenge || undefined,
        codeChallengeMethod: hit.code.codeChallengeMethod || undefined,
      };
    },
    async revokeAuthorizationCode(code) {
      return deleteAuthorizationCode(ctx.db, sha256(code.authorizationCode));
    },
    async saveToken(token, client, user) {
      const owner = user as OAuthUser;
      // The user integration must still be there: revoking it kills pending codes and refresh tokens.
      const grant = await findGrant(ctx.db, client.id, owner.id);
      if (!grant) throw new (oauth2().InvalidGrantError)('Invalid grant: the user revoked this application');
      const scope = normaliseScope(token.scope) || [APPLICATION_DEFAULT_SCOPE];
      const issued = await issueApplicationToken(ctx.access, {
        userId: owner.id,
        scope: granaryScopeOf(scope),
        expiresInSecs: ACCESS_TOKEN_SECS,
        description: `OAuth application ${String(client.name)}`,
      });
      await insertGrantToken(ctx.db, {
        tokenId: issued.id,
        grantId: grant.id,
        tokenHash: sha256(issued.token),
      });
      const refreshTokenExpiresAt = new Date(ctx.now() + REFRESH_TOKEN_SECS * 1000);
      if (token.refreshToken)
        await insertRefreshToken(ctx.db, {
          tokenHash: sha256(token.refreshToken),
          grantId: grant.id,
          scope: scope.join(' '),
          expiresAt: refreshTokenExpiresAt,
        });
      await touchGrant(ctx.db, grant.id);
      return {
        accessToken: issued.token,
        accessTokenExpiresAt: new Date(ctx.now() + ACCESS_TOKEN_SECS * 1000),
        refreshToken: token.refreshToken,
        refreshTokenExpiresAt: token.refreshToken ? refreshTokenExpiresAt : undefined,
        scope,
        client,
        user,
      };
    },
    async getRefreshToken(refreshToken) {
      const hit = await findRefreshToken(ctx.db, sha256(refreshToken));
      if (!hit || hit.user.disabled) return false;
      const app = await findApplicationById(ctx.db, hit.grant.applicationId);
      if (!app) return false;
      return {
        refreshToken,
        refreshTokenExpiresAt: hit.refresh.expiresAt,
        scope: hit.refresh.scope.split(' ').filter(Boolean),
        client: clientOf(app),
        user: { id: hit.user.id, name: hit.user.name } satisfies OAuthUser,
      };
    },
    /** Rotation: a refresh token is used once. */
    async revokeToken(token) {
      return deleteRefreshToken(ctx.db, sha256(token.refreshToken));
    },
    /** Unused: Granary's own authentication checks the access tokens (they are Granary tokens). */
    async getAccessToken() {
      return false;
    },
  };
}

let oauth2Lib: typeof OAuth2Server | undefined;
/** The library, loaded with the first OAuth request's server (createOAuthServer), not at start (issue 24). */
const oauth2 = (): typeof OAuth2Server => {
  if (!oauth2Lib) throw new Error('the OAuth server is not created yet');
  return oauth2Lib;
};

export async function createOAuthServer(ctx: ApplicationsContext): Promise<OAuth2Server> {
  oauth2Lib ??= (await import('@node-oauth/oauth2-server')).default;
  return new oauth2Lib({
    model: model(ctx),
    accessTokenLifetime: ACCESS_TOKEN_SECS,
    refreshTokenLifetime: REFRESH_TOKEN_SECS,
    authorizationCodeLifetime: CODE_SECS,
    allowEmptyState: true,
    alwaysIssueNewRefreshToken: true,
  });
}

export interface OAuthAnswer {
  status: number;
  headers: Record<string, string>;
  body?: unknown;
}

function redirectWithError(
  redirectUri: string,
  error: string,
  description: string,
  state?: string,
): OAuthAnswer {
  const url = new URL(redirectUri);
  url.searchParams.set('error', error);
  url.searchParams.set('error_description', description);
  if (state) url.searchParams.set('state', state);
  return { status: 302, headers: { location: url.toString() } };
}

/**
 * `GET /access/api/v1/oauth2/authorize`: checks the client, its redirect URI, the response type,
 * PKCE (S256 required) and the scope; then keeps the request and sends the browser to the console's
 * consent screen. A bad client or redirect URI is answered here (never redirected to).
 */
export async function startAuthorization(
  ctx: ApplicationsContext,
  query: Record<string, unknown>,
): Promise<OAuthAnswer> {
  const params: Record<string, string> = {};
  for (const [k, v] of Object.entries(query)) if (typeof v === 'string') params[k] = v;
  const bad = (error: string, description: string): OAuthAnswer => ({
    status: 400,
    headers: { 'cache-control': 'no-store' },
    body: { error, error_description: description },
  });
  const app = params.client_id ? await findApplicationByClientId(ctx.db, params.client_id) : undefined;
  if (!app) return bad('invalid_client', 'Unknown client_id');
  if (params.redirect_uri && params.redirect_uri !== app.callbackUrl)
    return bad('invalid_request', 'redirect_uri does not match the registered callback URL');
  const redirectUri = app.callbackUrl;
  if (params.response_type !== 'code')
    return redirectWithError(
      redirectUri,
      'unsupported_response_type',
      'Only response_type=code',
      params.state,
    );
  if (!params.code_challenge || params.code_challenge_method !== 'S256')
    return redirectWithError(
      redirectUri,
      'invalid_request',
      'PKCE is required: code_challenge with code_challenge_method=S256',
      params.state,
    );
  if (!/^[A-Za-z0-9_-]{43,128}$/.test(params.code_challenge))
    return redirectWithError(redirectUri, 'invalid_request', 'Malformed code_challenge', params.state);
  const scope = normaliseScope(params.scope?.split(' ').filter(Boolean));
  if (!scope) return redirectWithError(redirectUri, 'invalid_scope', 'Unknown scope', params.state);
  await pruneExpired(ctx.db, new Date(ctx.now()));
  const id = randomBytes(24).toString('base64url');
  await insertAuthorizationRequest(ctx.db, {
    id,
    applicationId: app.id,
    params: { ...params, redirect_uri: redirectUri, scope: scope.join(' ') },
    expiresAt: new Date(ctx.now() + CONSENT_SECS * 1000),
  });
  return {
    status: 302,
    headers: {
      location: `${OAUTH_CONSENT_ROUTE}?request=${encodeURIComponent(id)}`,
      'cache-control': 'no-store',
    },
  };
}

async function pendingRequest(ctx: ApplicationsContext, caller: Principal, requestId: string) {
  const row = await findAuthorizationRequest(ctx.db, requestId);
  if (!row || row.expiresAt.getTime() <= ctx.now())
    throw new NotFoundError(
      'This authorization request is unknown or expired; start again from the application',
    );
  // The first signed-in user to open it owns it; nobody else sees or answers it.
  if (!(await claimAuthorizationRequest(ctx.db, row.id, caller.id)))
    throw new NotFoundError(
      'This authorization request is unknown or expired; start again from the application',
    );
  const app = await findApplicationById(ctx.db, row.applicationId);
  if (!app) throw new NotFoundError('The application was deleted');
  return { row, app };
}

/** Only the user, in the console (a session): an application's token cannot approve applications. */
function requireConsole(caller: Principal | null): Principal {
  if (caller?.via !== 'session')
    throw new ForbiddenError('Approve or deny an application in the console, signed in as yourself');
  return caller;
}

/** `GET consent/{requestId}`: what the consent screen shows. */
export async function consentRequest(
  ctx: ApplicationsContext,
  caller: Principal,
  requestId: string,
): Promise<ConsentRequest> {
  const { row, app } = await pendingRequest(ctx, requireConsole(caller), requestId);
  return {
    requestId: row.id,
    clientId: app.clientId,
    applicationName: app.name,
    description: app.description,
    platformBaseUrl: app.platformBaseUrl,
    redirectUri: app.callbackUrl,
    username: caller.name,
    scopes: (row.params.scope ?? APPLICATION_DEFAULT_SCOPE).split(' ').filter(Boolean),
    expiresAt: row.expiresAt.toISOString(),
  };
}

async function answer(
  ctx: ApplicationsContext,
  server: OAuth2Server,
  caller: Principal,
  params: Record<string, string>,
  allowed: boolean,
): Promise<string> {
  const request = new (oauth2().Request)({
    method: 'GET',
    headers: {},
    query: allowed ? params : { ...params, allowed: 'false' },
  });
  const response = new (oauth2().Response)({ headers: {} });
  const user: OAuthUser = { id: caller.id, name: caller.name };
  try {
    await server.authorize(request, response, { authenticateHandler: { handle: async () => user } });
  } catch (err) {
    if (!(err instanceof oauth2().OAuthError)) throw err;
    if (!response.get('location')) {
      ctx.log.warn({ err: err.message }, 'authorization refused before a redirect');
      throw new ForbiddenError(err.message);
    }
  }
  return String(response.get('location'));
}

/** `POST authorize/{clientId}/{username}`: the user approves; the answer is where the browser goes (with the code). */
export async function approveAuthorization(
  ctx: ApplicationsContext,
  server: OAuth2Server,
  meta: RequestMeta,
  clientId: string,
  username: string,
  requestId: string,
): Promise<AuthorizeAnswer> {
  const caller = requireConsole(meta.principal);
  if (caller.name.toLowerCase() !== username.toLowerCase())
    throw new ForbiddenError('Only the user themself can authorize an application');
  const { app } = await pendingRequest(ctx, caller, requestId);
  if (app.clientId !== clientId) throw new NotFoundError(`Application '${clientId}' has no such request`);
  const taken = await takeAuthorizationRequest(ctx.db, requestId, caller.id);
  if (!taken) throw new NotFoundError('This authorization request was already answered');
  const scope = taken.params.scope ?? APPLICATION_DEFAULT_SCOPE;
  await upsertGrant(ctx.db, app.id, caller.id, scope);
  const url = await answer(ctx, server, caller, taken.params, true);
  await ctx.access.audit.record({
    ...auditOf(meta),
    action: 'application.authorize',
    target: app.name,
    result: 'success',
    details: { clientId: app.clientId, scope },
  });
  return { url };
}

/** `POST consent/{requestId}/deny`: back to the application with `error=access_denied`. */
export async function denyAuthorization(
  ctx: ApplicationsContext,
  server: OAuth2Server,
  meta: RequestMeta,
  requestId: string,
): Promise<AuthorizeAnswer> {
  const caller = requireConsole(meta.principal);
  await pendingRequest(ctx, caller, requestId);
  const taken = await takeAuthorizationRequest(ctx.db, requestId, caller.id);
  if (!taken) throw new NotFoundError('This authorization request was already answered');
  return { url: await answer(ctx, server, caller, taken.params, false) };
}

/** `POST /access/api/v1/oauth2/token`: the library's token endpoint, its answer passed through. */
export async function tokenEndpoint(
  server: OAuth2Server,
  req: { headers: Record<string, unknown>; body: unknown; query: Record<string, unknown> },
): Promise<OAuthAnswer> {
  const request = new (oauth2().Request)({
    method: 'POST',
    headers: req.headers as Record<string, string>,
    query: req.query as Record<string, string>,
    body: (req.body ?? {}) as Record<string, unknown>,
  });
  const response = new (oauth2().Response)({ headers: {} });
  try {
    await server.token(request, response);
  } catch (err) {
    if (!(err instanceof oauth2().OAuthError)) throw err;
  }
  return {
    status: response.status ?? 200,
    headers: { ...(response.headers as Record<string, string>), 'cache-control': 'no-store' },
    body: response.body,
  };
}

function clientCredentials(headers: Record<string, unknown>, body: Record<string, unknown>) {
  const header = typeof headers.authorization === 'string' ? headers.authorization : '';
  const basic = /^Basic\s+(\S+)$/i.exec(header);
  if (basic) {
    const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
    const i = decoded.indexOf(':');
    if (i > 0)
      return {
        id: formDecode(decoded.slice(0, i)),
        secret: formDecode(decoded.slice(i + 1)),
      };
  }
  if (typeof body.client_id === 'string' && typeof body.client_secret === 'string')
    return { id: body.client_id, secret: body.client_secret };
  return undefined;
}

/**
 * `POST /access/api/v1/oauth2/revoke` (RFC 7009): the client revokes one of its own tokens. An
 * access token stops working at once; a refresh token goes with the grant's access tokens
 * (§2.1). An unknown token, or another client's, is answered 200 as the RFC says, and left alone.
 */
export async function revokeOAuthToken(
  ctx: ApplicationsContext,
  req: { headers: Record<string, unknown>; body: unknown },
): Promise<OAuthAnswer> {
  const body = (req.body ?? {}) as Record<string, unknown>;
  const creds = clientCredentials(req.headers, body);
  const app = creds ? await findApplicationByClientId(ctx.db, creds.id) : undefined;
  if (!creds || !app || !clientSecretMatches(app, creds.secret))
    return {
      status: 401,
      headers: { 'www-authenticate': 'Basic realm="Service"', 'cache-control': 'no-store' },
      body: { error: 'invalid_client', error_description: 'Client authentication failed' },
    };
  if (typeof body.token !== 'string' || body.token === '')
    return {
      status: 400,
      headers: { 'cache-control': 'no-store' },
      body: { error: 'invalid_request', error_description: 'Missing parameter: token' },
    };
  const hash = sha256(body.token);
  const access = await findGrantTokenByHash(ctx.db, hash);
  if (access && access.grant.applicationId === app.id)
    await revokeApplicationTokens(ctx.access, [access.token.tokenId]);
  const refresh = access ? undefined : await findRefreshToken(ctx.db, hash);
  if (refresh && refresh.grant.applicationId === app.id) {
    await deleteRefreshToken(ctx.db, hash);
    await revokeApplicationTokens(ctx.access, await tokenIdsOfGrants(ctx.db, [refresh.grant.id]));
  }
  return { status: 200, headers: { 'cache-control': 'no-store' } };
}

/** RFC 8414 metadata. */
export function authorizationServerMetadata(baseUrl: string) {
  const at = (p: string) => new URL(p, baseUrl).toString();
  return {
    issuer: baseUrl.replace(/\/+$/, ''),
    authorization_endpoint: at(OAUTH_PATHS.authorize),
    token_endpoint: at(OAUTH_PATHS.token),
    revocation_endpoint: at(OAUTH_PATHS.revoke),
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    scopes_supported: [...APPLICATION_SCOPES],
  };
}
