import type { FastifyInstance } from 'fastify';

/** The API's own policy: a JSON answer loads nothing and is framed by no one. */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'";
/** Pages that bring their own scripts and styles and set no policy of their own (the API's documentation). */
const OWN_PAGES = /^\/api\/docs(\/|$|\?)/;

/**
 * The request id (`x-request-id`, what a user quotes to an administrator) and the baseline
 * browser-facing headers on every answer (issue 12 §22), each only when the route set none:
 * the console sets its own policy, stored files their `sandbox`, directory listings theirs. They are
 * set as the request arrives (a route's own value replaces them), in a callback hook: an `onSend`
 * hook for every answer cost a promise and four header lookups per request (issue 24, B0). One hook
 * for all of them: each hook is a step of its own for every request.
 */
export function registerBaselineHeaders(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    reply.header('x-content-type-options', 'nosniff');
    reply.header('x-frame-options', 'DENY');
    reply.header('referrer-policy', 'same-origin');
    if (!OWN_PAGES.test(request.url)) reply.header('content-security-policy', API_CSP);
    done();
  });
}
