import {
  EVENT_CATALOG,
  type EventCriteria,
  type EventDomainInfo,
  WEBHOOK_HANDLER_TYPES,
  WEBHOOK_MESSAGES,
  WEBHOOK_NAME_PATTERN,
  type WebhookHandler,
  type WebhookHandlerType,
} from '@granary/contracts';
import { z } from 'zod';
import { InvalidError } from '../../platform/errors.ts';
import { registerSealedColumn, type Secrets } from '../../platform/secrets/index.ts';
import { checkTemplate } from './template.ts';

// Every secret inside the stored handlers is sealed at rest (issue 18): walked by the start-up seal
// and the key-rotation job.
registerSealedColumn({
  table: 'webhook_subscriptions',
  key: 'key',
  column: 'handlers',
  each: (value, f) =>
    Array.isArray(value)
      ? value.map((h: Record<string, unknown>) => {
          if (!h || typeof h !== 'object') return h;
          const out = { ...h };
          for (const k of ['secret', 'previous_secret'])
            if (typeof out[k] === 'string' && out[k]) out[k] = f(out[k] as string);
          if (Array.isArray(out.secrets))
            out.secrets = out.secrets.map((s: { name: string; value: unknown }) =>
              s && typeof s.value === 'string' && s.value ? { ...s, value: f(s.value) } : s,
            );
          return out;
        })
      : value,
});

/** How long a replaced secret still signs deliveries (beside the new one): receivers switch over meanwhile. */
export const SECRET_ROTATION_GRACE_MS = 24 * 3600_000;

// The body as it comes: loose on purpose, so the service answers with the spec's own messages
// (spec 001 §5) rather than the schema validator's. Fields not listed are ignored.
const nameValueInput = z.looseObject({
  name: z.string().nullable().optional(),
  value: z.string().nullable().optional(),
});
const stringList = z.array(z.string()).nullable().optional();
export const criteriaInputSchema = z.looseObject({
  anyLocal: z.boolean().nullable().optional(),
  anyRemote: z.boolean().nullable().optional(),
  anyFederated: z.boolean().nullable().optional(),
  repoKeys: stringList,
  anyBuild: z.boolean().nullable().optional(),
  selectedBuilds: stringList,
  anyReleaseBundle: z.boolean().nullable().optional(),
  registeredReleaseBundlesNames: stringList,
  anyEnvironment: z.boolean().nullable().optional(),
  environments: stringList,
  includePatterns: stringList,
  excludePatterns: stringList,
});
export const handlerInputSchema = z.looseObject({
  handler_type: z.string().nullable().optional(),
  url: z.string().nullable().optional(),
  /** Write-only: `""` or absent keeps the stored one, `null` removes it. */
  secret: z.string().nullable().optional(),
  use_secret_for_signing: z.boolean().nullable().optional(),
  proxy: z.string().nullable().optional(),
  custom_http_headers: z.array(nameValueInput).nullable().optional(),
  method: z.string().nullable().optional(),
  http_headers: z.array(nameValueInput).nullable().optional(),
  payload: z.string().nullable().optional(),
  /** Values write-only: `""` keeps the stored value of that name. */
  secrets: z.array(nameValueInput).nullable().optional(),
});
export const subscriptionInputSchema = z.looseObject({
  key: z.string().nullable().optional(),
  description: z.string().nullable().optional(),
  enabled: z.boolean().nullable().optional(),
  event_filter: z
    .looseObject({
      domain: z.string().nullable().optional(),
      event_types: z.array(z.string()).nullable().optional(),
      criteria: criteriaInputSchema.nullable().optional(),
    })
    .nullable()
    .optional(),
  handlers: z.array(handlerInputSchema).nullable().optional(),
});
export type SubscriptionInput = z.infer<typeof subscriptionInputSchema>;
type HandlerInput = z.infer<typeof handlerInputSchema>;

/** A handler as stored: every secret sealed. */
export interface StoredHandler {
  handler_type: WebhookHandlerType;
  url: string;
  secret?: string;
  /** During a rotation: the replaced secret (sealed), signing beside the new one until the expiry. */
  previous_secret?: string;
  previous_secret_expires_at?: string;
  use_secret_for_signing?: boolean;
  /** A configured proxy's key; absent: the default proxy. */
  proxy?: string;
  custom_http_headers?: { name: string; value: string }[];
  method?: string;
  http_headers?: { name: string; value: string }[];
  payload?: string;
  secrets?: { name: string; value: string }[];
}

