import {
  Agent,
  type Dispatcher,
  type Headers,
  Pool,
  ProxyAgent,
  type Response,
  fetch as undiciFetch,
} from 'undici';
import { createAddressPolicy, normalizeHostName, parseAddress } from './address-policy.ts';
import { createGuardedLookup, resolveAllowed } from './guarded-lookup.ts';
import { createNoProxyMatcher } from './no-proxy.ts';
import { findBlockedError, OutboundBlockedError, OutboundRedirectError } from './outbound-errors.ts';

export interface OutboundOptions {
  /** Hosts (exact names, case-insensitive), IPs and CIDRs from GRANARY_OUTBOUND_ALLOWLIST. */
  allowlist: string[];
  /** A forward proxy, configured by the admin (it may itself be private); `noProxy` hosts go direct. */
  proxy?: { url: string; noProxy?: string[] };
  /** Default 10 s. */
  connectTimeoutMs?: number;
  /** Time to wait for the response headers. Default 30 s. */
  headersTimeoutMs?: number;
  /** Longest silence while reading the body. Default 60 s. */
  bodyTimeoutMs?: number;
  /** Default 5. */
  maxRedirects?: number;
  userAgent?: string;
}

export interface OutboundRequestInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array | NodeJS.ReadableStream;
  signal?: AbortSignal;
  /** `follow` (default) follows redirects, re-checking each hop; `manual` returns the 3xx answer. */
  redirect?: 'follow' | 'manual';
}

export interface OutboundResponse {
  readonly status: number;
  readonly statusText: string;
  readonly ok: boolean;
  readonly headers: Headers;
  readonly body: ReadableStream<Uint8Array> | null;
  /** The final URL, after redirects. */
  readonly url: string;
  readonly redirected: boolean;
  text(): Promise<string>;
  json<T = unknown>(): Promise<T>;
  arrayBuffer(): Promise<ArrayBuffer>;
}

export interface OutboundClient {
  /**
   * Sends one request. Throws OutboundBlockedError, before connecting, when the target (or a
   * redirect's target) is not http(s) or is a non-public address the allow-list does not name.
   */
  fetch(url: string | URL, init?: OutboundRequestInit): Promise<OutboundResponse>;
  close(): Promise<void>;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
// Credentials meant for one origin are not handed to another.
const CROSS_ORIGIN_STRIPPED = ['authorization', 'cookie', 'proxy-authorization'];
const BODY_HEADERS = [
  'content-type',
  'content-length',
  'content-encoding',
  'content-language',
  'content-location',
];

/** The one HTTP client for requests leaving Granary (remote repositories, webhooks, integrations). */
export function createOutboundClient(opts: OutboundOptions): OutboundClient {
  const policy = createAddressPolicy(opts.allowlist);
  const connectTimeout = opts.connectTimeoutMs ?? 10_000;
  const headersTimeout = opts.headersTimeoutMs ?? 30_000;
  const bodyTimeout = opts.bodyTimeoutMs ?? 60_000;
  const maxRedirects = opts.maxRedirects ?? 5;
  const userAgent = opts.userAgent ?? 'Granary';

  // Direct connections: the address check runs inside the socket's DNS lookup (see guarded-lookup.ts).
  const direct = new Agent({
    connect: { timeout: connectTimeout, lookup: createGuardedLookup(policy) },
    headersTimeout,
    bodyTimeout,
  });

  // Through the proxy: the proxy itself is not checked (the admin chose it); targets are
  // checked in `dispatcherFor` before the request is handed to it.
  const proxy = opts.proxy
    ? new ProxyAgent({
        uri: opts.proxy.url,
        // Plain http targets go as absolute-URI requests; https targets through a CONNECT tunnel.
        proxyTunnel: false,
        headersTimeout,
        bodyTimeout,
        proxyTls: { timeout: connectTimeout },
        requestTls: { timeout: connectTimeout },
        // The non-tunnelled path builds its pool with only `connect`; keep our timeouts there too.
        factory: (origin, options) => new Pool(origin, { headersTimeout, bodyTimeout, ...options }),
      })
    : undefined;
  const bypassesProxy = createNoProxyMatcher(opts.proxy?.noProxy ?? []);

  async function dispatcherFor(url: URL): Promise<Dispatcher> {
    const host = normalizeHostName(url.hostname);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new OutboundBlockedError(`Outbound request to ${url.protocol} URL refused: only http and https`, {
        host,
      });
    }
    // net.connect skips `lookup` for IP literals, so they are checked here.
    if (parseAddress(host) && !policy.isAllowed(host)) {
      throw new OutboundBlockedError(
        `Outbound request to ${host} refused: not a public address and not in GRANARY_OUTBOUND_ALLOWLIST`,
        { host, address: host },
      );
    }
    if (!proxy || bypassesProxy(host)) return direct;
    if (!parseAddress(host) && !policy.namesHost(host)) {
      // The proxy resolves the name again when it connects, so an answer that changes between
      // this check and then (DNS rebinding) is not caught on this path: the proxy's own rules
      // are the last line there.
      try {
        await resolveAllowed(policy, host);
      } catch (err) {
        if (err instanceof OutboundBlockedError) throw err;
        throw new OutboundBlockedError(
          `Outbound request to ${host} refused: the name could not be resolved to check it ` +
            '(name the host in GRANARY_OUTBOUND_ALLOWLIST to let the proxy resolve it)',
          { host, cause: err },
        );
      }
    }
    return proxy;
  }

