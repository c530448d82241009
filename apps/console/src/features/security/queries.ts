import {
  advisoryImportResultSchema,
  advisoryStatusSchema,
  CSRF_HEADER,
  type CustomLicense,
  type IgnoreViolationRequest,
  indexedReposSchema,
  licenseRowSchema,
  repositoryListItemSchema,
  securityIssuesPageSchema,
  type ViolationFilter,
  violationsPageSchema,
  type XrayIgnoreRule,
  type XrayPolicy,
  type XrayWatch,
  xrayIgnoreRuleSchema,
  xrayPolicySchema,
  xrayWatchSchema,
} from '@granary/contracts';
import { keepPreviousData, queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { apiErrorFromResponse } from '../../shared/api/ApiError.ts';
import { api, consoleApiUrl, restApi } from '../../shared/api/index.ts';

/**
 * spec 001 §7 "Security scanning": the console's `/xray/ui/…` calls and Xray's REST paths for policies, watches
 * and ignore rules, all under the console API prefix (`/ui/api/v1/xray/…`). Keys start with 'security'.
 */
const enc = encodeURIComponent;
const POLICIES = 'xray/api/v2/policies';
const WATCHES = 'xray/api/v2/watches';
const IGNORE_RULES = 'xray/api/v1/ignore_rules';

/** spec 001 §9: security queries 25 rows a page, ordered by severity ascending. */
export const SECURITY_QUERY_PAGE_SIZE = 25;

export const securityKeys = {
  all: ['security'] as const,
  violations: (filter: ViolationFilter, page: number, search: string) =>
    ['security', 'violations', filter, page, search] as const,
  issues: (page: number, search: string) => ['security', 'issues', page, search] as const,
  licenses: ['security', 'licenses'] as const,
  policies: ['security', 'policies'] as const,
  watches: ['security', 'watches'] as const,
  ignoreRules: ['security', 'ignoreRules'] as const,
  indexedRepos: ['security', 'indexedRepos'] as const,
  advisories: ['security', 'advisories'] as const,
  repositories: ['security', 'repositories'] as const,
  webhooks: ['security', 'webhooks'] as const,
};

// --- violations and issues -----------------------------------------------------------------------

export const violationsQueryOptions = (filter: ViolationFilter, page: number, search = '') =>
  queryOptions({
    queryKey: securityKeys.violations(filter, page, search),
    queryFn: ({ signal }) =>
      api.post(
        'xray/ui/violations',
        {
          filter,
          page,
          pageSize: SECURITY_QUERY_PAGE_SIZE,
          orderBy: 'severity',
          direction: 'asc',
          ...(search.trim() ? { search: search.trim() } : {}),
        },
        violationsPageSchema,
        { signal },
      ),
    placeholderData: keepPreviousData,
  });

export const securityIssuesQueryOptions = (page: number, search = '') =>
  queryOptions({
    queryKey: securityKeys.issues(page, search),
    queryFn: ({ signal }) =>
      api.post(
        'xray/ui/securityIssues',
        { page, pageSize: SECURITY_QUERY_PAGE_SIZE, ...(search.trim() ? { search: search.trim() } : {}) },
        securityIssuesPageSchema,
        { signal },
      ),
    placeholderData: keepPreviousData,
  });

/** `mode` 'all': always (an ignore rule for the violation's issue and component); 'once': that violation only. */
export type IgnoreRequest = IgnoreViolationRequest;

/** `POST /xray/ui/ignore`: ignore this violation once, or always (every match of its issue and component). */
export function useIgnoreViolationMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: IgnoreRequest) => api.post('xray/ui/ignore', body),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: securityKeys.all }),
  });
}

// --- licences ------------------------------------------------------------------------------------

/** `GET /xray/ui/licenses` — a list (spec 001 §7 "Licence names returns a list"); failures are silently ignored (§8). */
export const licensesQueryOptions = () =>
  queryOptions({
    queryKey: securityKeys.licenses,
    queryFn: async ({ signal }) => {
      try {
        return await api.get('xray/ui/licenses', z.array(licenseRowSchema), { signal });
      } catch {
        return [];
      }
    },
  });

export function useAddCustomLicenseMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (licence: CustomLicense) => api.post('xray/ui/customLicense', licence),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: securityKeys.licenses }),
  });
}

export function useDeleteCustomLicenseMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => api.delete(`xray/ui/customLicense/${enc(name)}`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: securityKeys.licenses }),
  });
}

// --- policies, watches, ignore rules (Xray's JSON) -------------------------------------------------

/** Xray answers a list bare; some versions wrap it (`{data: […]}`): both are read. */
const listOf = <T extends z.ZodType>(item: T) =>
  z.union([z.array(item), z.object({ data: z.array(item) }).transform((o) => o.data)]);