/** A subscription checked and ready to store. */
export interface CheckedSubscription {
  key: string;
  description: string;
  enabled: boolean;
  domain: string;
  eventTypes: string[];
  criteria: EventCriteria;
  handlers: StoredHandler[];
}

const METHODS = ['POST', 'PUT', 'PATCH', 'GET', 'DELETE'];
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Headers a webhook may not set itself: they belong to the transport or to the signature. */
const RESERVED_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
]);
const MAX_DESCRIPTION = 1000;
const MAX_KEY = 200;
const MAX_PAYLOAD = 64 * 1024;
const MAX_LIST = 500;

const bad = (message: string, detail?: string) =>
  new InvalidError(detail ? `${message}: ${detail}` : message);
const mandatory = (field: string) => bad(WEBHOOK_MESSAGES.mandatory, field);
const blank = (v: string | null | undefined): v is null | undefined | '' => v == null || v.trim() === '';

export function domainInfo(domain: string): EventDomainInfo | undefined {
  return EVENT_CATALOG.find((d) => d.domain === domain);
}

/** Spec 001 §5: the webhook name rule (a letter, then letters, digits, `_` or `-`; at least 2 characters). */
export function checkKey(key: string | null | undefined): string {
  if (blank(key)) throw mandatory('key');
  const k = key.trim();
  if (!WEBHOOK_NAME_PATTERN.test(k) || k.length > MAX_KEY) throw bad(WEBHOOK_MESSAGES.name);
  return k;
}

function strings(list: string[] | null | undefined, field: string): string[] {
  const out = (list ?? []).map((s) => s.trim()).filter(Boolean);
  if (out.length > MAX_LIST) throw bad(`${field}: at most ${MAX_LIST} entries`);
  return [...new Set(out)];
}

function checkCriteria(
  info: EventDomainInfo,
  raw: z.infer<typeof criteriaInputSchema> | null | undefined,
): EventCriteria {
  const c = raw ?? {};
  const patterns = {
    includePatterns: strings(c.includePatterns, 'event_filter.criteria.includePatterns'),
    excludePatterns: strings(c.excludePatterns, 'event_filter.criteria.excludePatterns'),
  };
  switch (info.criteria) {
    case 'repositories': {
      const out: EventCriteria = {
        anyLocal: Boolean(c.anyLocal),
        anyRemote: Boolean(c.anyRemote),
        anyFederated: Boolean(c.anyFederated),
        repoKeys: strings(c.repoKeys, 'event_filter.criteria.repoKeys'),
        ...patterns,
      };
      if (!out.anyLocal && !out.anyRemote && !out.anyFederated && out.repoKeys!.length === 0)
        throw mandatory('event_filter.criteria.repoKeys (or anyLocal, anyRemote, anyFederated)');
      return out;
    }
    case 'builds': {
      // "Select all builds" drops the names and patterns chosen by hand (spec 001 §5).
      const anyBuild = Boolean(c.anyBuild);
      const out: EventCriteria = {
        anyBuild,
        selectedBuilds: anyBuild ? [] : strings(c.selectedBuilds, 'event_filter.criteria.selectedBuilds'),
        includePatterns: anyBuild ? [] : patterns.includePatterns,
        excludePatterns: patterns.excludePatterns,
      };
      if (!anyBuild && out.selectedBuilds!.length === 0 && out.includePatterns!.length === 0)
        throw mandatory('event_filter.criteria.selectedBuilds (or anyBuild, includePatterns)');
      return out;
    }
    case 'releaseBundles': {
      const anyReleaseBundle = Boolean(c.anyReleaseBundle);
      const out: EventCriteria = {
        anyReleaseBundle,
        registeredReleaseBundlesNames: anyReleaseBundle
          ? []
          : strings(c.registeredReleaseBundlesNames, 'event_filter.criteria.registeredReleaseBundlesNames'),
        includePatterns: anyReleaseBundle ? [] : patterns.includePatterns,
        excludePatterns: patterns.excludePatterns,
      };
      if (c.anyEnvironment != null || c.environments != null) {
        out.anyEnvironment = Boolean(c.anyEnvironment);
        out.environments = out.anyEnvironment
          ? []
          : strings(c.environments, 'event_filter.criteria.environments');
      }
      if (
        !anyReleaseBundle &&
        out.registeredReleaseBundlesNames!.length === 0 &&
        out.includePatterns!.length === 0
      )
        throw mandatory(
          'event_filter.criteria.registeredReleaseBundlesNames (or anyReleaseBundle, includePatterns)',
        );
      return out;
    }
    default:
      return {};
  }
}

