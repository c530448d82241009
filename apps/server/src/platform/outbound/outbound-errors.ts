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

/**
 * The forward proxy asked for could not be used: no proxy of that key is configured, or the proxy
 * refused the request (407: its credentials are wrong).
 */
export class OutboundProxyError extends Error {
  override readonly name = 'OutboundProxyError';
  readonly code = 'OUTBOUND_PROXY';
  readonly proxy: string;
  readonly status?: number;

  constructor(message: string, proxy: string, cause?: unknown, status?: number) {
    super(message, cause === undefined ? undefined : { cause });
    this.proxy = proxy;
    if (status !== undefined) this.status = status;
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
