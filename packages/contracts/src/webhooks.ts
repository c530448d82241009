import { z } from 'zod';

// Events and webhooks (issue 14, spec 001 §3 "Webhook", §5, §7 "Webhooks", §8). The subscription
// JSON is Artifactory's (`/event/api/v1/subscriptions`), so scripts and the Terraform provider
// written for it work unchanged; the console's form maps onto it.

/** Spec 001 §3: the thirteen event groups, in the spec's order. */
export const EVENT_DOMAINS = [
  'docker',
  'artifact',
  'artifact_property',
  'build',
  'distribution',
  'release_bundle',
  'artifactory_release_bundle',
  'artifact_lifecycle',
  'destination',
  'policy',
  'bundle',
  'promotion',
  'user',
] as const;
export type EventDomain = (typeof EVENT_DOMAINS)[number];

/** What a domain's subscriptions are filtered by (its `criteria`). */
export type EventCriteriaKind = 'repositories' | 'builds' | 'releaseBundles' | 'none';

export interface EventDomainInfo {
  domain: EventDomain;
  /** Shown in the console's event picker. */
  title: string;
  event_types: { type: string; title: string }[];
  criteria: EventCriteriaKind;
  /** False while nothing in this server produces the domain's events yet (`note` says which issue brings them). */
  available: boolean;
  note?: string;
}

/**
 * The catalogue `GET event/api/v1/domains` answers: every domain with its event types. The server's
 * outbox type of an event is `${domain}.${event_type}` (e.g. `artifact.deployed`).
 */
export const EVENT_CATALOG: readonly EventDomainInfo[] = [
  {
    domain: 'docker',
    title: 'Docker',
    criteria: 'repositories',
    available: true,
    event_types: [
      { type: 'pushed', title: 'Docker tag was pushed' },
      { type: 'deleted', title: 'Docker tag was deleted' },
    ],
  },
  {
    domain: 'artifact',
    title: 'Artifacts',
    criteria: 'repositories',
    available: true,
    event_types: [
      { type: 'deployed', title: 'Artifact was deployed' },
      { type: 'deleted', title: 'Artifact was deleted' },
      { type: 'moved', title: 'Artifact was moved' },
      { type: 'copied', title: 'Artifact was copied' },
      { type: 'cached', title: 'Artifact was cached' },
    ],
  },
  {
    domain: 'artifact_property',
    title: 'Artifact properties',
    criteria: 'repositories',
    available: true,
    event_types: [
      { type: 'added', title: 'Property was added' },
      { type: 'deleted', title: 'Property was deleted' },
    ],
  },
  {
    domain: 'build',
    title: 'Builds',
    criteria: 'builds',
    available: true,
    event_types: [
      { type: 'uploaded', title: 'Build was uploaded' },
      { type: 'deleted', title: 'Build was deleted' },
      { type: 'promoted', title: 'Build was promoted' },
    ],
  },
  {
    domain: 'distribution',
    title: 'Distribution',
    criteria: 'releaseBundles',
    available: true,
    event_types: [
      { type: 'distribute_started', title: 'Distribution started' },
      { type: 'distribute_completed', title: 'Distribution completed' },
      { type: 'distribute_aborted', title: 'Distribution aborted' },
      { type: 'distribute_failed', title: 'Distribution failed' },
      { type: 'delete_started', title: 'Deletion started' },
      { type: 'delete_completed', title: 'Deletion completed' },
      { type: 'delete_failed', title: 'Deletion failed' },
    ],
  },
  {
    domain: 'release_bundle',
    title: 'Release bundles',
    criteria: 'releaseBundles',
    available: true,
    event_types: [
      { type: 'created', title: 'Release bundle was created' },
      { type: 'signed', title: 'Release bundle was signed' },
      { type: 'deleted', title: 'Release bundle was deleted' },
    ],
  },
  {
    domain: 'artifactory_release_bundle',
    title: 'Received release bundles',
    criteria: 'releaseBundles',
    available: false,
    // Produced since issue 19 (a received bundle, its deletion); offered once the catalogue test has a producer
    // for them (a second server that receives a bundle).
    note: 'Not offered yet: received bundles are listed under Release Bundles, Target.',
    event_types: [
      { type: 'received', title: 'Release bundle was received' },
      { type: 'delete_started', title: 'Deletion started' },
      { type: 'delete_completed', title: 'Deletion completed' },
      { type: 'delete_failed', title: 'Deletion failed' },
    ],
  },
  {
    domain: 'artifact_lifecycle',
    title: 'Artifact lifecycle',
    criteria: 'repositories',
    available: true,
    event_types: [
      { type: 'archived', title: 'Artifact was archived' },
      { type: 'restored', title: 'Artifact was restored' },
    ],
  },
  {
    domain: 'destination',
    title: 'Destinations',
    criteria: 'releaseBundles',
    available: false,
    // Produced since issue 19 (a received bundle, its deletion); offered once the catalogue test has a producer
    // for them (a second server that receives a bundle).
    note: 'Not offered yet: received bundles are listed under Release Bundles, Target.',
    event_types: [
      { type: 'received', title: 'Release bundle was received' },
      { type: 'delete_started', title: 'Deletion started' },
      { type: 'delete_completed', title: 'Deletion completed' },
      { type: 'delete_failed', title: 'Deletion failed' },
    ],
  },
  {
    domain: 'policy',
    title: 'Security policies',
    criteria: 'none',
    available: true,
    event_types: [{ type: 'violation', title: 'Policy was violated' }],
  },
  {
    domain: 'bundle',
    title: 'Bundles',
    criteria: 'releaseBundles',
    available: false,
    // Release Bundles v1 (Distribution's own bundles): Granary has release bundles (v2) only.
    note: 'Granary has no v1 bundles: subscribe to Release bundles.',
    event_types: [
      { type: 'created', title: 'Bundle was created' },
      { type: 'deleted', title: 'Bundle was deleted' },
    ],
  },
  {
    domain: 'promotion',
    title: 'Promotions',
    criteria: 'builds',
    available: true,
    event_types: [{ type: 'promoted', title: 'Build or bundle was promoted' }],
  },
  {
    domain: 'user',
    title: 'Users',
    criteria: 'none',
    available: true,
    event_types: [
      { type: 'created', title: 'User was created' },
      { type: 'deleted', title: 'User was deleted' },
      { type: 'locked', title: 'User was locked out' },
    ],
  },
];

