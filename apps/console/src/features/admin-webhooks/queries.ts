import {
  type EventDomainInfo,
  repositoryListItemSchema,
  type WebhookAttempt,
  type WebhookSubscription,
  webhookAttemptSchema,
} from '@granary/contracts';
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { api, restApi } from '../../shared/api/index.ts';

/**
 * spec 001 §7 "Webhooks": subscriptions at `event/api/v1/subscriptions` (Artifactory's JSON), the domain catalogue,
 * the proxies, build names and the build / release bundle pattern previews, all under the console API prefix.
 * Repositories for the criteria picker come from the public repositories list.
 */
const enc = encodeURIComponent;
const SUBSCRIPTIONS = 'event/api/v1/subscriptions';

export const webhookKeys = {
  list: ['admin', 'webhooks'] as const,
  one: (key: string) => ['admin', 'webhooks', key] as const,
  deliveries: (key: string) => ['admin', 'webhooks', key, 'deliveries'] as const,
  domains: ['admin', 'webhooks', 'domains'] as const,
  proxies: ['admin', 'proxies'] as const,
  buildNames: ['admin', 'builds', 'names'] as const,
  releaseBundleNames: ['admin', 'releaseBundles', 'names'] as const,
  buildPatterns: (patterns: string[]) => ['admin', 'builds', 'patterns', patterns] as const,
  releaseBundles: (include: string[], exclude: string[]) =>
    ['admin', 'releaseBundles', 'patterns', include, exclude] as const,
  repositories: ['admin', 'webhooks', 'repositories'] as const,
};

const nameValue = z.object({
  name: z.string(),
  value: z
    .string()
    .nullish()
    .transform((v) => v ?? ''),
});

/** The answer's shape, checked where the console relies on it; other fields pass through. */
const subscriptionSchema = z.looseObject({
  key: z.string(),
  description: z.string().nullish(),
  enabled: z.boolean(),
  event_filter: z.looseObject({
    domain: z.string(),
    event_types: z.array(z.string()),
    criteria: z.looseObject({}).nullish(),
  }),
  handlers: z.array(
    z.looseObject({
      handler_type: z.enum(['webhook', 'custom-webhook']),
      url: z.string(),
      secret: z.string().nullish(),
      use_secret_for_signing: z.boolean().nullish(),
      proxy: z.string().nullish(),
      custom_http_headers: z.array(nameValue).nullish(),
      http_headers: z.array(nameValue).nullish(),
      method: z.string().nullish(),
      payload: z.string().nullish(),
      secrets: z.array(nameValue).nullish(),
    }),
  ),
  disabled_reason: z.string().nullish(),
  last_delivery: z
    .looseObject({
      id: z.string(),
      status: z.string(),
      response_status: z.number().nullish(),
      at: z.string(),
    })
    .nullish(),
});
const asSubscription = (s: z.output<typeof subscriptionSchema>) => s as unknown as WebhookSubscription;

const domainSchema = z.looseObject({
  domain: z.string(),
  title: z.string(),
  event_types: z.array(z.object({ type: z.string(), title: z.string() })),
  criteria: z.enum(['repositories', 'builds', 'releaseBundles', 'none']),
  available: z.boolean(),
  note: z.string().nullish(),
});

/** A list answered bare, or wrapped in an object under one of `keys` (Artifactory answers both ways). */
function namesFrom(json: unknown, keys: string[]): string[] {
  let list: unknown = json;
  if (!Array.isArray(list) && typeof list === 'object' && list !== null) {
    const record = list as Record<string, unknown>;
    list = keys.map((k) => record[k]).find(Array.isArray) ?? [];
  }
  if (!Array.isArray(list)) return [];
  const names = list.flatMap((item: unknown) => {
    if (typeof item === 'string') return [item];
    if (typeof item === 'object' && item !== null) {
      const r = item as Record<string, unknown>;
      const name = r.key ?? r.name ?? r.buildName ?? r.release_bundle_name;
      return typeof name === 'string' ? [name] : [];
    }
    return [];
  });
  return [...new Set(names)].sort((a, b) => a.localeCompare(b));
}

// --- subscriptions -------------------------------------------------------------------------------

export const webhooksQueryOptions = () =>
  queryOptions({
    queryKey: webhookKeys.list,
    queryFn: async ({ signal }) =>
      (await api.get(SUBSCRIPTIONS, z.array(subscriptionSchema), { signal })).map(asSubscription),
  });

export const webhookQueryOptions = (key: string) =>
  queryOptions({
    queryKey: webhookKeys.one(key),
    queryFn: async ({ signal }) =>
      asSubscription(await api.get(`${SUBSCRIPTIONS}/${enc(key)}`, subscriptionSchema, { signal })),
  });

/** What a subscription is sent as: the answer-only fields dropped. */
function writable(
  subscription: WebhookSubscription,
): Omit<WebhookSubscription, 'last_delivery' | 'disabled_reason'> {
  const { last_delivery: _l, disabled_reason: _d, ...rest } = subscription;
  return rest;
}

/** POST creates; PUT `{key}` updates, with the key removed from the body (spec 001 §7). */
export function useSaveWebhookMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ subscription, create }: { subscription: WebhookSubscription; create: boolean }) => {
      if (create) return api.post(SUBSCRIPTIONS, writable(subscription));
      const { key, ...body } = writable(subscription);
      return api.put(`${SUBSCRIPTIONS}/${enc(key)}`, body);
    },
    onSuccess: (_data, { subscription }) =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: webhookKeys.list, exact: true }),
        queryClient.invalidateQueries({ queryKey: webhookKeys.one(subscription.key) }),
      ]),
  });
}

