import { type ApiErrorItem, ErrorCode, errorEnvelopeSchema } from '@granary/contracts';

/** Codes the client itself raises when there is no server answer to read. */
export const ClientErrorCode = {
  /** The request never got an HTTP answer (server down, network closed). */
  Network: 'NETWORK_ERROR',
  /** The server answered 2xx, but not with the shape the contract promises. */
  InvalidResponse: 'INVALID_RESPONSE',
} as const;
export type ClientErrorCode = (typeof ClientErrorCode)[keyof typeof ClientErrorCode];

/**
 * A failed console API call. `status` is the HTTP status (0 when there was no answer), `code` and `message`
 * come from the first entry of the server's `{errors: [{status, code, message}]}` envelope, `errors` holds
 * every entry.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly status: number;
  readonly code: ErrorCode | ClientErrorCode | (string & {});
  readonly errors: readonly ApiErrorItem[];

  constructor(errors: readonly [ApiErrorItem, ...ApiErrorItem[]], options?: { cause?: unknown }) {
    super(errors.map((error) => error.message).join('; '), options);
    this.status = errors[0].status;
    this.code = errors[0].code;
    this.errors = errors;
  }
}

export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError;
}

const codeByStatus: Readonly<Record<number, ErrorCode>> = {
  400: ErrorCode.BadRequest,
  401: ErrorCode.Unauthorized,
  403: ErrorCode.Forbidden,
  404: ErrorCode.NotFound,
  405: ErrorCode.MethodNotAllowed,
  409: ErrorCode.Conflict,
  413: ErrorCode.PayloadTooLarge,
  415: ErrorCode.UnsupportedMediaType,
  422: ErrorCode.Invalid,
  429: ErrorCode.TooManyRequests,
  500: ErrorCode.Internal,
  502: ErrorCode.Unavailable,
  503: ErrorCode.Unavailable,
  504: ErrorCode.Unavailable,
};

/** The stable code for an HTTP status when the answer carries none. */
export function codeForStatus(status: number): ErrorCode {
  return codeByStatus[status] ?? (status >= 500 ? ErrorCode.Internal : ErrorCode.BadRequest);
}

function nonEmptyString(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

/**
 * Turns a non-2xx answer into an ApiError. The server's envelope is used as is; otherwise the best message
 * available: a JSON `message`/`error` field (Fastify's own errors, proxies), a short plain-text body, or the
 * status line.
 */
export function apiErrorFromResponse(
  status: number,
  statusText: string,
  contentType: string | null,
  bodyText: string,
): ApiError {
  let json: unknown;
  if (bodyText !== '' && (contentType?.includes('json') ?? false)) {
    try {
      json = JSON.parse(bodyText);
    } catch {
      json = undefined;
    }
  }

  const envelope = errorEnvelopeSchema.safeParse(json);
  if (envelope.success) {
    const [first, ...rest] = envelope.data.errors;
    if (first) return new ApiError([first, ...rest]);
  }

  const record = typeof json === 'object' && json !== null ? (json as Record<string, unknown>) : {};
  const isPlainText = contentType?.startsWith('text/plain') ?? false;
  const text = isPlainText && bodyText.length <= 500 ? nonEmptyString(bodyText.trim()) : undefined;
  const message =
    nonEmptyString(record.message) ??
    nonEmptyString(record.error) ??
    text ??
    `Request failed with status ${status}${statusText ? ` ${statusText}` : ''}`;
  const code = nonEmptyString(record.code) ?? codeForStatus(status);
  return new ApiError([{ status, code, message }]);
}
