import { randomUUID } from 'node:crypto';
import {
  type EventCriteria,
  WEBHOOK_MESSAGES,
  type WebhookAttemptPage,
  type WebhookSubscription,
} from '@granary/contracts';
import { ConflictError, NotFoundError } from '../../platform/errors.ts';
import { enqueueJob } from '../../platform/jobs/index.ts';
import {
  type AttemptOutcome,
  DELIVER_QUEUE,
  type DeliverJob,
  type DeliveryDeps,
  forgetSubscription,
  sendAttempt,
} from './delivery.ts';
import {
  type CheckedSubscription,
  checkKey,
  checkSubscription,
  domainInfo,
  handlerAnswer,
  type StoredHandler,
  type SubscriptionInput,
} from './subscription.ts';
import {
  type DeliveryRow,
  deleteSubscriptionRow,
  findAttempt,
  findDelivery,
  findSubscriptionKeyAnyCase,
  findSubscriptionRow,
  finishAttempt,
  insertDeliveries,
  insertSubscriptionRow,
  lastDeliveries,
  listAttempts,
  listSubscriptionRows,
  type SubscriptionRow,
  updateSubscriptionRow,
} from './webhooks.queries.ts';

/** What the webhooks services need: the delivery's dependencies, the URL rule and the audit trail. */
export interface WebhooksContext extends DeliveryDeps {
  checkUrl: (url: string) => Promise<URL>;
  audit: (entry: {
    action: string;
    target: string;
    actor: string | null;
    ip: string;
    requestId: string;
  }) => Promise<void>;
}

/** Who asks, for the audit trail. */
export interface Caller {
  name: string | null;
  ip: string;
  requestId: string;
}

function toAnswer(row: SubscriptionRow, last?: DeliveryRow): WebhookSubscription {
  return {
    key: row.key,
    description: row.description,
    enabled: row.enabled,
    event_filter: {
      domain: row.domain as WebhookSubscription['event_filter']['domain'],
      event_types: row.eventTypes,
      criteria: row.criteria as EventCriteria,
    },
    handlers: (row.handlers as unknown as StoredHandler[]).map(handlerAnswer),
    disabled_reason: row.disabledReason ?? null,
    last_delivery: last
      ? {
          id: last.id,
          status: last.status,
          response_status: last.lastResponseStatus,
          at: last.updatedAt.toISOString(),
        }
      : null,
  };
}

export async function listSubscriptions(ctx: WebhooksContext): Promise<WebhookSubscription[]> {
  const rows = await listSubscriptionRows(ctx.db);
  const last = await lastDeliveries(
    ctx.db,
    rows.map((r) => r.key),
  );
  return rows.map((r) => toAnswer(r, last.get(r.key)));
}

async function mustFind(ctx: WebhooksContext, key: string): Promise<SubscriptionRow> {
  const row = await findSubscriptionRow(ctx.db, key);
  if (!row) throw new NotFoundError(`No webhook named ${key}`);
  return row;
}

export async function getSubscription(ctx: WebhooksContext, key: string): Promise<WebhookSubscription> {
  const row = await mustFind(ctx, key);
  return toAnswer(row, (await lastDeliveries(ctx.db, [row.key])).get(row.key));
}

function rowOf(checked: CheckedSubscription) {
  return {
    description: checked.description,
    enabled: checked.enabled,
    domain: checked.domain,
    eventTypes: checked.eventTypes,
    criteria: checked.criteria as Record<string, unknown>,
    handlers: checked.handlers as unknown as Record<string, unknown>[],
  };
}

export async function createSubscription(
  ctx: WebhooksContext,
  input: SubscriptionInput,
  caller: Caller,
): Promise<WebhookSubscription> {
  const key = checkKey(input.key);
  if (await findSubscriptionKeyAnyCase(ctx.db, key)) throw new ConflictError(WEBHOOK_MESSAGES.duplicate);
  const checked = await checkSubscription(input, {
    key,
    secrets: ctx.secrets,
    checkUrl: ctx.checkUrl,
    hasProxy: (k) => ctx.outbound.hasProxy(k),
    now: ctx.now(),
  });
  let created: boolean;
  try {
    created = await insertSubscriptionRow(ctx.db, {
      key,
      ...rowOf(checked),
      createdBy: caller.name,
      updatedBy: caller.name,
    });
  } catch (err) {
    // The case-insensitive unique index: another request took the name meanwhile.
    if (isUniqueViolation(err)) created = false;
    else throw err;
  }
  if (!created) throw new ConflictError(WEBHOOK_MESSAGES.duplicate);
  await ctx.audit({
    action: 'webhook.created',
    target: key,
    actor: caller.name,
    ip: caller.ip,
    requestId: caller.requestId,
  });
  return getSubscription(ctx, key);
}