/** The list's enabled toggle: the subscription as answered (secrets `""` keep what is stored), enabled changed. */
export function useToggleWebhookMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ subscription, enabled }: { subscription: WebhookSubscription; enabled: boolean }) => {
      const { key, ...body } = writable(subscription);
      return api.put(`${SUBSCRIPTIONS}/${enc(key)}`, { ...body, enabled });
    },
    onSuccess: (_data, { subscription }) =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: webhookKeys.list, exact: true }),
        queryClient.invalidateQueries({ queryKey: webhookKeys.one(subscription.key) }),
      ]),
  });
}

export function useDeleteWebhookMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (key: string) => api.delete(`${SUBSCRIPTIONS}/${enc(key)}`),
    onSuccess: (_data, key) => {
      queryClient.removeQueries({ queryKey: webhookKeys.one(key) });
      return queryClient.invalidateQueries({ queryKey: webhookKeys.list, exact: true });
    },
  });
}

/**
 * spec 001 §7/§8: sends a real dummy event to the subscription as the form holds it, saved or not. Resolves on
 * 200; a 502/504 (the receiver failed or timed out) or any other answer rejects with the server's ApiError, and a
 * request that could not be made rejects with status 0.
 */
export function useTestWebhookMutation() {
  return useMutation({
    mutationFn: (subscription: WebhookSubscription) =>
      api.post(`${SUBSCRIPTIONS}/test`, writable(subscription)),
  });
}

// --- delivery log --------------------------------------------------------------------------------

export const deliveriesQueryOptions = (key: string) =>
  queryOptions({
    queryKey: webhookKeys.deliveries(key),
    queryFn: async ({ signal }) => {
      const answer = await api.get(
        `${SUBSCRIPTIONS}/${enc(key)}/deliveries`,
        z.object({ attempts: z.array(webhookAttemptSchema) }),
        { signal },
      );
      return answer.attempts as unknown as WebhookAttempt[];
    },
  });

export function useRedeliverMutation(key: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (deliveryId: string) =>
      api.post(`${SUBSCRIPTIONS}/${enc(key)}/deliveries/${enc(deliveryId)}/redeliver`),
    onSuccess: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: webhookKeys.deliveries(key) }),
        queryClient.invalidateQueries({ queryKey: webhookKeys.list, exact: true }),
      ]),
  });
}

// --- what the form picks from --------------------------------------------------------------------

export const domainsQueryOptions = () =>
  queryOptions({
    queryKey: webhookKeys.domains,
    queryFn: async ({ signal }) =>
      (await api.get('event/api/v1/domains', z.array(domainSchema), { signal })) as EventDomainInfo[],
    staleTime: Number.POSITIVE_INFINITY,
  });

/** Proxy keys from the proxies configuration (`ui/proxies`). */
export const proxiesQueryOptions = () =>
  queryOptions({
    queryKey: webhookKeys.proxies,
    queryFn: async ({ signal }) =>
      namesFrom(await api.get('ui/proxies', z.unknown(), { signal }), ['proxies']),
  });

export const buildNamesQueryOptions = () =>
  queryOptions({
    queryKey: webhookKeys.buildNames,
    queryFn: async ({ signal }) =>
      namesFrom(await api.get('ui/builds/names', z.unknown(), { signal }), ['names', 'builds', 'results']),
  });

/** The builds the include patterns match (`POST ui/permissiontargets/buildPatterns`, response `builds`). */
export const buildPatternsQueryOptions = (includePatterns: string[]) =>
  queryOptions({
    queryKey: webhookKeys.buildPatterns(includePatterns),
    queryFn: async ({ signal }) =>
      namesFrom(
        await api.post('ui/permissiontargets/buildPatterns', { includePatterns }, z.unknown(), { signal }),
        ['builds'],
      ),
    enabled: includePatterns.length > 0,
  });

export const releaseBundleNamesQueryOptions = () =>
  queryOptions({
    queryKey: webhookKeys.releaseBundleNames,
    queryFn: async ({ signal }) =>
      namesFrom(await api.get('ui/releaseBundles/names', z.unknown(), { signal }), ['names', 'bundles']),
  });

/** Release bundles the patterns match (`POST ui/permissiontargets/releaseBundles` with the release-bundles repository, response `bundles`). */
export const releaseBundlesQueryOptions = (includePatterns: string[], excludePatterns: string[] = []) =>
  queryOptions({
    queryKey: webhookKeys.releaseBundles(includePatterns, excludePatterns),
    queryFn: async ({ signal }) =>
      namesFrom(
        await api.post(
          'ui/permissiontargets/releaseBundles',
          { repositories: ['release-bundles'], includePatterns, excludePatterns },
          z.unknown(),
          { signal },
        ),
        ['bundles'],
      ),
    enabled: includePatterns.length > 0,
  });

/** Local, remote and federated repositories (events come from where bytes are stored). */
export const repositoriesQueryOptions = () =>
  queryOptions({
    queryKey: webhookKeys.repositories,
    queryFn: async ({ signal }) =>
      (await restApi.get('repositories', z.array(repositoryListItemSchema), { signal })).filter(
        (r) => r.type.toUpperCase() !== 'VIRTUAL',
      ),
  });
