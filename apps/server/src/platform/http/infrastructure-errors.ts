import { isDatabaseUnavailable } from '../db/index.ts';
import { DomainError, InsufficientStorageError, UnavailableError } from '../errors.ts';

/** What a client is told to wait before retrying while the database is unavailable. */
export const DATABASE_RETRY_AFTER_SECS = 5;

/** errno codes of a full disk or an exceeded quota. */
const OUT_OF_SPACE_CODES = new Set(['ENOSPC', 'EDQUOT']);
/** PostgreSQL's `disk_full`. */
const DISK_FULL_SQLSTATE = '53100';

function* causes(error: unknown): Generator<Error> {
  for (let e = error, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth += 1) yield e;
}

/**
 * The error, or one it wraps, says there is no space left: a full disk or quota (ENOSPC, EDQUOT)
 * under the blob store or its temp area, PostgreSQL's disk_full, or an S3-compatible store answering
 * 507 (MinIO's XMinioStorageFull).
 */
export function isOutOfSpace(error: unknown): boolean {
  for (const e of causes(error)) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (OUT_OF_SPACE_CODES.has(code) || code === DISK_FULL_SQLSTATE))
      return true;
    if ((e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 507) return true;
  }
  return false;
}

/**
 * Faults of the machinery rather than of the request, as the client should hear them: no space
 * left → 507 Insufficient Storage; the database unreachable or not answering in time → 503 with
 * Retry-After. Undefined for anything else. Every error renderer (REST envelope, npm, OCI, PyPI,
 * Maven) gets the status, code and message as for any domain error.
 */
export function infrastructureError(error: unknown, requestId: string): DomainError | undefined {
  if (error instanceof DomainError) return undefined;
  if (isOutOfSpace(error)) {
    return new InsufficientStorageError(
      `Insufficient storage: the server has no space left to store this (request ${requestId})`,
    );
  }
  if (isDatabaseUnavailable(error)) {
    return new UnavailableError(
      `The database is unavailable; retry in a few seconds (request ${requestId})`,
      undefined,
      { headers: { 'retry-after': String(DATABASE_RETRY_AFTER_SECS) } },
    );
  }
  return undefined;
}
