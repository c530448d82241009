import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { DataChanges } from '../db/index.ts';
import type { Logging } from '../logger/logger.ts';
import type { Metrics } from '../metrics/metrics.ts';
import { countRequest } from '../metrics/request-metrics.ts';
import type { Principal } from './access-control.ts';

/**
 * The in-process response cache of repository reads (issue 24): a client's repeated GET or HEAD of
 * the same small answer under `/repository/` (a Maven `maven-metadata.xml`, a PyPI simple page, an npm
 * packument, a small file) is answered again, byte for byte, before the framework routes it. The
 * routing, hooks, lookups and permission checks it skips cost more than the answer itself.
 *
 * What keeps it right:
 * - The key is the method, the URL and every request header but the request id (the Host, Accept,
 *   Accept-Encoding, conditional headers…), so an answer that depends on any of them is not reused for
 *   another. The credential enters as the access module's salted digest, never in the clear.
 * - An answer is stored only when the framework's own handling of it is done, only for 200 and 304
 *   answers with their body in memory (at most MAX_ENTRY_BYTES; streamed files never), never with a
 *   cookie, a Range or a session cookie involved.
 * - It is void as soon as this node changes anything in the database (DataChanges: every completed
 *   write and commit, whatever the code path) and, for changes made by another node, after TTL_MS.
 *   An answer computed while a change completed is not stored.
 * - The credential is checked again on every use, in the same cache of verified credentials the
 *   authentication hook reads: a revoked token, a disabled user or a changed password ends its answers
 *   at once on this node, and on the others when they hear (LISTEN/NOTIFY).
 * - Per-request effects of the answer (a download counted) are repeated on every use; the request log
 *   line, the request id and the HTTP metrics are written as for any request.
 */
export const TTL_MS = 500;
/** Largest answer kept: documents and small files; larger bodies gain nothing from skipping the framework. */
export const MAX_ENTRY_BYTES = 256 * 1024;
/** Default memory budget of the kept answers. */
export const DEFAULT_BUDGET_BYTES = 16 * 1024 * 1024;

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The request id of a request: the client's `X-Request-Id` when well-formed, else a new one. */
export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

/** What the response cache needs of the access module's cache of verified credentials. */
export interface VerifiedCredentials {
  /** The salted digest the cache keys a credential by. */
  digestOf(credential: string): string;
  /** The principal verified lately for that digest, if any. */
  byDigest(digest: string): Principal | undefined;
}

interface Entry {
  status: number;
  /** Flat header list (name, value, …) without the request id. */
  headers: string[];
  body: Buffer | null;
  expires: number;
  /** Who it was computed for: null for anonymous, else the credential cache's own principal object. */
  principal: Principal | null;
  route: string;
  repoType: string | null;
  effects: (() => void)[];
  bytes: number;
}

/** Where a request the cache could answer next time stands while the framework handles it. */
interface Pending {
  key: string;
  changes: number;
  principal: Principal | null | undefined;
}

const PENDING = Symbol('granary.responseCachePending');
const DIGESTED = Symbol('granary.credentialDigest');
type DigestedSocket = Socket & { [DIGESTED]?: { credential: string; digest: string } };
type PendingRequest = IncomingMessage & { [PENDING]?: Pending };

declare module 'fastify' {
  interface FastifyRequest {
    /** Effects the answer has on each request (a download counted), repeated when the response cache answers again. */
    repeatedEffects: (() => void)[] | null;
  }
}

/** Runs `effect` now, and again each time the response cache answers this request's answer again. */
export function onEveryAnswer(request: FastifyRequest, effect: () => void): void {
  effect();
  if (!(request.raw as PendingRequest)[PENDING]) return;
  if (request.repeatedEffects) request.repeatedEffects.push(effect);
  else request.repeatedEffects = [effect];
}

/** A read the cache could answer, as a module that declines some is shown it. */
export interface CachedRead {
  user: string | undefined;
  method: string;
  url: string;
  /** The repository's package type. */
  repoType: string | null;
}

