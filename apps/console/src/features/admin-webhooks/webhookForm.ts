import {
  type EventCriteria,
  type EventCriteriaKind,
  type EventDomain,
  type NameValue,
  WEBHOOK_MESSAGES,
  WEBHOOK_NAME_PATTERN,
  type WebhookHandler,
  type WebhookHandlerType,
  type WebhookSubscription,
} from '@granary/contracts';
import type { FormRule } from 'antd';

/** The form's fields (spec 001 §3 "Webhook"); `toSubscription` maps them onto Artifactory's subscription JSON. */
export interface WebhookFormValues {
  key: string;
  description: string;
  enabled: boolean;
  url: string;
  domain: EventDomain | undefined;
  event_types: string[];
  /** repositories: 'anyLocal' | 'anyRemote' | 'anyFederated' */
  repoScope: string[];
  repoKeys: string[];
  anyBuild: boolean;
  selectedBuilds: string[];
  anyReleaseBundle: boolean;
  registeredReleaseBundlesNames: string[];
  includePatterns: string[];
  excludePatterns: string[];
  handler_type: WebhookHandlerType;
  /** '' is the system default. */
  proxy: string;
  secret: string;
  /** Edit: drop the stored secret (sent as `null`). */
  removeSecret: boolean;
  use_secret_for_signing: boolean;
  headers: Partial<NameValue>[];
  method: NonNullable<WebhookHandler['method']>;
  payload: string;
  secrets: Partial<NameValue>[];
}

export const HTTP_METHODS = ['POST', 'PUT', 'PATCH', 'GET', 'DELETE'] as const;
export const REPO_SCOPES = [
  { value: 'anyLocal', label: 'Any local repository' },
  { value: 'anyRemote', label: 'Any remote repository' },
  { value: 'anyFederated', label: 'Any federated repository' },
] as const;

export const EMPTY_FORM: WebhookFormValues = {
  key: '',
  description: '',
  enabled: true,
  url: '',
  domain: undefined,
  event_types: [],
  repoScope: [],
  repoKeys: [],
  anyBuild: false,
  selectedBuilds: [],
  anyReleaseBundle: false,
  registeredReleaseBundlesNames: [],
  includePatterns: [],
  excludePatterns: [],
  handler_type: 'webhook',
  proxy: '',
  secret: '',
  removeSecret: false,
  use_secret_for_signing: false,
  headers: [],
  method: 'POST',
  payload: '',
  secrets: [],
};

const trimmed = (rows: Partial<NameValue>[] | undefined): NameValue[] =>
  (rows ?? []).map((r) => ({ name: (r.name ?? '').trim(), value: r.value ?? '' }));

function criteriaFor(kind: EventCriteriaKind, v: WebhookFormValues): EventCriteria | undefined {
  const patterns = { includePatterns: v.includePatterns ?? [], excludePatterns: v.excludePatterns ?? [] };
  switch (kind) {
    case 'repositories':
      return {
        anyLocal: v.repoScope.includes('anyLocal'),
        anyRemote: v.repoScope.includes('anyRemote'),
        anyFederated: v.repoScope.includes('anyFederated'),
        repoKeys: v.repoKeys ?? [],
        ...patterns,
      };
    case 'builds':
      return v.anyBuild
        ? { anyBuild: true, selectedBuilds: [], includePatterns: [], excludePatterns: [] }
        : { anyBuild: false, selectedBuilds: v.selectedBuilds ?? [], ...patterns };
    case 'releaseBundles':
      return v.anyReleaseBundle
        ? {
            anyReleaseBundle: true,
            registeredReleaseBundlesNames: [],
            includePatterns: [],
            excludePatterns: [],
          }
        : {
            anyReleaseBundle: false,
            registeredReleaseBundlesNames: v.registeredReleaseBundlesNames ?? [],
            ...patterns,
          };
    default:
      return undefined;
  }
}

/** The form as a subscription; `kind` is the chosen domain's criteria kind. */
export function toSubscription(v: WebhookFormValues, kind: EventCriteriaKind): WebhookSubscription {
  const custom = v.handler_type === 'custom-webhook';
  const headers = trimmed(v.headers);
  const handler: WebhookHandler = {
    handler_type: v.handler_type,
    url: (v.url ?? '').trim(),
    secret: v.removeSecret ? (null as unknown as string) : (v.secret ?? ''),
    use_secret_for_signing: v.use_secret_for_signing ?? false,
    ...(v.proxy ? { proxy: v.proxy } : {}),
    ...(custom
      ? { method: v.method, http_headers: headers, payload: v.payload ?? '', secrets: trimmed(v.secrets) }
      : { custom_http_headers: headers }),
  };
  const criteria = criteriaFor(kind, v);
  return {
    key: (v.key ?? '').trim(),
    description: v.description ?? '',
    enabled: v.enabled ?? true,
    event_filter: {
      domain: v.domain as EventDomain,
      event_types: v.event_types ?? [],
      ...(criteria ? { criteria } : {}),
    },
    handlers: [handler],
  };
}