function checkHeaders(
  list: HandlerInput['custom_http_headers'],
  field: string,
  domain: string,
  secretNames: string[],
): { name: string; value: string }[] {
  const out: { name: string; value: string }[] = [];
  for (const h of list ?? []) {
    if (blank(h.name) || h.value == null || h.value === '') throw bad(WEBHOOK_MESSAGES.header, field);
    const name = h.name.trim();
    if (!HEADER_NAME.test(name) || /[\r\n\0]/.test(h.value))
      throw bad(WEBHOOK_MESSAGES.header, `${field}: ${name}`);
    if (RESERVED_HEADERS.has(name.toLowerCase()))
      throw bad(`${field}: ${name} is set by the server and cannot be given`);
    const problem = checkTemplate(h.value, domain, secretNames);
    if (problem) throw bad(`${field}: ${name}: ${problem}`);
    out.push({ name, value: h.value });
  }
  if (out.length > 100) throw bad(`${field}: at most 100 headers`);
  return out;
}

/**
 * Checks a subscription as given (Artifactory's JSON) and seals its secrets for storage. `stored`
 * is the subscription's handlers as stored when it is an update: a handler's secret given as `""`
 * (or not given) keeps the stored one, and a custom handler's secret given with value `""` keeps the
 * stored value of that name. A new secret replaces the old, which keeps signing for the grace period.
 */
export async function checkSubscription(
  input: SubscriptionInput,
  opts: {
    key: string;
    stored?: StoredHandler[];
    secrets: Secrets;
    checkUrl: (url: string) => Promise<URL>;
    now: number;
    /** The test endpoint: a missing secret value is not an error (the test signs with what it has). */
    forTest?: boolean;
    /** Whether a proxy of that key is configured (issue 15). */
    hasProxy?: (key: string) => Promise<boolean>;
  },
): Promise<CheckedSubscription> {
  const description = (input.description ?? '').trim();
  if (description.length > MAX_DESCRIPTION) throw bad(`description: at most ${MAX_DESCRIPTION} characters`);
  const filter = input.event_filter;
  if (!filter || blank(filter.domain)) throw mandatory('event_filter.domain');
  const info = domainInfo(filter.domain.trim());
  if (!info)
    throw bad(
      `event_filter.domain: unknown domain ${filter.domain}; one of ${EVENT_CATALOG.map((d) => d.domain).join(', ')}`,
    );
  const eventTypes = strings(filter.event_types, 'event_filter.event_types');
  if (eventTypes.length === 0) throw mandatory('event_filter.event_types');
  for (const t of eventTypes)
    if (!info.event_types.some((e) => e.type === t))
      throw bad(
        `event_filter.event_types: ${info.domain} has no event type ${t}; one of ${info.event_types.map((e) => e.type).join(', ')}`,
      );
  const criteria = checkCriteria(info, filter.criteria);
  const handlersIn = input.handlers ?? [];
  if (handlersIn.length === 0) throw mandatory('handlers');
  if (handlersIn.length > 10) throw bad('handlers: at most 10');

  const handlers: StoredHandler[] = [];
  for (const [i, h] of handlersIn.entries()) {
    const field = `handlers[${i}]`;
    const type = (blank(h.handler_type) ? 'webhook' : h.handler_type.trim()) as WebhookHandlerType;
    if (!WEBHOOK_HANDLER_TYPES.includes(type))
      throw bad(`${field}.handler_type: one of ${WEBHOOK_HANDLER_TYPES.join(', ')}`);
    if (blank(h.url)) throw mandatory(`${field}.url`);
    const url = (await opts.checkUrl(h.url)).href;
    if (!blank(h.proxy) && !(await opts.hasProxy?.(h.proxy.trim())))
      throw bad(
        `${field}.proxy: no proxy named ${h.proxy} is configured (leave it out to use the default proxy)`,
      );
    const before = opts.stored?.[i];
    const out: StoredHandler = { handler_type: type, url };
    if (!blank(h.proxy)) out.proxy = h.proxy.trim();

    // The signing secret (both handler types may have one).
    if (h.secret === null) {
      // removed
    } else if (!blank(h.secret)) {
      out.secret = opts.secrets.sealSecret(h.secret);
      const old = before?.secret ? opts.secrets.openSecret(before.secret) : undefined;
      if (old !== undefined && old !== h.secret) {
        out.previous_secret = before!.secret;
        out.previous_secret_expires_at = new Date(opts.now + SECRET_ROTATION_GRACE_MS).toISOString();
      } else if (old === h.secret && before?.previous_secret) {
        out.previous_secret = before.previous_secret;
        out.previous_secret_expires_at = before.previous_secret_expires_at;
      }
    } else if (before?.secret) {
      out.secret = before.secret;
      if (before.previous_secret) {
        out.previous_secret = before.previous_secret;
        out.previous_secret_expires_at = before.previous_secret_expires_at;
      }
    }
    if (h.use_secret_for_signing) out.use_secret_for_signing = true;

    // Named secrets, for templates ({{ .secrets.NAME }}).
    const secretNames: string[] = [];
    const named: { name: string; value: string }[] = [];
    for (const s of h.secrets ?? []) {
      if (blank(s.name)) throw bad(WEBHOOK_MESSAGES.secret, `${field}.secrets`);
      const name = s.name.trim();
      if (!WEBHOOK_NAME_PATTERN.test(name)) throw bad(WEBHOOK_MESSAGES.secretName, name);
      if (secretNames.includes(name)) throw bad(`${field}.secrets: ${name} is given twice`);
      let value: string | undefined;
      if (s.value != null && s.value !== '') value = opts.secrets.sealSecret(s.value);
      else value = before?.secrets?.find((b) => b.name === name)?.value;
      if (value === undefined && !opts.forTest) throw mandatory(`${field}.secrets: ${name}`);
      secretNames.push(name);
      if (value !== undefined) named.push({ name, value });
    }
    if (named.length > 0) out.secrets = named;

    if (type === 'webhook') {
      const headers = checkHeaders(
        h.custom_http_headers,
        `${field}.custom_http_headers`,
        info.domain,
        secretNames,
      );
      if (headers.length > 0) out.custom_http_headers = headers;
    } else {
      const method = blank(h.method) ? 'POST' : h.method.trim().toUpperCase();
      if (!METHODS.includes(method)) throw bad(`${field}.method: one of ${METHODS.join(', ')}`);
      out.method = method;
      const headers = checkHeaders(h.http_headers, `${field}.http_headers`, info.domain, secretNames);
      if (headers.length > 0) out.http_headers = headers;
      if (!blank(h.payload)) {
        if (h.payload.length > MAX_PAYLOAD) throw bad(`${field}.payload: at most ${MAX_PAYLOAD} characters`);
        const problem = checkTemplate(h.payload, info.domain, secretNames);
        if (problem) throw bad(`${field}.payload: ${problem}`);
        out.payload = h.payload;
      }
    }
    handlers.push(out);
  }
  return {
    key: opts.key,
    description,
    enabled: input.enabled ?? true,
    domain: info.domain,
    eventTypes,
    criteria,
    handlers,
  };
}