const SKIPPED_HEADERS = new Set(['x-request-id', 'npm-session']);
const CACHED_STATUS = new Set([200, 304]);

export interface ResponseCacheOptions {
  changes: DataChanges;
  logging: Pick<Logging, 'writeRequest'>;
  metrics: Metrics;
  /** Whether the framework trusts X-Forwarded-For for the client address (then requests that carry one are not answered here). */
  trustProxy: boolean;
  budgetBytes?: number;
  now?: () => number;
}

export class ResponseCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;
  private seenChanges: number;
  private credentials: VerifiedCredentials | null = null;
  private readonly declines: ((read: CachedRead) => boolean)[] = [];
  private readonly budget: number;
  private readonly now: () => number;
  private closing = false;
  hits = 0;

  constructor(private readonly opts: ResponseCacheOptions) {
    this.budget = opts.budgetBytes ?? DEFAULT_BUDGET_BYTES;
    this.now = opts.now ?? Date.now;
    this.seenChanges = opts.changes.value;
  }

  /** Set once the access module exists; until then only anonymous answers are kept. */
  useCredentials(credentials: VerifiedCredentials): void {
    this.credentials = credentials;
  }

  /** The server is closing: the framework answers (503) from now on. */
  close(): void {
    this.closing = true;
    this.clear(this.seenChanges);
  }

  /** A module whose hooks must see some reads (`when` says true) has those go the whole way. */
  decline(when: (read: CachedRead) => boolean): void {
    this.declines.push(when);
  }

  /**
   * Answers `req` from the cache when it can (true), else marks it so its answer may be kept and
   * leaves it to the framework (false).
   */
  serve(req: IncomingMessage, res: ServerResponse): boolean {
    if (this.closing) return false;
    const method = req.method;
    const url = req.url;
    if ((method !== 'GET' && method !== 'HEAD') || !url?.startsWith('/repository/')) return false;
    const headers = req.headers;
    if (headers.cookie !== undefined || headers.range !== undefined) return false;
    if (this.opts.trustProxy && headers['x-forwarded-for'] !== undefined) return false;
    const authorization = headers.authorization;
    let digest = '';
    let principal: Principal | null | undefined = null;
    if (authorization !== undefined) {
      if (!this.credentials) return false;
      // A keep-alive connection sends the same credential request after request: its digest is
      // remembered for the connection's life (as long as the connection's own request holds it).
      const socket = req.socket as DigestedSocket;
      const last = socket[DIGESTED];
      if (last !== undefined && last.credential === authorization) digest = last.digest;
      else {
        digest = this.credentials.digestOf(authorization);
        socket[DIGESTED] = { credential: authorization, digest };
      }
      principal = this.credentials.byDigest(digest);
    }
    let key = `${method} ${url}\n${digest}`;
    const raw = req.rawHeaders;
    for (let i = 0; i < raw.length; i += 2) {
      const name = raw[i]!.toLowerCase();
      if (name === 'authorization' || SKIPPED_HEADERS.has(name)) continue;
      key += `\n${name}:${raw[i + 1]}`;
    }
    const changes = this.opts.changes.value;
    if (changes !== this.seenChanges) this.clear(changes);
    const entry = this.entries.get(key);
    if (
      !entry ||
      entry.expires <= this.now() ||
      (authorization !== undefined && (principal === undefined || principal !== entry.principal))
    ) {
      if (entry) this.drop(key, entry);
      // A caller whose credential is not verified lately is left to the framework, which verifies it.
      (req as PendingRequest)[PENDING] = { key, changes, principal };
      return false;
    }
    const user = entry.principal?.name;
    if (this.declines.length > 0) {
      const read = { user, method, url, repoType: entry.repoType };
      for (const declined of this.declines) if (declined(read)) return false;
    }
    // Least recently used goes first when the budget is full: a use moves the entry to the back.
    this.entries.delete(key);
    this.entries.set(key, entry);
    this.answer(req, res, entry, user);
    return true;
  }

  private answer(req: IncomingMessage, res: ServerResponse, entry: Entry, user: string | undefined): void {
    const started = performance.now();
    const id = requestIdOf(req);
    res.writeHead(entry.status, ['x-request-id', id, ...entry.headers]);
    if (req.method === 'HEAD' || entry.body === null) res.end();
    else res.end(entry.body);
    this.hits += 1;
    for (const effect of entry.effects) effect();
    const seconds = (performance.now() - started) / 1000;
    this.opts.logging.writeRequest({
      reqId: id,
      method: req.method,
      url: req.url,
      status: entry.status,
      ms: Math.round(seconds * 10000) / 10,
      user: user ?? null,
      ip: req.socket.remoteAddress,
      ua: req.headers['user-agent'],
    });
    countRequest(this.opts.metrics, {
      method: req.method!,
      route: entry.route,
      repoType: entry.repoType,
      status: entry.status,
      seconds,
      socket: req.socket,
      headers: req.headers,
    });
  }

  /** After the framework answered a marked request: keeps the answer when it may be reused. */
  keep(request: FastifyRequest, reply: FastifyReply, payload: unknown): void {
    const pending = (request.raw as PendingRequest)[PENDING];
    if (!pending) return;
    const status = reply.statusCode;
    if (!CACHED_STATUS.has(status)) return;
    let body: Buffer | null = null;
    if (typeof payload === 'string') body = Buffer.from(payload);
    else if (Buffer.isBuffer(payload)) body = payload;
    else if (payload !== undefined && payload !== null) return; // a stream
    if (body && body.length > MAX_ENTRY_BYTES) return;
    // Computed while something changed: possibly from before the change.
    if (pending.changes !== this.opts.changes.value) return;
    const principal = request.principal;
    // Anonymous, or the very principal the credential cache holds for the header sent.
    if (request.headers.authorization === undefined ? principal !== null : principal !== pending.principal)
      return;
    const headers: string[] = [];
    let length: string | undefined;
    for (const [name, value] of Object.entries(reply.getHeaders())) {
      if (value === undefined || name === 'x-request-id') continue;
      if (name === 'set-cookie') return;
      if (name === 'content-length') {
        length = String(value);
        continue;
      }
      if (Array.isArray(value)) for (const v of value) headers.push(name, v);
      else headers.push(name, String(value));
    }
    // What the framework adds itself when it writes the answer (fastify reply.js onSendEnd).
    if (body) {
      if (!length || (request.method !== 'HEAD' && Number(length) !== body.length))
        length = String(body.length);
    } else if (status !== 304 && request.method !== 'HEAD' && !length) length = '0';
    if (length !== undefined && status !== 304) headers.push('content-length', length);
    const bytes = (body?.length ?? 0) + pending.key.length * 2 + 256;
    if (bytes > this.budget) return;
    const old = this.entries.get(pending.key);
    if (old) this.drop(pending.key, old);
    while (this.bytes + bytes > this.budget) {
      const [oldestKey, oldest] = this.entries.entries().next().value as [string, Entry];
      this.drop(oldestKey, oldest);
    }
    this.entries.set(pending.key, {
      status,
      headers,
      body: request.method === 'HEAD' ? null : body,
      expires: this.now() + TTL_MS,
      principal,
      route: request.routeOptions.url ?? 'unmatched',
      repoType: request.repoType,
      effects: request.repeatedEffects ?? [],
      bytes,
    });
    this.bytes += bytes;
  }

  private drop(key: string, entry: Entry): void {
    if (this.entries.get(key) !== entry) return;
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }

  private clear(changes: number): void {
    this.entries.clear();
    this.bytes = 0;
    this.seenChanges = changes;
  }
}

/** Declares the per-request effects list (once, on the root instance). */
export function registerResponseCache(app: FastifyInstance): void {
  app.decorateRequest('repeatedEffects', null);
}

/**
 * Keeps the answers of the scope's marked requests (the repository endpoint's scope only: a hook on
 * every route would cost every request a step).
 */
export function keepAnswers(scope: FastifyInstance, cache: ResponseCache): void {
  scope.addHook('onSend', (request, reply, payload, done) => {
    cache.keep(request, reply, payload);
    done(null, payload);
  });
}
