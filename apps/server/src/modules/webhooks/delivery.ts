import { randomUUID } from 'node:crypto';
import { EVENT_CATALOG, type WebhookEventBody } from '@granary/contracts';
import type { Logger } from 'pino';
import type { Db } from '../../platform/db/index.ts';
import type { StoredEvent } from '../../platform/events/index.ts';
import { enqueueJob, enqueueJobs, type Jobs, RetryLaterError } from '../../platform/jobs/index.ts';
import type { Metrics } from '../../platform/metrics/index.ts';
import { OutboundBlockedError, type OutboundClient } from '../../platform/outbound/index.ts';
import type { Secrets } from '../../platform/secrets/index.ts';
import { listRepositoryHeads } from '../repositories/repositories.api.ts';
import { matches } from './matching.ts';
import { signingHeaders } from './signing.ts';
import { openHandlerSecrets, type StoredHandler } from './subscription.ts';
import { renderTemplate } from './template.ts';
import {
  type DeliveryRow,
  enabledSubscriptionRows,
  findDeliveries,
  findDelivery,
  findSubscriptionRow,
  finishAttempt,
  finishAttempts,
  insertAttempt,
  insertAttempts,
  insertDeliveries,
  type NewDelivery,
  pruneLog,
  type SubscriptionRow,
  startAttempt,
  updateSubscriptionRow,
} from './webhooks.queries.ts';

export const DELIVER_QUEUE = 'webhooks.deliver';
export const MATCH_SUBSCRIBER = 'webhooks.match';
export const PRUNE_JOB = 'webhooks.prune';
/** One attempt's limit: connect, send and the receiver's answer headers (issue 14). */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** How much of a receiver's answer the log keeps. */
export const RESPONSE_LOG_BYTES = 10 * 1024;
/** How long the delivery log is kept. */
export const LOG_RETENTION_MS = 30 * 24 * 3600_000;
/**
 * The wait after each failed attempt (then +0–20 % jitter): 12 attempts over at least 79 hours
 * (issue 14: at least 10 attempts over at least 72 hours). A receiver's `Retry-After` replaces the
 * wait (at most a day).
 */
export const RETRY_DELAYS_MS = [
  15_000,
  60_000,
  5 * 60_000,
  15 * 60_000,
  3600_000,
  2 * 3600_000,
  4 * 3600_000,
  8 * 3600_000,
  16 * 3600_000,
  24 * 3600_000,
  24 * 3600_000,
];
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
const MAX_RETRY_AFTER_MS = 24 * 3600_000;
const MASK = '********';

export interface DeliveryDeps {
  db: Db;
  secrets: Secrets;
  outbound: OutboundClient;
  log: Logger;
  /** The body's `source`: this server's base URL, or `granary`. */
  source: string;
  now: () => number;
  /** This node's metrics: each attempt's outcome counts into `granary_webhook_deliveries_total`. */
  metrics?: Metrics;
}

export interface DeliverJob {
  deliveryId: string;
  /** A redelivery asked by an admin: one attempt, no retries. */
  manual?: boolean;
}

/**
 * The first attempts of the deliveries one event batch matched, as one job: sent at once, logged
 * and recorded in one transaction (a job per delivery cost ~6 statements each, and the deploys
 * that caused them waited behind those statements). A delivery to retry becomes a `DeliverJob`.
 */
export interface DeliverBatchJob {
  deliveryIds: string[];
}

/** How many deliveries one batch job sends at most. */
const BATCH_SIZE = 64;

type AttemptRecord = Parameters<typeof insertAttempt>[1];

/** The body of a predefined (`webhook`) delivery: the one event shape (issue 14). */
export function eventBody(delivery: DeliveryRow, source: string): WebhookEventBody {
  return {
    domain: delivery.domain,
    event_type: delivery.eventType,
    data: delivery.data,
    subscription_key: delivery.subscriptionKey,
    source,
    timestamp: delivery.eventAt.toISOString(),
    id: delivery.id,
  };
}

/** `Retry-After` as seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (!value) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Math.min(Number(v) * 1000, MAX_RETRY_AFTER_MS);
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.min(Math.max(0, at - now), MAX_RETRY_AFTER_MS);
}

export function retryDelay(attempt: number): number {
  const base = RETRY_DELAYS_MS[Math.min(attempt, RETRY_DELAYS_MS.length) - 1] ?? RETRY_DELAYS_MS.at(-1)!;
  return Math.round(base * (1 + Math.random() * 0.2));
}

export type AttemptOutcome =
  | { kind: 'delivered'; status: number }
  /** Worth another try: a 5xx, 408, 429, a timeout, a connection failure. */
  | { kind: 'retry'; status: number | null; error: string; retryAfterMs?: number; timedOut?: boolean }
  /** Not worth another try: another 4xx, a URL the server will not dial. */
  | { kind: 'refused'; status: number | null; error: string }
  /** 410 Gone: the receiver wants no more. */
  | { kind: 'gone'; status: 410; error: string };

