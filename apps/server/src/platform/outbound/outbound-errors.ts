/**
 * An outbound request was refused before any connection was made to the target: the URL is not
 * http(s), or the target address is loopback, private, link-local, … and the allow-list
 * (`GRANARY_OUTBOUND_ALLOWLIST`) does not name it.
 */
export class OutboundBlockedError extends Error {
  override readonly name = 'OutboundBlockedError';
  readonly code = 'OUTBOUND_BLOCKED';
  readonly host: string;
  readonly address?: string;

  constructor(message: string, details: { host: string; address?: string; cause?: unknown }) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.host = details.host;
    if (details.address !== undefined) this.address = details.address;
  }
}

/** A redirect could not be followed: too many hops, a bad Location, or a streamed body to resend. */
export class OutboundRedirectError extends Error {
  override readonly name = 'OutboundRedirectError';
  readonly code = 'OUTBOUND_REDIRECT';
  readonly url: string;

  constructor(message: string, url: string) {
    super(message);
    this.url = url;
  }
}

/** The OutboundBlockedError somewhere in an error's `cause` chain (undici wraps connect errors). */
export function findBlockedError(err: unknown): OutboundBlockedError | undefined {
  let current: unknown = err;
  for (let depth = 0; current != null && depth < 8; depth++) {
    if (current instanceof OutboundBlockedError) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
