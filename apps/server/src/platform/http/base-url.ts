import type { FastifyRequest } from 'fastify';

/** The server's public base URL: `GRANARY_BASE_URL` when set, else derived from the request. */
export function publicBaseUrl(request: FastifyRequest, configured?: string): string {
  if (configured) return configured;
  return `${request.protocol}://${request.host}`;
}