/**
 * Opened secrets, by their sealed text, per Secrets instance: a delivery opens its subscription's
 * secrets (two AES-GCM decryptions each) on every attempt otherwise. Bounded; a changed secret is
 * another sealed text, so nothing here goes stale.
 */
const openedSecrets = new WeakMap<Secrets, Map<string, string>>();
function cachedSecrets(secrets: Secrets): Secrets {
  let opened = openedSecrets.get(secrets);
  if (!opened) {
    opened = new Map();
    openedSecrets.set(secrets, opened);
  }
  const cache = opened;
  return {
    ...secrets,
    openSecret(sealed) {
      let plain = cache.get(sealed);
      if (plain === undefined) {
        plain = secrets.openSecret(sealed);
        if (cache.size >= 1000) cache.clear();
        cache.set(sealed, plain);
      }
      return plain;
    },
  };
}

/**
 * Subscriptions as deliveries read them, kept a second per node and database: a burst of deliveries
 * reads each subscription once a second instead of once per attempt; an edit (on any node) reaches
 * every node's deliveries within that second.
 */
const SUBSCRIPTION_TTL_MS = 1000;
const subscriptionCache = new WeakMap<
  object,
  Map<string, { at: number; row: SubscriptionRow | undefined }>
>();
async function subscriptionOf(db: Db, key: string): Promise<SubscriptionRow | undefined> {
  let byKey = subscriptionCache.get(db);
  if (!byKey) {
    byKey = new Map();
    subscriptionCache.set(db, byKey);
  }
  const hit = byKey.get(key);
  if (hit && Date.now() - hit.at < SUBSCRIPTION_TTL_MS) return hit.row;
  const row = await findSubscriptionRow(db, key);
  if (byKey.size >= 1000) byKey.clear();
  byKey.set(key, { at: Date.now(), row });
  return row;
}

/** Drops this node's copy of a subscription (after this node changed it). */
export function forgetSubscription(db: Db, key: string): void {
  subscriptionCache.get(db)?.delete(key);
}

function masker(secretValues: string[]): (s: string) => string {
  const values = secretValues.filter((v) => v.length >= 1).sort((a, b) => b.length - a.length);
  return (s) => values.reduce((out, v) => out.split(v).join(MASK), s);
}

/** The request of one attempt: method, headers (signed), body. */
function buildRequest(
  handler: StoredHandler,
  delivery: DeliveryRow,
  deps: DeliveryDeps,
): { method: string; headers: Record<string, string>; body: string; secretValues: string[] } {
  const now = deps.now();
  const { signing, named } = openHandlerSecrets(handler, cachedSecrets(deps.secrets), now);
  const event = eventBody(delivery, deps.source);
  const scope = { ...event, secrets: named };
  const custom = handler.handler_type === 'custom-webhook';
  const body = custom
    ? handler.payload
      ? renderTemplate(handler.payload, scope)
      : JSON.stringify(event)
    : JSON.stringify(event);
  const method = custom ? (handler.method ?? 'POST') : 'POST';
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'Granary-Webhooks',
  };
  for (const h of (custom ? handler.http_headers : handler.custom_http_headers) ?? [])
    headers[h.name.toLowerCase()] = renderTemplate(h.value, scope);
  Object.assign(
    headers,
    signingHeaders({
      id: delivery.id,
      timestamp: Math.floor(now / 1000),
      body,
      secrets: signing,
      useSecretForSigning: Boolean(handler.use_secret_for_signing),
    }),
  );
  return {
    method,
    headers,
    body: method === 'GET' ? '' : body,
    secretValues: [...signing, ...Object.values(named)],
  };
}

async function readHead(res: { body: ReadableStream<Uint8Array> | null }): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < RESPONSE_LOG_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.length;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  return Buffer.concat(chunks).subarray(0, RESPONSE_LOG_BYTES).toString('utf8');
}

function describeError(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as { cause?: unknown }).cause;
    const inner = cause instanceof Error ? cause.message : '';
    return inner && !err.message.includes(inner) ? `${err.message}: ${inner}` : err.message;
  }
  return String(err);
}

/**
 * Sends one attempt of a delivery to one handler and logs it (request with secrets masked, response
 * status, headers and first 10 KB, or the error). Answers what happened; never throws for the
 * receiver's failures. `signal` aborts it (shutdown): then nothing is logged and the abort is thrown.
 */