/** A stored handler as answers show it: secrets write-only (`""` where one is set). */
export function handlerAnswer(h: StoredHandler): WebhookHandler {
  const out: WebhookHandler = { handler_type: h.handler_type, url: h.url };
  if (h.secret) out.secret = '';
  out.use_secret_for_signing = Boolean(h.use_secret_for_signing);
  if (h.proxy) out.proxy = h.proxy;
  if (h.handler_type === 'webhook') out.custom_http_headers = h.custom_http_headers ?? [];
  else {
    out.method = (h.method ?? 'POST') as WebhookHandler['method'];
    out.http_headers = h.http_headers ?? [];
    out.payload = h.payload ?? '';
  }
  if (h.secrets) out.secrets = h.secrets.map((s) => ({ name: s.name, value: '' }));
  return out;
}

/** The plaintext secrets of a handler at `now`: the signing secrets (current first, then one in its grace period) and the named ones. */
export function openHandlerSecrets(
  h: StoredHandler,
  secrets: Secrets,
  now: number,
): { signing: string[]; named: Record<string, string> } {
  const signing: string[] = [];
  if (h.secret) signing.push(secrets.openSecret(h.secret));
  if (
    h.secret &&
    h.previous_secret &&
    h.previous_secret_expires_at &&
    Date.parse(h.previous_secret_expires_at) > now
  )
    signing.push(secrets.openSecret(h.previous_secret));
  const named: Record<string, string> = {};
  for (const s of h.secrets ?? []) named[s.name] = secrets.openSecret(s.value);
  return { signing, named };
}
