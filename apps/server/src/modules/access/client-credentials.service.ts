import type { FastifyRequest } from 'fastify';
import { NotFoundError } from '../../platform/errors.ts';
import type { Principal } from '../../platform/http/access-control.ts';
import { readOtp } from './authentication.ts';
import { openCliSession, pollCliSession } from './cli-registrations.service.ts';
import { type AccessContext, requestMeta } from './context.ts';
import { checkPassword, requireFreshOtp } from './login.service.ts';
import { formatTokenScope, fullScopeOf } from './token-scope.ts';
import { createAccessToken, revokeToken } from './tokens.service.ts';
import { principalOf } from './users.service.ts';

/**
 * What package clients' own login protocols need (`npm login`, `docker login` → `/v2/token`):
 * a password check with the same throttling and audit as every sign-in, and a token for the caller.
 */
export interface ClientCredentials {
  /** The user, when the name and password are right (throttled and audited like any sign-in). */
  login(request: FastifyRequest, name: string, password: string, channel: string): Promise<Principal | null>;
  /** A new access token of `principal` (stored hashed, revocable under the user's tokens). */
  issueToken(
    request: FastifyRequest,
    principal: Principal,
    opts: { description: string; expiresInSecs?: number },
  ): Promise<{ token: string; expiresInSecs: number | null }>;
  /**
   * Revokes the access token the request's caller authenticated with (`npm logout`), as
   * `DELETE /api/security/tokens/{id}` would for that caller (owner check, credential caches cleared,
   * audited); false when it used none, or a read-only token (which changes nothing).
   */
  revokeCallerToken(request: FastifyRequest): Promise<boolean>;
  /** Opens a CLI sign-in session (`POST /api/security/cli-registrations`): its secret id and the console page that confirms it. */
  openCliLogin(request: FastifyRequest, client: string): Promise<{ session: string; url: string }>;
  /** Polls a CLI sign-in session (`GET /api/security/cli-registrations/{session}`): pending, the token once, or null (unknown, expired, taken). */
  pollCliLogin(
    request: FastifyRequest,
    session: string,
  ): Promise<{ status: 'pending' } | { status: 'confirmed'; username: string; token: string } | null>;
}

/** Requests whose caller proved a fresh one-time code at login: the token they get needs no second one. */
const steppedUp = new WeakSet<FastifyRequest>();

export function clientCredentials(ctx: AccessContext): ClientCredentials {
  return {
    async login(request, name, password, channel) {
      const meta = requestMeta(request, ctx.baseUrl);
      const check = await checkPassword(ctx, meta, name, password, channel);
      if (!check.ok || !check.user) return null;
      // Issue 12 §2: the password alone never mints a token of a user with an authenticator. Without a
      // code this throws 401 `WWW-Authenticate: OTP`, which npm answers by asking for one (`npm-otp`).
      if (check.user.mfaSecret) {
        await requireFreshOtp(ctx, meta, check.user, readOtp(request), `${channel} login`);
        steppedUp.add(request);
      }
      return principalOf(ctx.db, check.user, 'password');
    },
    async issueToken(request, principal, opts) {
      const meta = { ...requestMeta(request, ctx.baseUrl), principal };
      const answer = await createAccessToken(
        ctx,
        meta,
        {
          username: principal.name,
          // The client keeps working as its user signed in: an admin's password gives an admin-scoped
          // token, a scoped token a token of the same scope (never wider: issue 12 §18).
          scope: formatTokenScope(fullScopeOf(principal)),
          description: opts.description,
          expires_in: opts.expiresInSecs,
        },
        // A fresh one-time code sent with the request (`X-Granary-OTP`) also lets a user with an authenticator
        // get one (issue 17: the quick-start wizard's settings.xml download).
        { otpVerified: steppedUp.has(request), otp: readOtp(request) },
      );
      return { token: answer.access_token, expiresInSecs: answer.expires_in ?? null };
    },
    async revokeCallerToken(request) {
      const caller = request.principal;
      if (!caller?.tokenId || caller.scope?.readOnly) return false;
      try {
        await revokeToken(ctx, requestMeta(request, ctx.baseUrl), caller.tokenId);
        return true;
      } catch (err) {
        if (err instanceof NotFoundError) return false;
        throw err;
      }
    },
    async openCliLogin(request, client) {
      // The route's rule for the client's name: trimmed, at most 100 characters.
      const name = client.trim().slice(0, 100) || undefined;
      const opened = await openCliSession(ctx, requestMeta(request, ctx.baseUrl), name);
      return { session: opened.session, url: opened.url };
    },
    async pollCliLogin(request, session) {
      try {
        const answer = await pollCliSession(ctx, requestMeta(request, ctx.baseUrl), session);
        if (answer.status === 'pending') return { status: 'pending' };
        return { status: 'confirmed', username: answer.username, token: answer.access_token };
      } catch (err) {
        if (err instanceof NotFoundError) return null;
        throw err;
      }
    },
  };
}