export async function sendAttempt(
  deps: DeliveryDeps,
  delivery: DeliveryRow,
  handler: StoredHandler,
  attempt: number,
  signal?: AbortSignal,
  opts: { log?: boolean; into?: AttemptRecord[] } = {},
): Promise<AttemptOutcome> {
  const log = opts.log ?? true;
  const logAttempt = (...args: Parameters<typeof attemptRecord>) => {
    const record = attemptRecord(...args);
    if (opts.into) opts.into.push(record);
    else return insertAttempt(deps.db, record);
  };
  const startedAt = new Date(deps.now());
  const t0 = performance.now();
  let request: ReturnType<typeof buildRequest>;
  let outcome: AttemptOutcome;
  let response: { status: number; headers: Record<string, string>; body: string } | null = null;
  try {
    request = buildRequest(handler, delivery, deps);
  } catch (err) {
    // A secret that no longer opens (another master key): nothing can be sent.
    request = { method: 'POST', headers: {}, body: '', secretValues: [] };
    outcome = {
      kind: 'refused',
      status: null,
      error: `could not prepare the request: ${describeError(err)}`,
    };
    deps.metrics?.webhookDeliveries.inc({ outcome: outcome.kind });
    if (log) await logAttempt(delivery, attempt, startedAt, t0, handler.url, request, null, outcome);
    return outcome;
  }
  const mask = masker(request.secretValues);
  if (new URL(handler.url).protocol === 'ftp:') {
    outcome = {
      kind: 'refused',
      status: null,
      error: 'ftp URLs are accepted but not delivered to: use http or https',
    };
  } else {
    const timeout = AbortSignal.timeout(DELIVERY_TIMEOUT_MS);
    try {
      const res = await deps.outbound.fetch(handler.url, {
        method: request.method,
        headers: request.headers,
        body: request.method === 'GET' ? undefined : request.body,
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
        redirect: 'manual',
        proxy: handler.proxy,
      });
      const headers: Record<string, string> = {};
      res.headers.forEach((value, name) => {
        headers[name] = mask(value);
      });
      const body = await readHead(res).catch(() => '');
      response = { status: res.status, headers, body: mask(body) };
      const status = res.status;
      if (status >= 200 && status < 300) outcome = { kind: 'delivered', status };
      else if (status === 410) outcome = { kind: 'gone', status, error: 'the receiver answered 410 Gone' };
      else if (status >= 500 || status === 408 || status === 429)
        outcome = {
          kind: 'retry',
          status,
          error: `the receiver answered ${status}`,
          retryAfterMs: parseRetryAfter(res.headers.get('retry-after'), deps.now()),
        };
      else if (status >= 300 && status < 400)
        outcome = {
          kind: 'retry',
          status,
          error: `the receiver answered ${status} (redirects are not followed)`,
        };
      else outcome = { kind: 'refused', status, error: `the receiver answered ${status}` };
    } catch (err) {
      if (signal?.aborted) throw err;
      if (err instanceof OutboundBlockedError)
        outcome = { kind: 'refused', status: null, error: err.message };
      else if (timeout.aborted)
        outcome = {
          kind: 'retry',
          status: null,
          error: `no answer within ${DELIVERY_TIMEOUT_MS / 1000} s`,
          timedOut: true,
        };
      else outcome = { kind: 'retry', status: null, error: mask(describeError(err)) };
    }
  }
  deps.metrics?.webhookDeliveries.inc({ outcome: outcome.kind });
  if (log) await logAttempt(delivery, attempt, startedAt, t0, handler.url, request, response, outcome, mask);
  return outcome;
}

/** One attempt as the delivery log keeps it: secrets masked. */
function attemptRecord(
  delivery: DeliveryRow,
  attempt: number,
  startedAt: Date,
  t0: number,
  url: string,
  request: { method: string; headers: Record<string, string>; body: string },
  response: { status: number; headers: Record<string, string>; body: string } | null,
  outcome: AttemptOutcome,
  mask: (s: string) => string = (s) => s,
): AttemptRecord {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers))
    headers[name] = name === 'x-jfrog-event-auth' || name === 'authorization' ? MASK : mask(value);
  return {
    deliveryId: delivery.id,
    subscriptionKey: delivery.subscriptionKey,
    attempt,
    startedAt,
    durationMs: Math.round(performance.now() - t0),
    request: { method: request.method, url, headers, body: mask(request.body) },
    response,
    error: outcome.kind === 'delivered' ? null : outcome.error,
  };
}

