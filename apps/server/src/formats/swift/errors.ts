import type { FastifyReply } from 'fastify';

/**
 * An error on the Swift registry endpoint: RFC 7807 problem details (`application/problem+json`)
 * with `Content-Version: 1`, which `swift package` prints (SE-0292 "Error handling").
 */
export class SwiftError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
  }
}

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
};

export function problem(reply: FastifyReply, status: number, detail: string) {
  reply.header('content-version', '1').type('application/problem+json');
  return { type: 'about:blank', title: TITLES[status] ?? 'Error', status, detail };
}
