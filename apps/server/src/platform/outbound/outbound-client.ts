import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Agent, Dispatcher, Headers, ProxyAgent, Response } from 'undici';
import { createAddressPolicy, normalizeHostName, parseAddress } from './address-policy.ts';
import { createGuardedLookup, resolveAllowed } from './guarded-lookup.ts';
import { createNoProxyMatcher } from './no-proxy.ts';
import {
  findBlockedError,
  OutboundBlockedError,
  OutboundProxyError,
  OutboundRedirectError,
} from './outbound-errors.ts';

/** One forward proxy as the client dials it. */
export interface ProxyTarget {
  /** Names it in errors and logs: the proxy's key, or `GRANARY_OUTBOUND_PROXY` for the boot default. */
  key: string;
  /** `http://host:port` (no credentials in it). */
  url: string;
  /** Sent as Basic `Proxy-Authorization` (NTLM is not supported). */
  username?: string;
  password?: string;
  /** Hosts that bypass this proxy (NO_PROXY habits, see no-proxy.ts). */
  noProxy?: string[];
  /**
   * Hosts a redirect may lead to with the request's `Authorization` kept (Artifactory's "redirecting
   * hosts": the credentials are reused for requests redirected to them); any other cross-origin
   * redirect drops it.
   */
  redirectToHosts?: string[];
}

/** What the proxies configured at run time are now (the proxies module provides it; it may cache briefly). */
export interface ProxySnapshot {
  byKey: ReadonlyMap<string, ProxyTarget>;
  /** The proxy marked default; absent: the boot default (`GRANARY_OUTBOUND_PROXY`), if any. */
  defaultKey?: string;
}
export interface ProxyResolver {
  current(): Promise<ProxySnapshot>;
}

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
  /**
   * Which forward proxy: absent or `''` — the default (the proxy marked default, else
   * `GRANARY_OUTBOUND_PROXY`, else none); a key — that configured proxy (OutboundProxyError when
   * there is none of that key); `null` — none, straight to the target.
   */
  proxy?: string | null;
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
  /** Installs where configured proxies come from (the proxies module, at boot); changes apply to the next request. */
  setProxyResolver(resolver: ProxyResolver): void;
  /** Whether a proxy of that key is configured now. */
  hasProxy(key: string): Promise<boolean>;
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
const require = createRequire(import.meta.url);
let undiciLib: typeof import('undici') | undefined;
/** undici, loaded on the first outbound request, not at start (issue 24, idle memory: 5 MB of heap). */
const undici = (): typeof import('undici') => (undiciLib ??= require('undici') as typeof import('undici'));