/** The handler of queue `webhooks.deliver`: one attempt; a failure worth retrying is thrown with its wait. */
export async function runDelivery(
  deps: DeliveryDeps,
  job: DeliverJob,
  signal: AbortSignal,
  log: Logger,
): Promise<void> {
  const delivery = await findDelivery(deps.db, job.deliveryId);
  if (!delivery) return; // its subscription was deleted
  // A manual redelivery reads the subscription as it is now; a queued one may use a second-old copy.
  const sub = job.manual
    ? await findSubscriptionRow(deps.db, delivery.subscriptionKey)
    : await subscriptionOf(deps.db, delivery.subscriptionKey);
  const handler = (sub?.handlers as unknown as StoredHandler[] | undefined)?.[delivery.handlerIndex];
  if (!sub || !handler) return;
  if (!job.manual && (delivery.status === 'delivered' || delivery.status === 'failed')) return;
  if (!sub.enabled && !job.manual) {
    await finishAttempt(
      deps.db,
      delivery.id,
      'failed',
      delivery.lastResponseStatus,
      'the webhook was disabled',
    );
    return;
  }
  const attempt = (await startAttempt(deps.db, delivery.id)) ?? delivery.attempts + 1;
  const outcome = await sendAttempt(deps, delivery, handler, attempt, signal);
  switch (outcome.kind) {
    case 'delivered':
      await finishAttempt(deps.db, delivery.id, 'delivered', outcome.status, null);
      return;
    case 'gone': {
      await finishAttempt(deps.db, delivery.id, 'failed', 410, outcome.error);
      const reason = `The receiver answered 410 Gone at ${new Date(deps.now()).toISOString()}: delivery stopped`;
      await updateSubscriptionRow(deps.db, sub.key, { enabled: false, disabledReason: reason });
      forgetSubscription(deps.db, sub.key);
      log.warn({ subscription: sub.key }, 'webhook disabled: its receiver answered 410 Gone');
      return;
    }
    case 'refused':
      await finishAttempt(deps.db, delivery.id, 'failed', outcome.status, outcome.error);
      return;
    case 'retry': {
      if (job.manual || attempt >= MAX_ATTEMPTS) {
        await finishAttempt(deps.db, delivery.id, 'failed', outcome.status, outcome.error);
        return;
      }
      await finishAttempt(deps.db, delivery.id, 'retrying', outcome.status, outcome.error);
      throw new RetryLaterError(
        `webhook ${sub.key}: ${outcome.error}; attempt ${attempt} of ${MAX_ATTEMPTS}`,
        outcome.retryAfterMs ?? retryDelay(attempt),
      );
    }
  }
}

/**
 * The handler of a `DeliverBatchJob`: each delivery's first attempt, sent at once; the attempts
 * logged, the outcomes recorded and the retries queued (each its own `DeliverJob`, at its time) in
 * one transaction. A delivery already finished (a batch run again after a lost node) is skipped.
 */
export async function runBatch(deps: DeliveryDeps, job: DeliverBatchJob, signal: AbortSignal, log: Logger) {
  const deliveries = await findDeliveries(deps.db, job.deliveryIds);
  const records: AttemptRecord[] = [];
  const finished: Parameters<typeof finishAttempts>[1] = [];
  const retries: { deliveryId: string; runAt: Date }[] = [];
  await Promise.all(
    deliveries.map(async (delivery) => {
      if (delivery.status === 'delivered' || delivery.status === 'failed') return;
      const sub = await subscriptionOf(deps.db, delivery.subscriptionKey);
      const handler = (sub?.handlers as unknown as StoredHandler[] | undefined)?.[delivery.handlerIndex];
      if (!sub || !handler) return;
      const done = (status: DeliveryRow['status'], responseStatus: number | null, error: string | null) =>
        finished.push({ id: delivery.id, attempts: attempt, status, responseStatus, error });
      let attempt = delivery.attempts;
      if (!sub.enabled) return done('failed', delivery.lastResponseStatus, 'the webhook was disabled');
      attempt += 1;
      const outcome = await sendAttempt(deps, delivery, handler, attempt, signal, { into: records });
      switch (outcome.kind) {
        case 'delivered':
          return done('delivered', outcome.status, null);
        case 'gone': {
          done('failed', 410, outcome.error);
          const reason = `The receiver answered 410 Gone at ${new Date(deps.now()).toISOString()}: delivery stopped`;
          await updateSubscriptionRow(deps.db, sub.key, { enabled: false, disabledReason: reason });
          forgetSubscription(deps.db, sub.key);
          log.warn({ subscription: sub.key }, 'webhook disabled: its receiver answered 410 Gone');
          return;
        }
        case 'refused':
          return done('failed', outcome.status, outcome.error);
        case 'retry':
          if (attempt >= MAX_ATTEMPTS) return done('failed', outcome.status, outcome.error);
          done('retrying', outcome.status, outcome.error);
          retries.push({
            deliveryId: delivery.id,
            runAt: new Date(deps.now() + (outcome.retryAfterMs ?? retryDelay(attempt))),
          });
      }
    }),
  );
  if (records.length === 0 && finished.length === 0) return;
  await deps.db.transaction(async (tx) => {
    await insertAttempts(tx, records);
    await finishAttempts(tx, finished);
    for (const r of retries)
      await enqueueJob(tx, DELIVER_QUEUE, { deliveryId: r.deliveryId } satisfies DeliverJob, {
        runAt: r.runAt,
      });
  });
}

