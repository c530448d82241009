import { ErrorCode } from '@granary/contracts';
import type { z } from 'zod';

/**
 * Domain errors: services throw these with a stable code; one handler turns them into HTTP
 * (the console/REST envelope, or a format's own shape).
 */
export class DomainError extends Error {
  /** Response headers that belong to this error, e.g. `Retry-After` on a lockout. */
  headers?: Record<string, string>;
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class InvalidError extends DomainError {
  constructor(message: string, code: string = ErrorCode.Invalid) {
    super(400, code, message);
  }
}
export class UnauthorizedError extends DomainError {
  constructor(message = 'Authentication is required', code: string = ErrorCode.Unauthorized) {
    super(401, code, message);
  }
}
export class ForbiddenError extends DomainError {
  constructor(message = 'You do not have permission to do this', code: string = ErrorCode.Forbidden) {
    super(403, code, message);
  }
}
export class NotFoundError extends DomainError {
  constructor(message = 'Not found', code: string = ErrorCode.NotFound) {
    super(404, code, message);
  }
}
export class ConflictError extends DomainError {
  constructor(message: string, code: string = ErrorCode.Conflict) {
    super(409, code, message);
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
 * A value a service validates itself (a name from the path, a setting): parsed by `schema`, or a 400
 * `InvalidError` naming `field`, never a bare `ZodError`.
 */
export function validField<S extends z.ZodType>(field: string, schema: S, value: unknown): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new InvalidError(describeIssues(parsed.error.issues, field));
  return parsed.data;
}
