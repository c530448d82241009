import type { FastifyReply, FastifyRequest } from 'fastify';
import { httpStatusOf } from '../../platform/http/error-status.ts';
import { infrastructureError } from '../../platform/http/infrastructure-errors.ts';
import { OCI_CODES } from './oci.ts';
import { baseUrlOf } from './v2-call.ts';

/** The OCI error code for an error with a status (an OciError, or a core domain error through its table status). */
function ociCodeOf(status: number, code: string | undefined): { status: number; code: string } {
  if (code && OCI_CODES.has(code)) return { status, code };
  if (code === 'CHECKSUM_MISMATCH') return { status: 400, code: 'DIGEST_INVALID' };
  // issue 21: over a storage quota, as registries with quotas answer (Harbor: 403 DENIED).
  if (code === 'QUOTA_EXCEEDED') return { status: 403, code: 'DENIED' };
  const byStatus: Record<number, string> = {
    400: 'UNSUPPORTED',
    401: 'UNAUTHORIZED',
    403: 'DENIED',
    404: 'NAME_UNKNOWN',
    405: 'UNSUPPORTED',
    409: 'DENIED',
    413: 'SIZE_INVALID',
    416: 'BLOB_UPLOAD_INVALID',
    429: 'TOOMANYREQUESTS',
  };
  return { status, code: byStatus[status] ?? 'UNKNOWN' };
}

/**
 * The `WWW-Authenticate` challenge of a 401: Basic on the token endpoint, elsewhere the token realm,
 * scoped to the image the request named (`imageNameOf`: the `{name}` of a `/v2/` tail, if any).
 */
function challenge(
  request: FastifyRequest,
  reply: FastifyReply,
  imageNameOf: (tail: string) => string | null,
) {
  const tail = ((request.params as { '*'?: string })['*'] ?? '').replace(/^\/+/, '');
  const base = baseUrlOf(request);
  if (tail === 'token') {
    reply.header('www-authenticate', 'Basic realm="Granary"');
    return;
  }
  const name = imageNameOf(tail);
  const action = request.method === 'GET' || request.method === 'HEAD' ? 'pull' : 'pull,push';
  const scope = name ? `,scope="repository:${name}:${action}"` : '';
  reply.header('www-authenticate', `Bearer realm="${base}/v2/token",service="${request.host}"${scope}`);
}

/** The registry's error handler: every error is `{errors: [{code, message, detail}]}` with the OCI code for its status. */
export function registryErrorHandler(imageNameOf: (tail: string) => string | null) {
  return async (error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    // No space left → 507, the database unavailable → 503 with Retry-After: the core's mapping (issue 12 §10, §12).
    const mapped = infrastructureError(error, request.id) ?? error;
    const e = mapped as {
      status?: number;
      statusCode?: number;
      code?: string;
      message?: string;
      detail?: unknown;
      headers?: Record<string, string>;
    };
    // The status the error was written with: a core domain error's (the one table), an OciError's own.
    const own = httpStatusOf(mapped) ?? e.status;
    const raw = own ?? e.statusCode ?? 500;
    const { status, code } = ociCodeOf(raw >= 400 && raw < 600 ? raw : 500, own ? e.code : undefined);
    if (status >= 500) request.log.error({ err: error }, 'registry request failed');
    // A server error written for the client (it carries its own status) keeps its message.
    const message =
      status >= 500 && own === undefined
        ? `Internal server error (request ${request.id})`
        : (e.message ?? code);
    if (e.headers) reply.headers(e.headers);
    if (status === 401) challenge(request, reply, imageNameOf);
    if (status === 416 && (e.detail as { range?: string })?.range)
      reply.header('range', (e.detail as { range: string }).range);
    return reply
      .code(status)
      .header('docker-distribution-api-version', 'registry/2.0')
      .type('application/json; charset=utf-8')
      .send({ errors: [{ code, message, detail: e.detail ?? null }] });
  };
}