/** A saved subscription as form values (write-only values arrive as `""` and stay so: sending `""` keeps them). */
export function fromSubscription(s: WebhookSubscription): WebhookFormValues {
  const handler = s.handlers[0];
  const c = s.event_filter.criteria ?? {};
  const custom = handler?.handler_type === 'custom-webhook';
  return {
    ...EMPTY_FORM,
    key: s.key,
    description: s.description ?? '',
    enabled: s.enabled,
    url: handler?.url ?? '',
    domain: s.event_filter.domain,
    event_types: s.event_filter.event_types,
    repoScope: REPO_SCOPES.map((o) => o.value).filter((k) => c[k] === true),
    repoKeys: c.repoKeys ?? [],
    anyBuild: c.anyBuild ?? false,
    selectedBuilds: c.selectedBuilds ?? [],
    anyReleaseBundle: c.anyReleaseBundle ?? false,
    registeredReleaseBundlesNames: c.registeredReleaseBundlesNames ?? [],
    includePatterns: c.includePatterns ?? [],
    excludePatterns: c.excludePatterns ?? [],
    handler_type: handler?.handler_type ?? 'webhook',
    proxy: handler?.proxy ?? '',
    secret: '',
    use_secret_for_signing: handler?.use_secret_for_signing ?? false,
    headers: (custom ? handler?.http_headers : handler?.custom_http_headers) ?? [],
    method: handler?.method ?? 'POST',
    payload: handler?.payload ?? '',
    secrets: handler?.secrets ?? [],
  };
}

/** A secret is stored when the answer carries the field (write-only: its value is always `""`). */
export const hasStoredSecret = (s: WebhookSubscription | null) => typeof s?.handlers[0]?.secret === 'string';

// --- spec 001 §5 validation ----------------------------------------------------------------------

const blank = (value: unknown) => typeof value !== 'string' || value.trim() === '';
const fail = (message: string) => Promise.reject(new Error(message));

/** 'This field is mandatory' for an empty text or list. */
export const checkMandatory = (value: unknown): Promise<void> =>
  (Array.isArray(value) ? value.length === 0 : blank(value))
    ? fail(WEBHOOK_MESSAGES.mandatory)
    : Promise.resolve();

export const mandatoryRule: FormRule = { validator: (_r, value: unknown) => checkMandatory(value) };

/** The name (key): mandatory, the name rule, and not another webhook's. */
export function nameRules(takenNames: readonly string[]): FormRule[] {
  return [
    mandatoryRule,
    {
      validator: (_r, value: string | undefined) => {
        const name = (value ?? '').trim();
        if (name === '') return Promise.resolve();
        if (!WEBHOOK_NAME_PATTERN.test(name)) return fail(WEBHOOK_MESSAGES.name);
        if (takenNames.includes(name)) return fail(WEBHOOK_MESSAGES.duplicate);
        return Promise.resolve();
      },
    },
  ];
}

const URL_PROTOCOLS = new Set(['http:', 'https:', 'ftp:']);

/** spec 001 §5: http, https or ftp (private ranges are refused by the server unless allow-listed). */
export function isValidWebhookUrl(value: string): boolean {
  try {
    const url = new URL(value.trim());
    return URL_PROTOCOLS.has(url.protocol) && url.hostname !== '';
  } catch {
    return false;
  }
}

export const urlRules: FormRule[] = [
  mandatoryRule,
  {
    validator: (_r, value: string | undefined) =>
      blank(value) || isValidWebhookUrl(value ?? '') ? Promise.resolve() : fail(WEBHOOK_MESSAGES.url),
  },
];

type RowList = 'headers' | 'secrets';
const rowOf = (getFieldValue: (name: unknown) => unknown, list: RowList, index: number) =>
  (getFieldValue([list, index]) ?? {}) as Partial<NameValue>;

/** A custom header row: both a name and a value (set on the row's name field, re-checked when its value changes). */
export const headerRowRule =
  (index: number): FormRule =>
  ({ getFieldValue }) => ({
    validator: () => {
      const row = rowOf(getFieldValue, 'headers', index);
      return blank(row.name) || blank(row.value) ? fail(WEBHOOK_MESSAGES.header) : Promise.resolve();
    },
  });

/**
 * A secret row: a name, following the name rule. A saved secret's value arrives as `""` and is kept, so a
 * value is not required.
 */
export const secretRowRule =
  (index: number): FormRule =>
  ({ getFieldValue }) => ({
    validator: () => {
      const row = rowOf(getFieldValue, 'secrets', index);
      if (blank(row.name)) return fail(WEBHOOK_MESSAGES.secret);
      if (!WEBHOOK_NAME_PATTERN.test((row.name ?? '').trim())) return fail(WEBHOOK_MESSAGES.secretName);
      return Promise.resolve();
    },
  });

/** A new secret needs its value; a stored one (its name among `storedNames`) keeps its value when left empty. */
export const secretValueRule =
  (index: number, storedNames: readonly string[]): FormRule =>
  ({ getFieldValue }) => ({
    validator: () => {
      const row = rowOf(getFieldValue, 'secrets', index);
      if (!blank(row.value) || blank(row.name) || storedNames.includes((row.name ?? '').trim()))
        return Promise.resolve();
      return fail(WEBHOOK_MESSAGES.mandatory);
    },
  });