export const policiesQueryOptions = () =>
  queryOptions({
    queryKey: securityKeys.policies,
    queryFn: ({ signal }) => api.get(POLICIES, listOf(xrayPolicySchema.loose()), { signal }),
  });

export const watchesQueryOptions = () =>
  queryOptions({
    queryKey: securityKeys.watches,
    queryFn: ({ signal }) => api.get(WATCHES, listOf(xrayWatchSchema.loose()), { signal }),
  });

export const ignoreRulesQueryOptions = () =>
  queryOptions({
    queryKey: securityKeys.ignoreRules,
    queryFn: ({ signal }) => api.get(IGNORE_RULES, listOf(xrayIgnoreRuleSchema.loose()), { signal }),
  });

export function useSavePolicyMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ policy, create }: { policy: XrayPolicy; create: boolean }) =>
      create ? api.post(POLICIES, policy) : api.put(`${POLICIES}/${enc(policy.name)}`, policy),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: securityKeys.all }),
  });
}

export function useDeletePolicyMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => api.delete(`${POLICIES}/${enc(name)}`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: securityKeys.all }),
  });
}

export function useSaveWatchMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ watch, create }: { watch: XrayWatch; create: boolean }) =>
      create ? api.post(WATCHES, watch) : api.put(`${WATCHES}/${enc(watch.general_data.name)}`, watch),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: securityKeys.all }),
  });
}

export function useDeleteWatchMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => api.delete(`${WATCHES}/${enc(name)}`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: securityKeys.all }),
  });
}

export function useDeleteIgnoreRuleMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api.delete(`${IGNORE_RULES}/${enc(id)}`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: securityKeys.all }),
  });
}

export type IgnoreRule = XrayIgnoreRule;

// --- indexed repositories, advisory database -------------------------------------------------------

export const indexedReposQueryOptions = () =>
  queryOptions({
    queryKey: securityKeys.indexedRepos,
    queryFn: ({ signal }) => api.get('xray/ui/indexedRepos', indexedReposSchema, { signal }),
  });

/** `PUT /xray/ui/indexedRepos` with the names of the indexed repositories; failures show the parsed error (§8). */
export function useSaveIndexedReposMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (indexed: string[]) =>
      api.put('xray/ui/indexedRepos', { indexed: [...indexed].sort((a, b) => a.localeCompare(b)) }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: securityKeys.indexedRepos }),
  });
}

export const advisoryStatusQueryOptions = () =>
  queryOptions({
    queryKey: securityKeys.advisories,
    queryFn: ({ signal }) => api.get('xray/ui/advisories/status', advisoryStatusSchema, { signal }),
  });

const ADVISORY_IMPORT = 'xray/ui/advisories/import';

/** Posts an OSV archive (`all.zip`) as the body, `application/zip`, with the session cookie and CSRF header. */
async function uploadAdvisoryArchive(file: Blob) {
  const response = await fetch(consoleApiUrl(ADVISORY_IMPORT), {
    method: 'POST',
    headers: {
      Accept: 'application/json',
      'Content-Type': 'application/zip',
      'X-Requested-With': 'XMLHttpRequest',
      [CSRF_HEADER]: '1',
    },
    body: file,
    credentials: 'same-origin',
  });
  const text = await response.text();
  if (!response.ok) {
    throw apiErrorFromResponse(
      response.status,
      response.statusText,
      response.headers.get('content-type'),
      text,
    );
  }
  return advisoryImportResultSchema.parse(JSON.parse(text));
}

export function useImportAdvisoriesMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (source: { file: Blob } | { url: string }) =>
      'file' in source
        ? uploadAdvisoryArchive(source.file)
        : api.post(ADVISORY_IMPORT, { url: source.url }, advisoryImportResultSchema),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: securityKeys.all }),
  });
}

// --- pickers -------------------------------------------------------------------------------------

/** The repositories a watch can select (the public repositories list). */
export const repositoriesQueryOptions = () =>
  queryOptions({
    queryKey: securityKeys.repositories,
    queryFn: ({ signal }) => restApi.get('repositories', z.array(repositoryListItemSchema), { signal }),
    staleTime: 30_000,
  });

/** The webhook subscription keys a policy rule can notify (event group `policy`). */
export const webhookKeysQueryOptions = () =>
  queryOptions({
    queryKey: securityKeys.webhooks,
    queryFn: async ({ signal }) =>
      (
        await api.get('event/api/v1/subscriptions', z.array(z.looseObject({ key: z.string() })), { signal })
      ).map((s) => s.key),
    staleTime: 30_000,
  });
