import {
  ACCESS_MESSAGES,
  AccessErrorCode,
  ANONYMOUS_BEARER_TOKEN,
  CSRF_HEADER,
  OTP_HEADER,
  SESSION_COOKIE,
} from '@granary/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ForbiddenError, UnauthorizedError, UpstreamError } from '../../platform/errors.ts';
import type { AccessContext } from './context.ts';
import { readCookie } from './cookies.ts';
import { TOKEN_PREFIX } from './crypto.ts';
import { checkPassword, LockedOutError } from './login.service.ts';
import { resolveSession } from './sessions.service.ts';
import { LDAP_UNREACHABLE_MESSAGE } from './sso/ldap.ts';
import { authenticateToken } from './tokens.service.ts';
import { principalOf } from './users.service.ts';

function parseBasic(header: string): { name: string; password: string } | null {
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!m) return null;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return null;
  return { name: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** A Granary access token or API key sent bare (`Authorization: grn_…`), as cargo sends its registry token. */
const rawToken = (header: string) =>
  header.startsWith(TOKEN_PREFIX) && !/\s/.test(header) ? [header, header] : null;

/** The one-time code a request carries for a step-up (issue 12 §2): `X-Granary-OTP`, or npm's `npm-otp`. */
export function readOtp(request: FastifyRequest): string | undefined {
  for (const name of [OTP_HEADER.toLowerCase(), 'npm-otp']) {
    const value = request.headers[name];
    const first = Array.isArray(value) ? value[0] : value;
    if (first?.trim()) return first.trim();
  }
  return undefined;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const CSRF = CSRF_HEADER.toLowerCase();

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Issue 18: OAuth token and revocation endpoints; their Basic credentials are an application's, checked there. */
    oauthClient?: boolean;
  }
}

/**
 * Sets `request.principal` from, in order: HTTP Basic (password, or an access token as the
 * password; never the password of a user with an authenticator), a Bearer access token, or the
 * console session cookie. Wrong credentials are refused
 * with 401 even where anonymous access would do, as the peers do, so a client never silently runs
 * as anonymous after a typo. A state-changing request authenticated by the session cookie must carry
 * the `X-Granary-CSRF` header (a cross-site form cannot set it), else 403.
 */
export function registerAuthentication(app: FastifyInstance, ctx: AccessContext): void {
  const cache = ctx.credentials;
  app.decorateRequest('principal', null);
  // A callback hook: the usual requests (no credentials at all, or credentials verified lately) pass
  // without a promise; an async hook cost one on every request (issue 24, B0).
  app.addHook('onRequest', (request, _reply, done) => {
    if (request.routeOptions.config.oauthClient) return done();
    const header = request.headers.authorization;
    if (header) {
      const cached = cache.get(header);
      if (cached) {
        request.principal = cached;
        return done();
      }
    } else if (!request.headers.cookie) return done();
    authenticate(request).then(() => done(), done);
  });

  async function authenticate(request: FastifyRequest): Promise<void> {
    const header = request.headers.authorization;
    if (!header) return authenticateSession(ctx, request);
    const meta = { ip: request.ip, requestId: request.id };
    // Issue 23: cargo sends its registry token as the whole header, no scheme.
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header) ?? rawToken(header);
    if (bearer?.[1] === ANONYMOUS_BEARER_TOKEN) return;
    if (bearer) {
      const result = await authenticateToken(ctx, bearer[1]!);
      if (!result.ok) {
        await ctx.audit.record({
          action: 'auth.failure',
          result: 'failure',
          ...meta,
          details: { method: 'bearer', reason: result.reason },
        });
        throw new UnauthorizedError(ACCESS_MESSAGES.badCredentials, AccessErrorCode.BadCredentials);
      }
      cache.set(header, result.principal);
      request.principal = result.principal;
      return;
    }
    const basic = parseBasic(header);
    if (!basic) {
      if (/^Basic\s/i.test(header)) throw new UnauthorizedError('Malformed Basic credentials');
      throw new UnauthorizedError('Unsupported authorization scheme');
    }
    if (basic.password.startsWith(TOKEN_PREFIX)) {
      const result = await authenticateToken(ctx, basic.password, basic.name);
      if (result.ok) {
        cache.set(header, result.principal);
        request.principal = result.principal;
        return;
      }
    }
    const check = await checkPassword(ctx, meta, basic.name, basic.password, 'basic');
    if (!check.ok) {
      if (check.reason === 'locked') throw new LockedOutError(check.until);
      if (check.reason === 'password expired')
        throw new UnauthorizedError(ACCESS_MESSAGES.credentialsExpired, AccessErrorCode.CredentialsExpired);
      // Issue 20: not "wrong password" when the LDAP directory could not be asked.
      if (check.reason === 'directory unreachable') throw new UpstreamError(LDAP_UNREACHABLE_MESSAGE);
      throw new UnauthorizedError(ACCESS_MESSAGES.badCredentials, AccessErrorCode.BadCredentials);
    }
    // A user with an authenticator never works with the password alone (issue 12 §2): clients use
    // an access token or API key (made with a one-time code), as Artifactory requires of MFA users.
    if (check.user.mfaSecret) {
      await ctx.audit.record({
        action: 'auth.failure',
        result: 'denied',
        actor: check.user.name,
        ...meta,
        details: { method: 'basic', reason: 'password refused: two-step verification is on' },
      });
      throw new UnauthorizedError(ACCESS_MESSAGES.mfaTokenRequired, AccessErrorCode.MfaTokenRequired);
    }
    const principal = await principalOf(ctx.db, check.user, 'password');
    ctx.security.info({
      event: 'auth.success',
      actor: principal.name,
      ip: request.ip,
      method: 'basic',
      reqId: request.id,
    });
    cache.set(header, principal);
    request.principal = principal;
  }
}

async function authenticateSession(ctx: AccessContext, request: FastifyRequest): Promise<void> {
  const token = readCookie(request, SESSION_COOKIE);
  if (!token) return;
  const hit = await resolveSession(ctx.db, token);
  // An unknown or expired cookie is ignored: the caller is anonymous (the console then signs in again).
  if (hit?.session.state !== 'active' || hit.user.disabled) return;
  if (!SAFE_METHODS.has(request.method) && !request.headers[CSRF])
    throw new ForbiddenError(ACCESS_MESSAGES.csrfMissing, AccessErrorCode.CsrfMissing);
  const principal = await principalOf(ctx.db, hit.user, 'session');
  request.principal = { ...principal, sessionId: hit.session.id };
}
