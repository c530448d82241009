import {
  repositoryQuotaSchema,
  storageGcResultSchema,
  storageGcStatusSchema,
  storageHistorySchema,
  storageSummarySchema,
} from '@granary/contracts';
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../shared/api/index.ts';

/**
 * The storage page (issue 21): the storage summary and its daily history, the blob GC (status, dry run, run
 * now) and a repository's quota. All under the console API prefix; the server checks admin on each.
 */
const enc = encodeURIComponent;

export const storageKeys = {
  all: ['storage'] as const,
  summary: ['storage', 'summary'] as const,
  history: (days: number) => ['storage', 'history', days] as const,
  gc: ['storage', 'gc'] as const,
  quota: (repoKey: string) => ['storage', 'quota', repoKey] as const,
};

export const storageSummaryQueryOptions = () =>
  queryOptions({
    queryKey: storageKeys.summary,
    queryFn: ({ signal }) => api.get('ui/storagesummary', storageSummarySchema, { signal }),
  });

export const storageHistoryQueryOptions = (days: number) =>
  queryOptions({
    queryKey: storageKeys.history(days),
    queryFn: ({ signal }) =>
      api.get('ui/storagesummary/history', storageHistorySchema, { signal, query: { days } }),
  });

/** The GC's status, polled every 2 s while a run is going. */
export const gcStatusQueryOptions = () =>
  queryOptions({
    queryKey: storageKeys.gc,
    queryFn: ({ signal }) => api.get('storage/gc', storageGcStatusSchema, { signal }),
    refetchInterval: (query) => (query.state.data?.running ? 2000 : false),
  });

/** Dry run (only counts) or run now; answers what it reclaimed. */
export function useRunGcMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (dryRun: boolean) =>
      api.post('storage/gc', undefined, storageGcResultSchema, { query: { dryRun: dryRun || undefined } }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: storageKeys.all }),
  });
}

export const repositoryQuotaQueryOptions = (repoKey: string) =>
  queryOptions({
    queryKey: storageKeys.quota(repoKey),
    queryFn: ({ signal }) =>
      api.get(`storage/quotas/repositories/${enc(repoKey)}`, repositoryQuotaSchema, { signal }),
  });

export function useSetQuotaMutation(repoKey: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (quotaBytes: number | null) =>
      api.put(`storage/quotas/repositories/${enc(repoKey)}`, { quotaBytes }, repositoryQuotaSchema),
    onSuccess: (answer) => {
      queryClient.setQueryData(storageKeys.quota(repoKey), answer);
      return queryClient.invalidateQueries({ queryKey: storageKeys.summary });
    },
  });
}
