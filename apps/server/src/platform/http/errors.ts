import { ErrorCode } from '@granary/contracts';

/**
 * Domain errors: services throw these with a stable code; one handler turns them into HTTP
 * (the console/REST envelope, or a format's own shape).
 */
export class DomainError extends Error {
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