/** PUT: replaces the subscription; a `key` in the body is ignored (Artifactory's rule); blank secrets keep the stored ones. */
export async function updateSubscription(
  ctx: WebhooksContext,
  key: string,
  input: SubscriptionInput,
  caller: Caller,
): Promise<WebhookSubscription> {
  const row = await mustFind(ctx, key);
  const checked = await checkSubscription(input, {
    key: row.key,
    stored: row.handlers as unknown as StoredHandler[],
    secrets: ctx.secrets,
    checkUrl: ctx.checkUrl,
    hasProxy: (k) => ctx.outbound.hasProxy(k),
    now: ctx.now(),
  });
  // Enabling it again clears why the server had disabled it.
  const disabledReason = checked.enabled ? null : row.disabledReason;
  await updateSubscriptionRow(ctx.db, row.key, { ...rowOf(checked), disabledReason, updatedBy: caller.name });
  forgetSubscription(ctx.db, row.key);
  await ctx.audit({
    action: 'webhook.updated',
    target: row.key,
    actor: caller.name,
    ip: caller.ip,
    requestId: caller.requestId,
  });
  return getSubscription(ctx, row.key);
}

export async function deleteSubscription(ctx: WebhooksContext, key: string, caller: Caller): Promise<void> {
  const row = await mustFind(ctx, key);
  // Its deliveries and their log go with it; a queued delivery then finds nothing and ends.
  await deleteSubscriptionRow(ctx.db, row.key);
  forgetSubscription(ctx.db, row.key);
  await ctx.audit({
    action: 'webhook.deleted',
    target: row.key,
    actor: caller.name,
    ip: caller.ip,
    requestId: caller.requestId,
  });
}

/** A made-up event of the domain, for the test button. */
function dummyData(domain: string): Record<string, unknown> {
  switch (domainInfo(domain)?.criteria) {
    case 'repositories':
      return {
        repo_key: 'example-repo-local',
        path: 'org/example/example/1.0.0/example-1.0.0.jar',
        name: 'example-1.0.0.jar',
        sha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
        size: 0,
        ...(domain === 'artifact_property' ? { property_key: 'example', property_values: ['value'] } : {}),
        ...(domain === 'docker' ? { image_name: 'example/image', tag: 'latest' } : {}),
      };
    case 'builds':
      return { build_name: 'example-build', build_number: '1', build_started: new Date(0).toISOString() };
    case 'releaseBundles':
      return {
        release_bundle_name: 'example-bundle',
        release_bundle_version: '1.0.0',
        release_bundle_size: 0,
      };
    default:
      return domain === 'user' ? { user_name: 'example-user', realm: 'internal' } : {};
  }
}

export interface TestResult {
  /** 200 when every handler answered 2xx; 502 when one answered otherwise or could not be reached; 504 when one did not answer in time. */
  status: 200 | 502 | 504;
  message: string;
}

function testMessage(outcome: AttemptOutcome): TestResult {
  if (outcome.kind === 'delivered') return { status: 200, message: WEBHOOK_MESSAGES.testSuccess };
  if (outcome.kind === 'retry' && outcome.timedOut)
    return { status: 504, message: `${WEBHOOK_MESSAGES.testUnreachable} ${outcome.error}` };
  if (outcome.status !== null)
    return { status: 502, message: `${WEBHOOK_MESSAGES.testFailure}: ${outcome.error}` };
  return { status: 502, message: `${WEBHOOK_MESSAGES.testUnreachable} ${outcome.error}` };
}

/**
 * `POST subscriptions/test`: sends a real dummy event of the subscription's domain to each of its
 * handlers (saved or not). A blank secret of a saved subscription signs with the stored one; the
 * attempts of a saved subscription go to its delivery log, marked as tests.
 */
