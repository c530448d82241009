import { HIDDEN_REPOSITORY_TYPES, repositoryListItemSchema, setMeUpSchema } from '@granary/contracts';
import { queryOptions } from '@tanstack/react-query';
import { z } from 'zod';
import { api, restApi } from '../api/index.ts';

/**
 * Repository calls used by more than one feature (the tree browser, Set Me Up from the user menu and onboarding):
 * the repositories the caller can read and a repository's Set Me Up. Their keys sit under `['tree']`, so the tree
 * browser's invalidation of everything it shows covers them.
 */
export const sharedRepositoryKeys = {
  repositories: ['tree', 'repositories'] as const,
  setMeUp: (repo: string) => ['tree', 'setMeUp', repo] as const,
};

/** `GET /api/repositories`: the repositories the caller can read (the server lists only those). */
export const repositoriesQueryOptions = () =>
  queryOptions({
    queryKey: sharedRepositoryKeys.repositories,
    queryFn: async ({ signal }) => {
      const all = await restApi.get('repositories', z.array(repositoryListItemSchema), { signal });
      // spec 000 §9 / 001 §3: hidden repository types never show in a listing.
      const hidden: readonly string[] = HIDDEN_REPOSITORY_TYPES;
      return all.filter((r) => !hidden.includes(r.packageType.toLowerCase()));
    },
  });

/** spec 000 §7 `GET ui/setMeUp?repoKey`: the repository's URL and its format's client snippets for the caller. */
export const setMeUpQueryOptions = (repo: string) =>
  queryOptions({
    queryKey: sharedRepositoryKeys.setMeUp(repo),
    queryFn: ({ signal }) => api.get('ui/setMeUp', setMeUpSchema, { signal, query: { repoKey: repo } }),
  });
