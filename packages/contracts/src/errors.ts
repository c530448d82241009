import { z } from 'zod';

/** Stable error codes the server answers with; clients switch on these, never on messages. */
export const ErrorCode = {
  BadRequest: 'BAD_REQUEST',
  Invalid: 'INVALID',
  Unauthorized: 'UNAUTHORIZED',
  Forbidden: 'FORBIDDEN',
  NotFound: 'NOT_FOUND',
  MethodNotAllowed: 'METHOD_NOT_ALLOWED',
  Conflict: 'CONFLICT',
  PayloadTooLarge: 'PAYLOAD_TOO_LARGE',
  UnsupportedMediaType: 'UNSUPPORTED_MEDIA_TYPE',
  TooManyRequests: 'TOO_MANY_REQUESTS',
  Internal: 'INTERNAL',
  /** The stored content of an artifact is missing or damaged (its blob failed verification). */
  ContentDamaged: 'CONTENT_DAMAGED',
  Unavailable: 'UNAVAILABLE',
  /** No space left to store the upload (507). */
  InsufficientStorage: 'INSUFFICIENT_STORAGE',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export const apiErrorSchema = z.object({
  status: z.number().int(),
  code: z.string(),
  message: z.string(),
});
export type ApiErrorItem = z.infer<typeof apiErrorSchema>;

/** The one error envelope of the REST and console APIs: `{errors: [{status, code, message}]}`. */
export const errorEnvelopeSchema = z.object({
  errors: z.array(apiErrorSchema).min(1),
});
export type ErrorEnvelope = z.infer<typeof errorEnvelopeSchema>;
