import {
  packageTypeInfoSchema,
  type RepositoryWrite,
  repositoryListItemSchema,
  repositorySchema,
} from '@granary/contracts';
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { api, restApi } from '../../shared/api/index.ts';

/**
 * Repository configuration through the public REST API (`/api/repositories`, DESIGN.md "Public REST API"):
 * spec 000 §7 names no console call for it. The package types come from `ui/packagetypes`.
 */
const enc = encodeURIComponent;

export const repoAdminKeys = {
  list: ['admin', 'repositories'] as const,
  one: (key: string) => ['admin', 'repositories', key] as const,
  packageTypes: ['admin', 'packageTypes'] as const,
};

export const repositoryListQueryOptions = () =>
  queryOptions({
    queryKey: repoAdminKeys.list,
    queryFn: ({ signal }) => restApi.get('repositories', z.array(repositoryListItemSchema), { signal }),
  });

export const repositoryQueryOptions = (key: string) =>
  queryOptions({
    queryKey: repoAdminKeys.one(key),
    queryFn: ({ signal }) => restApi.get(`repositories/${enc(key)}`, repositorySchema, { signal }),
  });

export const packageTypesQueryOptions = () =>
  queryOptions({
    queryKey: repoAdminKeys.packageTypes,
    queryFn: ({ signal }) => api.get('ui/packagetypes', z.array(packageTypeInfoSchema), { signal }),
    staleTime: Number.POSITIVE_INFINITY,
  });

function useInvalidate() {
  const queryClient = useQueryClient();
  // The tree browser lists repositories too.
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: repoAdminKeys.list }),
      queryClient.invalidateQueries({ queryKey: ['tree'] }),
    ]);
}

/** PUT creates (201), POST updates only the fields sent. */
export function useSaveRepositoryMutation() {
  const invalidate = useInvalidate();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ key, body, create }: { key: string; body: RepositoryWrite; create: boolean }) =>
      create
        ? restApi.put(`repositories/${enc(key)}`, body, repositorySchema)
        : restApi.post(`repositories/${enc(key)}`, body, repositorySchema),
    onSuccess: async (repo) => {
      queryClient.setQueryData(repoAdminKeys.one(repo.key), repo);
      await invalidate();
    },
  });
}

export function useDeleteRepositoryMutation() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (key: string) => restApi.delete(`repositories/${enc(key)}`),
    onSuccess: invalidate,
  });
}
