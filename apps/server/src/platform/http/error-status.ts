import {
  ConflictError,
  ContentDamagedError,
  DomainError,
  ForbiddenError,
  InsufficientStorageError,
  InvalidError,
  NotFoundError,
  NotSupportedError,
  OutOfRangeError,
  RateLimitedError,
  TimedOutError,
  TooLargeError,
  UnauthorizedError,
  UnavailableError,
  UnsupportedTypeError,
  UpstreamError,
} from '../errors.ts';

type DomainErrorClass = abstract new (...args: never[]) => DomainError;

/**
 * The one place domain errors become HTTP: each class of `platform/errors.ts` and its status. A
 * module's own error (e.g. `LockedOutError extends RateLimitedError`) answers as its nearest listed
 * ancestor.
 */
export const HTTP_STATUS_OF_ERROR: ReadonlyMap<DomainErrorClass, number> = new Map<DomainErrorClass, number>([
  [InvalidError, 400],
  [UnauthorizedError, 401],
  [ForbiddenError, 403],
  [NotFoundError, 404],
  [NotSupportedError, 405],
  [TimedOutError, 408],
  [ConflictError, 409],
  [TooLargeError, 413],
  [UnsupportedTypeError, 415],
  [OutOfRangeError, 416],
  [RateLimitedError, 429],
  [ContentDamagedError, 500],
  [UpstreamError, 502],
  [UnavailableError, 503],
  [InsufficientStorageError, 507],
]);

/** What a domain error of a class the table does not know answers (none should). */
const UNMAPPED_STATUS = 500;

/**
 * The HTTP status of a domain error (from `HTTP_STATUS_OF_ERROR`, through its class's ancestors);
 * undefined for anything that is not a domain error.
 */
export function httpStatusOf(error: DomainError): number;
export function httpStatusOf(error: unknown): number | undefined;
export function httpStatusOf(error: unknown): number | undefined {
  if (!(error instanceof DomainError)) return undefined;
  for (
    let proto: object | null = Object.getPrototypeOf(error);
    proto !== null && proto !== DomainError.prototype;
    proto = Object.getPrototypeOf(proto)
  ) {
    const status = HTTP_STATUS_OF_ERROR.get((proto as { constructor: DomainErrorClass }).constructor);
    if (status !== undefined) return status;
  }
  return UNMAPPED_STATUS;
}
