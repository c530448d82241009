import { ErrorCode } from '@granary/contracts';
import { describe, expect, it } from 'vitest';
import { ArchiveError, ArchiveLimitError } from '../archives/bounded-archive.ts';
import * as errors from '../errors.ts';
import { HTTP_STATUS_OF_ERROR, httpStatusOf } from './error-status.ts';
import { UploadTooSlowError } from './upload-guard.ts';

/** Every concrete domain error class `platform/errors.ts` exports. */
const domainErrorClasses = Object.entries(errors as Record<string, unknown>).filter(
  (entry): entry is [string, abstract new (...args: never[]) => errors.DomainError] =>
    typeof entry[1] === 'function' && entry[1].prototype instanceof errors.DomainError,
);

describe('issue 13 §6: domain errors are plain, mapped to HTTP in one table', () => {
  it('issue 13 §6: the table gives every domain error class of platform/errors its own status, and lists nothing else', () => {
    expect(domainErrorClasses.length).toBeGreaterThanOrEqual(15);
    const unmapped = domainErrorClasses
      .filter(([, cls]) => !HTTP_STATUS_OF_ERROR.has(cls))
      .map(([name]) => name);
    expect(unmapped).toEqual([]);
    expect(HTTP_STATUS_OF_ERROR.size).toBe(domainErrorClasses.length);
    for (const status of HTTP_STATUS_OF_ERROR.values()) {
      expect(status).toBeGreaterThanOrEqual(400);
      expect(status).toBeLessThan(600);
    }
  });

  it('issue 13 §6: a domain error carries a code, a message and headers, but no HTTP status', () => {
    const error = new errors.RateLimitedError('slow down', undefined, { headers: { 'retry-after': '5' } });
    expect(error).toMatchObject({ code: ErrorCode.TooManyRequests, message: 'slow down' });
    expect(error.headers).toEqual({ 'retry-after': '5' });
    expect('status' in error).toBe(false);
    expect('statusCode' in error).toBe(false);
  });

  it('issue 13 §6: the statuses clients have always seen, a module error answering as its nearest listed ancestor', () => {
    expect(httpStatusOf(new errors.InvalidError('bad'))).toBe(400);
    expect(httpStatusOf(new errors.UnauthorizedError())).toBe(401);
    expect(httpStatusOf(new errors.ForbiddenError())).toBe(403);
    expect(httpStatusOf(new errors.NotFoundError())).toBe(404);
    expect(httpStatusOf(new errors.NotSupportedError('no'))).toBe(405);
    expect(httpStatusOf(new errors.ConflictError('taken'))).toBe(409);
    expect(httpStatusOf(new errors.RateLimitedError('later'))).toBe(429);
    expect(httpStatusOf(new errors.UpstreamError('down'))).toBe(502);
    expect(httpStatusOf(new errors.InsufficientStorageError('full'))).toBe(507);
    // errors declared elsewhere (the platform, modules) keep their statuses through their base class
    expect(
      httpStatusOf(new UploadTooSlowError(1, { minBytesPerSec: 10, windowMs: 1000, maxPerAddress: 0 })),
    ).toBe(408);
    expect(httpStatusOf(new ArchiveLimitError('too big'))).toBe(400);
    expect(httpStatusOf(new ArchiveError('not a tar'))).toBe(400);
  });

  it('issue 13 §6: anything that is not a domain error has no table status', () => {
    expect(httpStatusOf(new Error('boom'))).toBeUndefined();
    expect(httpStatusOf(Object.assign(new Error('upstream'), { status: 502 }))).toBeUndefined();
    expect(httpStatusOf(undefined)).toBeUndefined();
  });
});