/** Every outbox type of the catalogue (`artifact.deployed`, …): what the matcher reads. */
export function catalogueTypes(): string[] {
  return EVENT_CATALOG.flatMap((d) => d.event_types.map((t) => `${d.domain}.${t.type}`));
}

/**
 * The outbox subscriber's batch: each event against every enabled subscription; one delivery (and
 * one `webhooks.deliver` job) per matching handler, in one transaction. A delivery is unique per
 * (event, subscription, handler), so a batch handed over again queues nothing twice.
 */
export async function matchEvents(deps: DeliveryDeps, events: StoredEvent[]): Promise<number> {
  const subs = await enabledSubscriptionRows(deps.db);
  if (subs.length === 0) return 0;
  let heads: Map<string, string> | undefined;
  const classOf = (key: string) => heads?.get(key.toLowerCase());
  if (subs.some((s) => ['artifact', 'artifact_property', 'docker', 'artifact_lifecycle'].includes(s.domain)))
    heads = new Map((await listRepositoryHeads(deps.db)).map((h) => [h.key.toLowerCase(), h.rclass]));
  const rows: NewDelivery[] = [];
  for (const event of events) {
    const dot = event.type.indexOf('.');
    const domain = event.type.slice(0, dot);
    const eventType = event.type.slice(dot + 1);
    const data = event.payload ?? {};
    for (const sub of subs as SubscriptionRow[]) {
      if (!matches({ ...sub, criteria: sub.criteria ?? {} }, domain, eventType, data, classOf)) continue;
      (sub.handlers as unknown as StoredHandler[]).forEach((_, handlerIndex) => {
        rows.push({
          id: randomUUID(),
          subscriptionKey: sub.key,
          handlerIndex,
          eventId: event.id,
          domain,
          eventType,
          data,
          eventAt: event.createdAt,
        });
      });
    }
  }
  if (rows.length === 0) return 0;
  return deps.db.transaction(async (tx) => {
    const ids = await insertDeliveries(tx, rows);
    const batches: DeliverBatchJob[] = [];
    for (let i = 0; i < ids.length; i += BATCH_SIZE)
      batches.push({ deliveryIds: ids.slice(i, i + BATCH_SIZE) });
    await enqueueJobs(tx, DELIVER_QUEUE, batches);
    return ids.length;
  });
}

/** Registers the delivery machinery with platform/jobs: the matcher, the delivery queue, the log's pruning. */
export function registerDelivery(jobs: Jobs, deps: DeliveryDeps): void {
  jobs.subscribe({
    name: MATCH_SUBSCRIBER,
    types: catalogueTypes(),
    handle: async (events) => {
      await matchEvents(deps, events);
    },
  });
  jobs.queue<DeliverJob | DeliverBatchJob>({
    name: DELIVER_QUEUE,
    // The handler counts attempts itself (a redelivery starts again); this only bounds lost runs.
    maxAttempts: MAX_ATTEMPTS + 3,
    concurrency: 8,
    leaseMs: 60_000,
    handler: (payload, ctx) =>
      'deliveryIds' in payload
        ? runBatch(deps, payload, ctx.signal, ctx.log)
        : runDelivery(deps, payload, ctx.signal, ctx.log),
  });
  jobs.recurring({
    name: PRUNE_JOB,
    scope: 'cluster',
    intervalMs: 3600_000,
    jitterMs: 60_000,
    run: async () => {
      let total = { attempts: 0, deliveries: 0 };
      for (;;) {
        const round = await pruneLog(deps.db, LOG_RETENTION_MS, 1000);
        total = {
          attempts: total.attempts + round.attempts,
          deliveries: total.deliveries + round.deliveries,
        };
        if (round.attempts < 1000 && round.deliveries < 1000) return total;
      }
    },
  });
}
