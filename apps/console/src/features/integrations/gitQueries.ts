import {
  GIT_VENDOR_DEFAULT_URLS,
  GIT_VENDOR_DISPLAY_NAMES,
  type GitIntegrationForm,
  type GitVendorName,
  gitIntegrationSchema,
  integrationGroupSchema,
  type RepositorySelection,
  repositoryScanSchema,
  testConnectionResultSchema,
  vcsRepositorySchema,
} from '@granary/contracts';
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { api } from '../../shared/api/index.ts';
import { useSession } from '../../shared/session/SessionProvider.tsx';

/**
 * spec 001 §7 "Integrations" (issue 18): the git integrations of the console API (packages/contracts/src/
 * integrations.ts). Admins only; the server checks every call.
 */
const enc = encodeURIComponent;

export const VENDOR_DISPLAY_NAMES = GIT_VENDOR_DISPLAY_NAMES;
export const DEFAULT_VENDOR_URL = GIT_VENDOR_DEFAULT_URLS;

/** What the modal's form holds (the vendor id added on send). */
export type GitFormValues = GitIntegrationForm;

export const gitKeys = {
  all: ['integrations', 'git'] as const,
  groups: ['integrations', 'git', 'groups'] as const,
  repositories: (key: string) => ['integrations', 'git', 'repositories', key] as const,
  scans: (key: string) => ['integrations', 'git', 'scans', key] as const,
};

/** `GET integrations`: the groups; the git group carries `available` and the vendor items. */
export const integrationGroupsQueryOptions = () =>
  queryOptions({
    queryKey: gitKeys.groups,
    queryFn: ({ signal }) => api.get('integrations', z.array(integrationGroupSchema), { signal }),
    retry: false,
  });

/** The git vendor items (from the groups answer). */
export const vendorsQueryOptions = () =>
  queryOptions({
    ...integrationGroupsQueryOptions(),
    select: (groups) => groups.find((g) => g.type === 'git')?.items ?? [],
  });

/** One vendor's instances. */
export const vendorIntegrationsQueryOptions = (vendor: GitVendorName) =>
  queryOptions({
    ...integrationGroupsQueryOptions(),
    select: (groups) =>
      groups.find((g) => g.type === 'git')?.items.find((v) => v.name === vendor)?.integrations ?? [],
  });

/**
 * spec 001 §4, §6: git integration only for admins with the git repo scanning feature supported (the feature flag
 * `gitRepoScanning`, and a licence that entitles scanning). The server checks the same on every call.
 */
export function useGitAvailable(): boolean {
  const session = useSession();
  return (
    session.user?.admin === true &&
    session.features.gitRepoScanning !== false &&
    session.entitlements?.entitlements.scanning !== false
  );
}

/** `POST integrations/testConnection`: a real call to the vendor's API at the form's URL. */
export function useTestConnectionMutation() {
  return useMutation({
    mutationFn: ({ form, integrationKey }: { form: GitIntegrationForm; integrationKey?: string }) =>
      api.post(
        'integrations/testConnection',
        integrationKey ? { ...form, integrationKey } : form,
        testConnectionResultSchema,
      ),
  });
}

/** `POST integrations`: answers the integration key as plain data. */
export function useCreateGitIntegrationMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (form: GitIntegrationForm) => api.post('integrations', form, z.string()),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: gitKeys.all }),
  });
}

/** `PUT integration/{integrationKey}` (form payload; an empty token keeps the stored one). */
export function useUpdateGitIntegrationMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ key, form }: { key: string; form: GitIntegrationForm }) =>
      api.put(`integration/${enc(key)}`, { ...form, integrationKey: key }, gitIntegrationSchema),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: gitKeys.all }),
  });
}

export function useDeleteGitIntegrationMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (key: string) => api.delete(`integration/${enc(key)}`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: gitKeys.all }),
  });
}

/** The vendor's repositories through its API, `selected` marking the scanned ones. */
export const repositoriesQueryOptions = (key: string) =>
  queryOptions({
    queryKey: gitKeys.repositories(key),
    queryFn: ({ signal }) =>
      api.get(`integration/${enc(key)}/repositories`, z.array(vcsRepositorySchema), { signal }),
  });

export function useSelectRepositoriesMutation(key: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (selection: RepositorySelection) =>
      api.put(`integration/${enc(key)}/repositories`, selection, z.array(vcsRepositorySchema)),
    onSuccess: (repos) => {
      queryClient.setQueryData(gitKeys.repositories(key), repos);
      return queryClient.invalidateQueries({ queryKey: gitKeys.scans(key) });
    },
  });
}

export function useScanRepositoriesMutation(key: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (repositories?: string[]) =>
      api.post(`integration/${enc(key)}/scan`, repositories ? { repositories } : {}),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: gitKeys.scans(key) }),
  });
}

/** The latest scan per selected repository; polled while one is queued or running. */
export const scansQueryOptions = (key: string) =>
  queryOptions({
    queryKey: gitKeys.scans(key),
    queryFn: ({ signal }) =>
      api.get(`integration/${enc(key)}/scans`, z.array(repositoryScanSchema), { signal }),
    refetchInterval: (query) =>
      query.state.data?.some((s) => s.status === 'queued' || s.status === 'running') ? 2000 : false,
  });
