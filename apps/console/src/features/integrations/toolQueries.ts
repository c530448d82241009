import { repositoryListItemSchema, setMeUpSchema } from '@granary/contracts';
import { queryOptions } from '@tanstack/react-query';
import { z } from 'zod';
import { api, restApi } from '../../shared/api/index.ts';
import { normaliseBaseUrl } from './toolCards.ts';

/** spec 001 §7 `GET set-me-up` (response baseUrl, trailing slash normalised). */
export const setMeUpBaseUrlQueryOptions = () =>
  queryOptions({
    queryKey: ['integrations', 'set-me-up', 'baseUrl'] as const,
    queryFn: async ({ signal }) =>
      normaliseBaseUrl((await api.get('ui/setMeUp', setMeUpSchema, { signal })).baseUrl),
    staleTime: Number.POSITIVE_INFINITY,
  });

/** The npm repositories the user may read, for the CI cards' commands (virtual ones first: they aggregate). */
export const npmRepositoriesQueryOptions = () =>
  queryOptions({
    queryKey: ['integrations', 'npm-repositories'] as const,
    queryFn: async ({ signal }) => {
      const all = await restApi.get('repositories', z.array(repositoryListItemSchema), {
        signal,
        query: { packageType: 'npm' },
      });
      const order = (t: string) => ['VIRTUAL', 'REMOTE', 'LOCAL'].indexOf(t.toUpperCase());
      return all
        .filter((r) => r.packageType.toLowerCase() === 'npm')
        .sort((a, b) => order(a.type) - order(b.type) || a.key.localeCompare(b.key))
        .map((r) => r.key);
    },
  });
