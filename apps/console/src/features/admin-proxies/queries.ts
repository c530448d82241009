import {
  type ProxyInfo,
  type ProxyWrite,
  proxySchema,
  type ReverseProxySettings,
  type ReverseProxySettingsInput,
  reverseProxyAnswerSchema,
} from '@granary/contracts';
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { api } from '../../shared/api/index.ts';

/**
 * Outbound proxies and the reverse proxy settings (issue 15): `ui/proxies` (list, create, one, replace,
 * delete) and `ui/reverseProxies` with its generated nginx snippet, under the console API prefix.
 */
const enc = encodeURIComponent;

export const proxyKeys = {
  /** Everything proxy-related (the webhook form's proxy names too: `['admin', 'proxies']`). */
  all: ['admin', 'proxies'] as const,
  list: ['admin', 'proxies', 'list'] as const,
  one: (key: string) => ['admin', 'proxies', 'one', key] as const,
  reverse: ['admin', 'proxies', 'reverse'] as const,
  snippet: ['admin', 'proxies', 'reverse', 'snippet'] as const,
};

const reverseProxySchema = reverseProxyAnswerSchema.loose();

export const proxiesQueryOptions = () =>
  queryOptions({
    queryKey: proxyKeys.list,
    queryFn: async ({ signal }) =>
      (await api.get('ui/proxies', z.array(proxySchema), { signal })) as ProxyInfo[],
  });

export const proxyQueryOptions = (key: string) =>
  queryOptions({
    queryKey: proxyKeys.one(key),
    queryFn: async ({ signal }) =>
      (await api.get(`ui/proxies/${enc(key)}`, proxySchema, { signal })) as ProxyInfo,
  });

export function useSaveProxyMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ proxy, create }: { proxy: ProxyWrite & { key: string }; create: boolean }) =>
      create ? api.post('ui/proxies', proxy) : api.put(`ui/proxies/${enc(proxy.key)}`, proxy),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: proxyKeys.all }),
  });
}

export function useDeleteProxyMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (key: string) =>
      api.delete(
        `ui/proxies/${enc(key)}`,
        z.object({ key: z.string(), cleared: z.array(z.object({ kind: z.string(), name: z.string() })) }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: proxyKeys.all }),
  });
}

export const reverseProxyQueryOptions = () =>
  queryOptions({
    queryKey: proxyKeys.reverse,
    queryFn: async ({ signal }) =>
      (await api.get('ui/reverseProxies', reverseProxySchema, { signal })) as ReverseProxySettings,
  });

export const snippetQueryOptions = () =>
  queryOptions({
    queryKey: proxyKeys.snippet,
    queryFn: async ({ signal }) =>
      (await api.get('ui/reverseProxies/snippet', z.object({ snippet: z.string() }), { signal })).snippet,
  });

export function useSaveReverseProxyMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (settings: ReverseProxySettingsInput) => api.put('ui/reverseProxies', settings),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: proxyKeys.reverse }),
  });
}
