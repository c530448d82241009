import { z } from 'zod';
import { AccessErrorCode } from './access.ts';

/**
 * Stable error codes the server answers with in its `{errors: [...]}` envelope (and that format clients
 * see as the core's code); clients switch on these, never on messages. Every code a server domain error
 * carries is one of these (the server types it so). A format's own client protocol codes (OCI
 * `MANIFEST_UNKNOWN`, …) are that protocol's and live with the format.
 */
export const ErrorCode = {
  BadRequest: 'BAD_REQUEST',
  Invalid: 'INVALID',
  Unauthorized: 'UNAUTHORIZED',
  Forbidden: 'FORBIDDEN',
  NotFound: 'NOT_FOUND',
  MethodNotAllowed: 'METHOD_NOT_ALLOWED',
  /** An upload slower than the server's minimum rate was cut (408). */
  RequestTimeout: 'REQUEST_TIMEOUT',
  Conflict: 'CONFLICT',
  PayloadTooLarge: 'PAYLOAD_TOO_LARGE',
  UnsupportedMediaType: 'UNSUPPORTED_MEDIA_TYPE',
  /** A byte range outside the file (416). */
  RangeNotSatisfiable: 'RANGE_NOT_SATISFIABLE',
  TooManyRequests: 'TOO_MANY_REQUESTS',
  Internal: 'INTERNAL',
  /** The stored content of an artifact is missing or damaged (its blob failed verification). */
  ContentDamaged: 'CONTENT_DAMAGED',
  Unavailable: 'UNAVAILABLE',
  /** No space left to store the upload (507). */
  InsufficientStorage: 'INSUFFICIENT_STORAGE',
  /** The upload would take a repository or project over its storage quota (413; OCI: 403 DENIED). */
  QuotaExceeded: 'QUOTA_EXCEEDED',
  /** A path or repository key in a repository URL that is not allowed. */
  InvalidPath: 'INVALID_PATH',
  /** The announced checksums do not match the uploaded bytes: nothing was stored. */
  ChecksumMismatch: 'CHECKSUM_MISMATCH',
  /** Another file is already stored at this path (immutable versions). */
  AlreadyExists: 'ALREADY_EXISTS',
  /** A folder download over the archive limits (files or bytes). */
  ArchiveTooLarge: 'ARCHIVE_TOO_LARGE',
  /** A remote repository's upstream could not be reached, or answered in a way that cannot be served (502). */
  UpstreamFailed: 'UPSTREAM_FAILED',
  /** A remote repository's URL points to an address the outbound allow-list does not permit. */
  UpstreamAddressRefused: 'UPSTREAM_ADDRESS_REFUSED',
  LicenseMalformed: 'LICENSE_MALFORMED',
  LicenseBadSignature: 'LICENSE_BAD_SIGNATURE',
  LicenseNoTrustedKey: 'LICENSE_NO_TRUSTED_KEY',
  LicenseExpired: 'LICENSE_EXPIRED',
  LicenseDisabled: 'LICENSE_DISABLED',
  /** Sign-in, accounts and projects (also as `AccessErrorCode`). */
  ...AccessErrorCode,
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
