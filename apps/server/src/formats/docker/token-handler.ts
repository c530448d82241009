import { ANONYMOUS_BEARER_TOKEN } from '@granary/contracts';
import { OciError } from './oci.ts';
import type { V2Call } from './v2-call.ts';

/** Lifetime of a token from `/v2/token`: short, and revocable like every access token. */
export const TOKEN_SECS = 600;

/** `docker login`'s token endpoint (`/v2/token`): the caller (Basic password or access token) gets a short-lived revocable token. */
export async function token({ registry, request, reply }: V2Call) {
  // No credentials: the anonymous token, worth exactly anonymous access (each read still asks permission).
  if (!request.principal)
    return reply.header('cache-control', 'no-store').send({
      token: ANONYMOUS_BEARER_TOKEN,
      access_token: ANONYMOUS_BEARER_TOKEN,
      expires_in: TOKEN_SECS,
      issued_at: new Date().toISOString(),
    });
  // The repository the scope names (one lookup); only when it names none known, any repository.
  const scoped = /^repository:([^/:]+)\//.exec(request.query.scope ?? '')?.[1];
  let ctx = scoped ? await registry.core.requestContext(request, scoped) : null;
  if (!ctx) {
    const key = (await registry.core.repositoryKeys())[0];
    ctx = key ? await registry.core.requestContext(request, key) : null;
  }
  if (!ctx) throw new OciError(503, 'UNKNOWN', 'No repository exists to issue a token for');
  const issued = await ctx.issueToken({
    description: `docker login (${request.query.service ?? request.host})`,
    expiresInSecs: TOKEN_SECS,
  });
  return reply.header('cache-control', 'no-store').send({
    token: issued.token,
    access_token: issued.token,
    expires_in: issued.expiresInSecs ?? TOKEN_SECS,
    issued_at: new Date().toISOString(),
  });
}