  return {
    async fetch(input, init = {}) {
      let url = new URL(String(input));
      let method = (init.method ?? 'GET').toUpperCase();
      const headers: Record<string, string> = { 'user-agent': userAgent };
      for (const [name, value] of Object.entries(init.headers ?? {})) headers[name.toLowerCase()] = value;
      let body = init.body;

      for (let hop = 0; ; hop++) {
        const dispatcher = await dispatcherFor(url);
        init.signal?.throwIfAborted();
        const streamed = body !== undefined && typeof body !== 'string' && !(body instanceof Uint8Array);
        let res: Response;
        try {
          res = await undiciFetch(url, {
            method,
            headers,
            body: streamed
              ? toBytes(body as NodeJS.ReadableStream)
              : (body as string | Uint8Array | undefined),
            ...(streamed ? { duplex: 'half' as const } : {}),
            signal: init.signal,
            redirect: 'manual',
            dispatcher,
          });
        } catch (err) {
          throw findBlockedError(err) ?? err;
        }

        const location = res.headers.get('location');
        if (init.redirect === 'manual' || !REDIRECT_STATUSES.has(res.status) || location === null) {
          return toOutboundResponse(res, url.href, hop > 0);
        }
        await res.body?.cancel();
        if (hop >= maxRedirects) {
          throw new OutboundRedirectError(
            `Too many redirects (more than ${maxRedirects}) from ${url.href}`,
            url.href,
          );
        }
        let next: URL;
        try {
          next = new URL(location, url);
        } catch {
          throw new OutboundRedirectError(
            `Redirect from ${url.href} to an invalid location: ${location}`,
            url.href,
          );
        }

        if (
          (res.status === 303 && method !== 'HEAD') ||
          ((res.status === 301 || res.status === 302) && method === 'POST')
        ) {
          method = 'GET';
          body = undefined;
          for (const name of BODY_HEADERS) delete headers[name];
        } else if (streamed) {
          throw new OutboundRedirectError(`Cannot resend a streamed body to ${next.href}`, url.href);
        }
        if (next.origin !== url.origin) {
          for (const name of CROSS_ORIGIN_STRIPPED) delete headers[name];
        }
        url = next;
      }
    },

    async close() {
      await Promise.all([direct.close(), proxy?.close()]);
    },
  };
}

async function* toBytes(stream: NodeJS.ReadableStream): AsyncGenerator<Uint8Array> {
  for await (const chunk of stream) yield typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
}

function toOutboundResponse(res: Response, url: string, redirected: boolean): OutboundResponse {
  return {
    status: res.status,
    statusText: res.statusText,
    ok: res.ok,
    headers: res.headers,
    body: res.body,
    url,
    redirected,
    text: () => res.text(),
    json: <T>() => res.json() as Promise<T>,
    arrayBuffer: () => res.arrayBuffer(),
  };
}
