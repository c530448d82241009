import { ErrorCode } from '@granary/contracts';
import type { z } from 'zod';

export interface DomainErrorOptions {
  /** Headers that belong to this error's answer, e.g. `Retry-After` on a lockout. */
  headers?: Record<string, string>;
  /** Facts about the error for whoever renders it (not part of the core's envelope). */
  details?: unknown;
  cause?: unknown;
}

/**
 * Domain errors: services throw these with a stable code (one of the contracts' `ErrorCode`) and a
 * message. They know nothing of HTTP: `platform/http/error-status.ts` maps each class to its status
 * in one table, and one handler turns them into the client's answer (the REST envelope, or a format's
 * own shape). A module's own error extends one of the classes below and so inherits its status.
 */
export abstract class DomainError extends Error {
  /** Headers that belong to this error's answer, e.g. `Retry-After` on a lockout. */
  headers?: Record<string, string>;
  details?: unknown;
  constructor(
    readonly code: ErrorCode,
    message: string,
    options: DomainErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    if (options.headers) this.headers = options.headers;
    if (options.details !== undefined) this.details = options.details;
  }
}

/** The request's input is not acceptable (a name, a path, a setting). */
export class InvalidError extends DomainError {
  constructor(message: string, code: ErrorCode = ErrorCode.Invalid, options?: DomainErrorOptions) {
    super(code, message, options);
  }
}
/** No one is signed in, or the credentials are wrong. */
export class UnauthorizedError extends DomainError {
  constructor(
    message = 'Authentication is required',
    code: ErrorCode = ErrorCode.Unauthorized,
    options?: DomainErrorOptions,
  ) {
    super(code, message, options);
  }
}
/** The caller is known but may not do this. */
export class ForbiddenError extends DomainError {
  constructor(
    message = 'You do not have permission to do this',
    code: ErrorCode = ErrorCode.Forbidden,
    options?: DomainErrorOptions,
  ) {
    super(code, message, options);
  }
}
export class NotFoundError extends DomainError {
  constructor(message = 'Not found', code: ErrorCode = ErrorCode.NotFound, options?: DomainErrorOptions) {
    super(code, message, options);
  }
}
/** The operation does not apply to this kind of thing (a deploy to a remote repository). */
export class NotSupportedError extends DomainError {
  constructor(message: string, code: ErrorCode = ErrorCode.MethodNotAllowed, options?: DomainErrorOptions) {
    super(code, message, options);
  }
}
/** The client was too slow (an upload below the minimum rate). */
export class TimedOutError extends DomainError {
  constructor(message: string, code: ErrorCode = ErrorCode.RequestTimeout, options?: DomainErrorOptions) {
    super(code, message, options);
  }
}
/** The change conflicts with what is stored (a name taken, a file already there). */
export class ConflictError extends DomainError {
  constructor(message: string, code: ErrorCode = ErrorCode.Conflict, options?: DomainErrorOptions) {
    super(code, message, options);
  }
}
/** The input is over a size limit. */
export class TooLargeError extends DomainError {
  constructor(message: string, code: ErrorCode = ErrorCode.PayloadTooLarge, options?: DomainErrorOptions) {
    super(code, message, options);
  }
}
/** The input is of a type the server does not take (an image format). */
export class UnsupportedTypeError extends DomainError {
  constructor(
    message: string,
    code: ErrorCode = ErrorCode.UnsupportedMediaType,
    options?: DomainErrorOptions,
  ) {
    super(code, message, options);
  }
}
/** A part of something asked for that lies outside it (a byte range past the end of a file). */
export class OutOfRangeError extends DomainError {
  constructor(
    message: string,
    code: ErrorCode = ErrorCode.RangeNotSatisfiable,
    options?: DomainErrorOptions,
  ) {
    super(code, message, options);
  }
}
/** Too many attempts or too much at once: try again later (`Retry-After` in headers when known). */
export class RateLimitedError extends DomainError {
  constructor(message: string, code: ErrorCode = ErrorCode.TooManyRequests, options?: DomainErrorOptions) {
    super(code, message, options);
  }
}
/** Stored content that is missing or damaged: the server's fault, reported with its own message. */
export class ContentDamagedError extends DomainError {
  constructor(message: string, code: ErrorCode = ErrorCode.ContentDamaged, options?: DomainErrorOptions) {
    super(code, message, options);
  }
}
/** A server this one depends on (a remote repository's upstream, the mail server) failed. */
export class UpstreamError extends DomainError {
  constructor(message: string, code: ErrorCode = ErrorCode.UpstreamFailed, options?: DomainErrorOptions) {
    super(code, message, options);
  }
}
/** The service cannot answer now (the database unreachable): try again later. */
export class UnavailableError extends DomainError {
  constructor(message: string, code: ErrorCode = ErrorCode.Unavailable, options?: DomainErrorOptions) {
    super(code, message, options);
  }
}
/** No space left to store what was sent. */
export class InsufficientStorageError extends DomainError {
  constructor(
    message: string,
    code: ErrorCode = ErrorCode.InsufficientStorage,
    options?: DomainErrorOptions,
  ) {
    super(code, message, options);
  }
}

/** The issues of a failed zod parse as `field: message`, the field named by `prefix` and the issue's path. */
export function describeIssues(issues: readonly z.core.$ZodIssue[], prefix = ''): string {
  return issues
    .map((issue) => {
      const where = [prefix, ...issue.path.map(String)].filter((p) => p !== '').join('.');
      return where ? `${where}: ${issue.message}` : issue.message;
    })
    .join('; ');
}

/**
 * A value a service validates itself (a name from the path, a setting): parsed by `schema`, or an
 * `InvalidError` naming `field`, never a bare `ZodError`.
 */
export function validField<S extends z.ZodType>(field: string, schema: S, value: unknown): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new InvalidError(describeIssues(parsed.error.issues, field));
  return parsed.data;
}
