import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { Db } from '../../platform/db/index.ts';
import { UnauthorizedError } from '../../platform/http/errors.ts';
import { authenticatePassword, CredentialCache } from './access.service.ts';

function parseBasic(header: string): { name: string; password: string } | null {
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!m) return null;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return null;
  return { name: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/**
 * Sets `request.principal` from HTTP Basic credentials (the access issue adds tokens and sessions).
 * Wrong credentials are refused with 401 even where anonymous access would do, as the peers do,
 * so a client never silently runs as anonymous after a typo.
 */
export function registerAuthentication(app: FastifyInstance, db: Db, security: Logger): CredentialCache {
  const cache = new CredentialCache();
  app.decorateRequest('principal', null);
  app.addHook('onRequest', async (request: FastifyRequest) => {
    const header = request.headers.authorization;
    if (!header) return;
    const cached = cache.get(header);
    if (cached) {
      request.principal = cached;
      return;
    }
    const basic = parseBasic(header);
    if (!basic) {
      if (/^Basic\s/i.test(header)) throw new UnauthorizedError('Malformed Basic credentials');
      // Other schemes (Bearer tokens) are the access issue's; until then they authenticate no one.
      throw new UnauthorizedError('Unsupported authorization scheme');
    }
    const result = await authenticatePassword(db, basic.name, basic.password);
    if (!result.ok) {
      security.warn({ event: 'auth.failure', user: basic.name, ip: request.ip, reason: result.reason });
      throw new UnauthorizedError('Bad credentials');
    }
    security.info({ event: 'auth.success', user: result.principal.name, ip: request.ip, method: 'basic' });
    cache.set(header, result.principal);
    request.principal = result.principal;
  });
  return cache;
}
