import {
  archiveRestoreAnswerSchema,
  archiveSearchAnswerSchema,
  RETENTION_STATUS_FAILURE,
  RETENTION_STATUS_MAX_ATTEMPTS,
  type RetentionPolicyInput,
  repositoryListItemSchema,
  retentionDryRunSchema,
  retentionEnableSchema,
  retentionPoliciesSchema,
  retentionPolicySchema,
} from '@granary/contracts';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { App } from 'antd';
import { useEffect } from 'react';
import { z } from 'zod';
import { api, isApiError, restApi } from '../../shared/api/index.ts';
import { useSession } from '../../shared/session/SessionProvider.tsx';

/**
 * Issue 21 cleanup and retention policies (`/api/retention/policies`), the Archive search and restore
 * (`/api/retention/archive/…`), and spec 001 §7 `GET bundle retention config enable`.
 */
const POLICIES = 'retention/policies';
const enc = encodeURIComponent;

export const retentionKeys = {
  policies: ['admin', 'retention', 'policies'] as const,
  policy: (id: string) => ['admin', 'retention', 'policies', id] as const,
  status: (admin: boolean) => ['retention', 'enable', admin] as const,
  archive: (params: ArchiveSearchParams) => ['retention', 'archive', params] as const,
  repositories: ['admin', 'retention', 'repositories'] as const,
};

export const policiesQueryOptions = () =>
  queryOptions({
    queryKey: retentionKeys.policies,
    queryFn: async ({ signal }) =>
      (await restApi.get(POLICIES, retentionPoliciesSchema, { signal })).policies,
  });

export const policyQueryOptions = (id: string) =>
  queryOptions({
    queryKey: retentionKeys.policy(id),
    queryFn: ({ signal }) => restApi.get(`${POLICIES}/${enc(id)}`, retentionPolicySchema, { signal }),
  });

/** Local repositories: policies remove only what is stored there. */
export const localRepositoriesQueryOptions = () =>
  queryOptions({
    queryKey: retentionKeys.repositories,
    queryFn: async ({ signal }) =>
      (await restApi.get('repositories', z.array(repositoryListItemSchema), { signal })).filter(
        (r) => r.type.toUpperCase() === 'LOCAL',
      ),
  });

export function useSavePolicyMutation(id?: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: RetentionPolicyInput) =>
      id
        ? restApi.put(`${POLICIES}/${enc(id)}`, body, retentionPolicySchema)
        : restApi.post(POLICIES, body, retentionPolicySchema),
    onSuccess: () => client.invalidateQueries({ queryKey: retentionKeys.policies }),
  });
}

export function useDeletePolicyMutation() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => restApi.delete(`${POLICIES}/${enc(id)}`),
    onSuccess: () => client.invalidateQueries({ queryKey: retentionKeys.policies }),
  });
}

export function useDryRunMutation() {
  return useMutation({
    mutationFn: (id: string) =>
      restApi.post(`${POLICIES}/${enc(id)}/dry-run`, undefined, retentionDryRunSchema),
  });
}

export function useRunNowMutation() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) =>
      restApi.post(`${POLICIES}/${enc(id)}/run`, undefined, z.object({ queued: z.boolean() })),
    onSuccess: () => client.invalidateQueries({ queryKey: retentionKeys.policies }),
  });
}

export interface ArchiveSearchParams {
  q: string;
  repo: string;
  from: string;
  to: string;
}

export const archiveSearchQueryOptions = (params: ArchiveSearchParams) =>
  queryOptions({
    queryKey: retentionKeys.archive(params),
    queryFn: ({ signal }) => {
      const search = new URLSearchParams(
        Object.entries(params).filter(([, v]) => v !== '') as [string, string][],
      ).toString();
      return restApi.get(`retention/archive/search?${search}`, archiveSearchAnswerSchema, { signal });
    },
  });

export function useRestoreMutation() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (ids: string[]) =>
      restApi.post('retention/archive/restore', { ids }, archiveRestoreAnswerSchema),
    onSuccess: () => client.invalidateQueries({ queryKey: ['retention', 'archive'] }),
  });
}

/** spec 001 §8: the info notification after the last failed attempt. */
export const retentionStatusFailure = (message: string) =>
  RETENTION_STATUS_FAILURE.replace('{message}', message);

/**
 * spec 001 §4/§6/§9 retention feature flag: false for non-admins (not asked); up to 3 attempts; a 404
 * means disabled.
 */
export const retentionStatusQueryOptions = (admin: boolean) =>
  queryOptions({
    queryKey: retentionKeys.status(admin),
    queryFn: async ({ signal }) => {
      if (!admin) return false;
      try {
        return (await api.get('retention/config/enable', retentionEnableSchema, { signal })).enable;
      } catch (error) {
        if (isApiError(error) && error.status === 404) return false;
        throw error;
      }
    },
    retry: (failures) => failures < RETENTION_STATUS_MAX_ATTEMPTS - 1,
    retryDelay: 500,
    staleTime: 5 * 60_000,
  });

/** The retention feature (the archive) is on; after the last failed attempt an info notification says why not. */
export function useRetentionEnabled(): { enabled: boolean; isPending: boolean } {
  const admin = useSession().user?.admin ?? false;
  const status = useQuery(retentionStatusQueryOptions(admin));
  const { notification } = App.useApp();
  const failure = status.error?.message;
  useEffect(() => {
    if (failure !== undefined) notification.info({ title: retentionStatusFailure(failure) });
  }, [failure, notification]);
  return { enabled: status.data === true, isPending: status.isPending };
}