export function createOutboundClient(opts: OutboundOptions): OutboundClient {
  const policy = createAddressPolicy(opts.allowlist);
  const connectTimeout = opts.connectTimeoutMs ?? 10_000;
  const headersTimeout = opts.headersTimeoutMs ?? 30_000;
  const bodyTimeout = opts.bodyTimeoutMs ?? 60_000;
  const maxRedirects = opts.maxRedirects ?? 5;
  const userAgent = opts.userAgent ?? 'Granary';

  // Direct connections: the address check runs inside the socket's DNS lookup (see guarded-lookup.ts).
  let directAgent: Agent | undefined;
  const direct = (): Agent =>
    (directAgent ??= new (undici().Agent)({
      connect: { timeout: connectTimeout, lookup: createGuardedLookup(policy) },
      headersTimeout,
      bodyTimeout,
    }));

  // Through a proxy: the proxy itself is not checked (the admin chose it); targets are
  // checked in `dispatcherFor` before the request is handed to it. One ProxyAgent per proxy
  // configuration (url + credentials + no-proxy list); one no longer configured is closed (after
  // its requests in flight end).
  const bootProxy: ProxyTarget | undefined = opts.proxy
    ? { key: 'GRANARY_OUTBOUND_PROXY', url: opts.proxy.url, noProxy: opts.proxy.noProxy }
    : undefined;
  interface ProxyEntry {
    target: ProxyTarget;
    agent: ProxyAgent;
    bypasses: (host: string) => boolean;
    redirectHosts: Set<string>;
  }
  const agents = new Map<string, ProxyEntry>();
  let resolver: ProxyResolver | undefined;
  let lastSnapshot: ProxySnapshot | undefined;

  function fingerprint(t: ProxyTarget): string {
    const secret = t.password === undefined ? '' : createHash('sha256').update(t.password).digest('hex');
    return JSON.stringify([t.url, t.username ?? '', secret, t.noProxy ?? [], t.redirectToHosts ?? []]);
  }

  function entryFor(target: ProxyTarget): ProxyEntry {
    const id = fingerprint(target);
    let entry = agents.get(id);
    if (!entry) {
      const token =
        target.username !== undefined && target.username !== ''
          ? `Basic ${Buffer.from(`${target.username}:${target.password ?? ''}`).toString('base64')}`
          : undefined;
      entry = {
        target,
        agent: new (undici().ProxyAgent)({
          uri: target.url,
          ...(token ? { token } : {}),
          // Plain http targets go as absolute-URI requests; https targets through a CONNECT tunnel.
          proxyTunnel: false,
          headersTimeout,
          bodyTimeout,
          proxyTls: { timeout: connectTimeout },
          requestTls: { timeout: connectTimeout },
          // The non-tunnelled path builds its pool with only `connect`; keep our timeouts there too.
          factory: (origin, options) =>
            new (undici().Pool)(origin, { headersTimeout, bodyTimeout, ...options }),
        }),
        bypasses: createNoProxyMatcher(target.noProxy ?? []),
        redirectHosts: new Set((target.redirectToHosts ?? []).map(normalizeHostName)),
      };
      agents.set(id, entry);
    }
    return entry;
  }

  /** Closes the agents of proxies a new snapshot no longer has (requests in flight finish first). */
  function prune(snapshot: ProxySnapshot): void {
    if (snapshot === lastSnapshot) return;
    lastSnapshot = snapshot;
    const live = new Set([...snapshot.byKey.values()].map(fingerprint));
    if (bootProxy) live.add(fingerprint(bootProxy));
    for (const [id, entry] of agents)
      if (!live.has(id)) {
        agents.delete(id);
        entry.agent.close().catch(() => {});
      }
  }

  async function proxyFor(choice: string | null | undefined): Promise<ProxyTarget | undefined> {
    if (choice === null) return undefined;
    const snapshot = resolver ? await resolver.current() : undefined;
    if (snapshot) prune(snapshot);
    if (choice === undefined || choice === '') {
      const byDefault = snapshot?.defaultKey ? snapshot.byKey.get(snapshot.defaultKey) : undefined;
      return byDefault ?? bootProxy;
    }
    const named = snapshot?.byKey.get(choice);
    if (!named) throw new OutboundProxyError(`No proxy named '${choice}' is configured`, choice);
    return named;
  }

  async function dispatcherFor(url: URL, proxyTarget: ProxyTarget | undefined): Promise<Dispatcher> {
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
    if (!proxyTarget) return direct();
    const proxy = entryFor(proxyTarget);
    if (proxy.bypasses(host)) return direct();
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
    return proxy.agent;
  }

  return {
    async fetch(input, init = {}) {
      let url = new URL(String(input));
      let method = (init.method ?? 'GET').toUpperCase();
      const headers: Record<string, string> = { 'user-agent': userAgent };
      for (const [name, value] of Object.entries(init.headers ?? {})) headers[name.toLowerCase()] = value;
      let body = init.body;
      const proxyTarget = await proxyFor(init.proxy);

      for (let hop = 0; ; hop++) {
        const dispatcher = await dispatcherFor(url, proxyTarget);
        const viaProxy = dispatcher !== directAgent;
        init.signal?.throwIfAborted();
        const streamed = body !== undefined && typeof body !== 'string' && !(body instanceof Uint8Array);
        let res: Response;
        try {
          res = await undici().fetch(url, {
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
          const blocked = findBlockedError(err);
          if (blocked) throw blocked;
          // The proxy refused: undici says "Proxy Authentication Required (407)" (http targets) or
          // "Proxy response (407) !== 200" (a CONNECT tunnel, https targets).
          const refused = viaProxy ? /Proxy [^()|]*\((\d{3})\)/.exec(errorText(err)) : null;
          if (refused && proxyTarget) throw proxyRefused(proxyTarget, Number(refused[1]), err);
          throw err;
        }
        if (res.status === 407 && viaProxy && proxyTarget) {
          await res.body?.cancel();
          throw proxyRefused(proxyTarget, 407);
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
          const keepsAuth =
            proxyTarget !== undefined &&
            entryFor(proxyTarget).redirectHosts.has(normalizeHostName(next.hostname));
          for (const name of CROSS_ORIGIN_STRIPPED)
            if (!(keepsAuth && name === 'authorization')) delete headers[name];
        }
        url = next;
      }
    },

    setProxyResolver(r) {
      resolver = r;
    },

    async hasProxy(key) {
      return resolver ? (await resolver.current()).byKey.has(key) : false;
    },

    async close() {
      const open = [...agents.values()].map((e) => e.agent.close());
      agents.clear();
      await Promise.all([...(directAgent ? [directAgent.close()] : []), ...open]);
    },
  };
}

function proxyRefused(target: ProxyTarget, status: number, cause?: unknown): OutboundProxyError {
  const why =
    status === 407
      ? '407 Proxy Authentication Required: check the proxy username and password'
      : `it answered ${status}`;
  return new OutboundProxyError(
    `The proxy '${target.key}' refused the request: ${why}`,
    target.key,
    cause,
    status,
  );
}

function errorText(err: unknown): string {
  const parts: string[] = [];
  let current: unknown = err;
  for (let depth = 0; current != null && depth < 8; depth++) {
    parts.push(String((current as Error).message ?? current));
    current = (current as { cause?: unknown }).cause;
  }
  return parts.join(' | ');
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
