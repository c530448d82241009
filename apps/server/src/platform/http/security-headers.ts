import type { FastifyInstance } from 'fastify';

/** The API's own policy: a JSON answer loads nothing and is framed by no one. */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'";
/** Pages that bring their own scripts and styles and set no policy of their own (the API's documentation). */
const OWN_PAGES = /^\/api\/docs(\/|$|\?)/;

/**
 * Baseline browser-facing headers on every answer (issue 12 §22), each only when the route set none:
 * the console sets its own policy, stored files their `sandbox`, directory listings theirs.
 */
export function registerSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply, payload) => {
    if (!reply.hasHeader('x-content-type-options')) reply.header('x-content-type-options', 'nosniff');
    if (!reply.hasHeader('x-frame-options')) reply.header('x-frame-options', 'DENY');
    if (!reply.hasHeader('referrer-policy')) reply.header('referrer-policy', 'same-origin');
    if (!reply.hasHeader('content-security-policy') && !OWN_PAGES.test(request.url))
      reply.header('content-security-policy', API_CSP);
    return payload;
  });
}
