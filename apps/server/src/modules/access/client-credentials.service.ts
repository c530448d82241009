import type { FastifyRequest } from 'fastify';
import type { Principal } from '../../platform/http/access-control.ts';
import { type AccessContext, requestMeta } from './context.ts';
import { checkPassword } from './login.service.ts';
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

export function clientCredentials(ctx: AccessContext): ClientCredentials {
  return {
    async login(request, name, password, channel) {
      const check = await checkPassword(ctx, requestMeta(request, ctx.baseUrl), name, password, channel);
      if (!check.ok || !check.user) return null;
      return principalOf(ctx.db, check.user, 'password');
    },
    async issueToken(request, principal, opts) {
      const meta = { ...requestMeta(request, ctx.baseUrl), principal };
      const answer = await createAccessToken(ctx, meta, {
        username: principal.name,
        description: opts.description,
        expires_in: opts.expiresInSecs,
      });
      return { token: answer.access_token, expiresInSecs: answer.expires_in ?? null };
    },
  };
}
