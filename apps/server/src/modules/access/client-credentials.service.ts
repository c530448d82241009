import type { FastifyRequest } from 'fastify';
import type { Principal } from '../../platform/http/access-control.ts';
import { readOtp } from './authentication.ts';
import { type AccessContext, requestMeta } from './context.ts';
import { checkPassword, requireFreshOtp } from './login.service.ts';
import { formatTokenScope, fullScopeOf } from './token-scope.ts';
import { createAccessToken } from './tokens.service.ts';
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
        { otpVerified: steppedUp.has(request) },
      );
      return { token: answer.access_token, expiresInSecs: answer.expires_in ?? null };
    },
  };
}
