import { describe, expect, it } from 'vitest';
import { DatabaseUnavailableError } from '../db/index.ts';
import { ConflictError, DomainError } from '../errors.ts';
import { httpStatusOf } from './error-status.ts';
import { infrastructureError, isOutOfSpace } from './infrastructure-errors.ts';

const errno = (code: string) => Object.assign(new Error(`${code}: failed`), { code });

describe('issue 12 §10, §12: faults of the machinery become 503 and 507', () => {
  it('issue 12 §12: a full disk, a quota, PostgreSQL disk_full and a full S3-compatible store are all "no space left", wrapped or not', () => {
    expect(isOutOfSpace(errno('ENOSPC'))).toBe(true);
    expect(isOutOfSpace(errno('EDQUOT'))).toBe(true);
    expect(isOutOfSpace(Object.assign(new Error('could not extend file'), { code: '53100' }))).toBe(true);
    expect(
      isOutOfSpace(Object.assign(new Error('XMinioStorageFull'), { $metadata: { httpStatusCode: 507 } })),
    ).toBe(true);
    expect(isOutOfSpace(new Error('Failed query: insert …', { cause: errno('ENOSPC') }))).toBe(true);
    expect(isOutOfSpace(errno('EACCES'))).toBe(false);
    expect(isOutOfSpace(new Error('boom'))).toBe(false);

    const full = infrastructureError(errno('ENOSPC'), 'req-1');
    expect(full).toBeInstanceOf(DomainError);
    expect(httpStatusOf(full)).toBe(507);
    expect(full).toMatchObject({
      code: 'INSUFFICIENT_STORAGE',
      message: 'Insufficient storage: the server has no space left to store this (request req-1)',
    });
  });

  it('issue 12 §10: the database unavailable (even wrapped by the ORM) is 503 with Retry-After; anything else is left alone', () => {
    const wrapped = new Error('Failed query: select 1', {
      cause: new DatabaseUnavailableError(new Error('Query read timeout')),
    });
    const mapped = infrastructureError(wrapped, 'req-2');
    expect(httpStatusOf(mapped)).toBe(503);
    expect(mapped).toMatchObject({ code: 'UNAVAILABLE' });
    expect(mapped?.message).toBe('The database is unavailable; retry in a few seconds (request req-2)');
    expect(mapped?.headers).toEqual({ 'retry-after': '5' });
    // A connection error from elsewhere (an upstream, a webhook) is not the database's.
    expect(infrastructureError(errno('ECONNREFUSED'), 'req-3')).toBeUndefined();
    expect(infrastructureError(new ConflictError('no'), 'req-4')).toBeUndefined();
  });
});