export async function testSubscription(ctx: WebhooksContext, input: SubscriptionInput): Promise<TestResult> {
  const savedKey = input.key ? await findSubscriptionKeyAnyCase(ctx.db, input.key.trim()) : undefined;
  const saved = savedKey ? await findSubscriptionRow(ctx.db, savedKey) : undefined;
  const filter = input.event_filter ?? {};
  const domain = filter.domain || 'artifact';
  const info = domainInfo(domain);
  const eventTypes = filter.event_types?.length
    ? filter.event_types
    : info
      ? [info.event_types[0]!.type]
      : [];
  const checked = await checkSubscription(
    { ...input, event_filter: { ...filter, domain, event_types: eventTypes, criteria: filter.criteria } },
    {
      key: saved?.key ?? 'test',
      stored: saved?.handlers as unknown as StoredHandler[] | undefined,
      secrets: ctx.secrets,
      checkUrl: ctx.checkUrl,
      hasProxy: (k) => ctx.outbound.hasProxy(k),
      now: ctx.now(),
      forTest: true,
    },
  );
  let result: TestResult = { status: 200, message: WEBHOOK_MESSAGES.testSuccess };
  for (const [handlerIndex, handler] of checked.handlers.entries()) {
    const delivery: DeliveryRow = {
      id: randomUUID(),
      subscriptionKey: checked.key,
      handlerIndex,
      eventId: null,
      domain: checked.domain,
      eventType: checked.eventTypes[0]!,
      data: dummyData(checked.domain),
      eventAt: new Date(ctx.now()),
      test: true,
      status: 'pending',
      attempts: 1,
      lastResponseStatus: null,
      lastError: null,
      createdAt: new Date(ctx.now()),
      updatedAt: new Date(ctx.now()),
    };
    if (saved) await insertDeliveries(ctx.db, [delivery]);
    const outcome = await sendAttempt(ctx, delivery, handler, 1, undefined, { log: Boolean(saved) });
    if (saved)
      await finishAttempt(
        ctx.db,
        delivery.id,
        outcome.kind === 'delivered' ? 'delivered' : 'failed',
        outcome.status,
        outcome.kind === 'delivered' ? null : outcome.error,
      );
    const answer = testMessage(outcome);
    if (answer.status !== 200 && result.status === 200) result = answer;
  }
  return result;
}

/** A subscription's delivery log: attempts, newest first. */
export async function deliveryLog(
  ctx: WebhooksContext,
  key: string,
  limit: number,
  offset: number,
): Promise<WebhookAttemptPage> {
  const row = await mustFind(ctx, key);
  const { rows, total } = await listAttempts(ctx.db, row.key, limit, offset);
  return {
    attempts: rows.map((r) => ({
      id: String(r.id),
      delivery_id: r.deliveryId,
      event_id: r.eventId === null ? '' : String(r.eventId),
      domain: r.domain,
      event_type: r.eventType,
      test: r.test,
      attempt: r.attempt,
      started_at: r.startedAt.toISOString(),
      duration_ms: r.durationMs,
      request: r.request,
      response: r.response ?? null,
      error: r.error ?? null,
    })),
    total,
    limit,
    offset,
  };
}

/**
 * Sends a delivery again now (one attempt, no retries), with the same `webhook-id`: `id` is a
 * delivery's id or one of its attempts'. Answers the delivery's id.
 */
export async function redeliver(
  ctx: WebhooksContext,
  key: string,
  id: string,
  caller: Caller,
): Promise<string> {
  const row = await mustFind(ctx, key);
  let delivery = await findDelivery(ctx.db, id);
  if (!delivery && /^\d+$/.test(id)) {
    const attempt = await findAttempt(ctx.db, row.key, Number(id));
    if (attempt) delivery = await findDelivery(ctx.db, attempt.deliveryId);
  }
  if (!delivery || delivery.subscriptionKey !== row.key)
    throw new NotFoundError(`No delivery ${id} of webhook ${row.key}`);
  const deliveryId = delivery.id;
  await ctx.db.transaction(async (tx) => {
    await enqueueJob(tx, DELIVER_QUEUE, { deliveryId, manual: true } satisfies DeliverJob, {
      dedupeKey: `redeliver:${deliveryId}`,
    });
  });
  await ctx.audit({
    action: 'webhook.redelivered',
    target: `${row.key}/${deliveryId}`,
    actor: caller.name,
    ip: caller.ip,
    requestId: caller.requestId,
  });
  return deliveryId;
}

const isUniqueViolation = (err: unknown): boolean => {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth += 1)
    if ((e as { code?: unknown }).code === '23505') return true;
  return false;
};