/** Spec 001 §3: handler types. */
export const WEBHOOK_HANDLER_TYPES = ['webhook', 'custom-webhook'] as const;
export type WebhookHandlerType = (typeof WEBHOOK_HANDLER_TYPES)[number];

export interface NameValue {
  name: string;
  /** Write-only for secrets: answers carry `""` (never the value). */
  value: string;
}

/** Which repositories / builds / release bundles a subscription's events come from (Artifactory's `criteria`). */
export interface EventCriteria {
  /** repositories */
  anyLocal?: boolean;
  anyRemote?: boolean;
  anyFederated?: boolean;
  repoKeys?: string[];
  /** builds */
  anyBuild?: boolean;
  selectedBuilds?: string[];
  /** release bundles */
  anyReleaseBundle?: boolean;
  registeredReleaseBundlesNames?: string[];
  /** environments (distribution, destination) */
  anyEnvironment?: boolean;
  environments?: string[];
  /** Ant patterns on the artifact path (repositories) or the build / bundle name. */
  includePatterns?: string[];
  excludePatterns?: string[];
}

export interface WebhookHandler {
  handler_type: WebhookHandlerType;
  url: string;
  /** webhook: the secret (write-only: answers carry `""` when one is set). */
  secret?: string;
  use_secret_for_signing?: boolean;
  /** A proxy key from the proxies configuration; absent: the system default. */
  proxy?: string;
  /** webhook */
  custom_http_headers?: NameValue[];
  /** custom-webhook */
  method?: 'POST' | 'PUT' | 'PATCH' | 'GET' | 'DELETE';
  http_headers?: NameValue[];
  /** custom-webhook: the body template; `{{.data.path}}`-style fields of the event, `{{.secrets.NAME}}` by name. */
  payload?: string;
  /** custom-webhook: values write-only. */
  secrets?: NameValue[];
}

/** A subscription as `event/api/v1/subscriptions` takes and answers it. */
export interface WebhookSubscription {
  key: string;
  description?: string;
  enabled: boolean;
  event_filter: {
    domain: EventDomain;
    event_types: string[];
    criteria?: EventCriteria;
  };
  handlers: WebhookHandler[];
  /** Answers only: why the server disabled it (e.g. the receiver answered 410 Gone), and when. */
  disabled_reason?: string | null;
  /** Answers only: the last delivery's outcome. */
  last_delivery?: WebhookDeliverySummary | null;
}

export type WebhookDeliveryStatus = 'pending' | 'retrying' | 'delivered' | 'failed';

export interface WebhookDeliverySummary {
  id: string;
  status: WebhookDeliveryStatus;
  /** HTTP status of the last attempt, if the receiver answered. */
  response_status?: number | null;
  at: string;
}

/** One attempt in a subscription's delivery log, as the server answers it and the console reads it. */
export const webhookAttemptSchema = z.object({
  id: z.string(),
  delivery_id: z.string(),
  event_id: z.string(),
  domain: z.string(),
  event_type: z.string(),
  test: z.boolean(),
  attempt: z.number(),
  started_at: z.string(),
  duration_ms: z.number(),
  request: z.object({
    method: z.string(),
    url: z.string(),
    headers: z.record(z.string(), z.string()),
    body: z.string(),
  }),
  response: z
    .object({ status: z.number(), headers: z.record(z.string(), z.string()), body: z.string() })
    .nullish(),
  error: z.string().nullish(),
});

/** One attempt in a subscription's delivery log. */
export interface WebhookAttempt {
  id: string;
  delivery_id: string;
  event_id: string;
  domain: string;
  event_type: string;
  /** A test (`POST subscriptions/test`) rather than a real event. */
  test: boolean;
  attempt: number;
  started_at: string;
  duration_ms: number;
  request: { method: string; url: string; headers: Record<string, string>; body: string };
  response?: { status: number; headers: Record<string, string>; body: string } | null;
  error?: string | null;
}

/** `GET event/api/v1/subscriptions/{key}/deliveries?limit=&offset=`: attempts newest first (limit default 50, at most 500). */
export interface WebhookAttemptPage {
  attempts: WebhookAttempt[];
  /** All attempts in the subscription's log (kept 30 days). */
  total: number;
  limit: number;
  offset: number;
}

/** The one shape of every predefined delivery's body. */
export interface WebhookEventBody {
  domain: string;
  event_type: string;
  data: Record<string, unknown>;
  subscription_key: string;
  source: string;
  timestamp: string;
  id: string;
}

/** Spec 001 §5. */
export const WEBHOOK_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_-]+$/;
export const WEBHOOK_MESSAGES = {
  name: 'Name cannot contain special characters',
  secretName: 'A secret name cannot contain special characters',
  mandatory: 'This field is mandatory',
  duplicate: 'This name already exist',
  url: 'Enter a valid URL',
  header: 'Header must contain name and value',
  secret: 'A Secret must contain name',
  testSuccess: 'A dummy hook was executed and sent to the configured URL',
  testFailure: 'Sending a dummy Webhook failed',
  testUnreachable: 'Request failed, unable to test Webhook.',
} as const;
