import {
  type CustomIssue,
  componentSearchPageSchema,
  customIssueSchema,
  watchesByIssueSchema,
} from '@granary/contracts';
import { keepPreviousData, queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { api } from '../../shared/api/index.ts';
import { securityKeys } from './queries.ts';

/**
 * The toolbar's "Xray security and compliance" search, custom issues and watches by issue (spec 001 §7
 * `/xray/ui/component/paginatedsearch`, custom issue CRUD, watches by issue). Keys start with 'security'.
 */
const enc = encodeURIComponent;
const CUSTOM_ISSUE = 'xray/ui/customIssue';

/** spec 001 §9: the Xray paginated search answers 20 rows a page, ordered by last_updated descending (server). */
export const XRAY_SEARCH_PAGE_SIZE = 20;

export const xrayKeys = {
  search: (query: string, page: number) => [...securityKeys.all, 'componentSearch', query, page] as const,
  customIssues: [...securityKeys.all, 'customIssues'] as const,
  watchesByIssue: (issueId: string) => [...securityKeys.all, 'watchesByIssue', issueId] as const,
};

/** `POST /xray/ui/component/paginatedsearch` — the rows in the server's order (last updated first). */
export const componentSearchQueryOptions = (query: string, page: number) =>
  queryOptions({
    queryKey: xrayKeys.search(query, page),
    queryFn: ({ signal }) =>
      api.post(
        'xray/ui/component/paginatedsearch',
        { query, page, pageSize: XRAY_SEARCH_PAGE_SIZE },
        componentSearchPageSchema,
        { signal },
      ),
    enabled: query.trim() !== '',
    placeholderData: keepPreviousData,
  });

/** `GET /xray/ui/customIssue` (admin): every custom issue. */
export const customIssuesQueryOptions = () =>
  queryOptions({
    queryKey: xrayKeys.customIssues,
    queryFn: ({ signal }) => api.get(CUSTOM_ISSUE, z.array(customIssueSchema), { signal }),
  });

/** `POST /xray/ui/customIssue` (create) or `PUT /xray/ui/customIssue/{id}` (edit). */
export function useSaveCustomIssueMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ issue, create }: { issue: CustomIssue; create: boolean }) =>
      create ? api.post(CUSTOM_ISSUE, issue) : api.put(`${CUSTOM_ISSUE}/${enc(issue.id)}`, issue),
    // A custom issue is matched like an advisory: findings, violations and issues change with it.
    onSuccess: () => queryClient.invalidateQueries({ queryKey: securityKeys.all }),
  });
}

export function useDeleteCustomIssueMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api.delete(`${CUSTOM_ISSUE}/${enc(id)}`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: securityKeys.all }),
  });
}

/** `GET /xray/ui/watchesByIssue/{issueId}` (admin): the watches with violations of that issue. */
export const watchesByIssueQueryOptions = (issueId: string) =>
  queryOptions({
    queryKey: xrayKeys.watchesByIssue(issueId),
    queryFn: async ({ signal }) =>
      (await api.get(`xray/ui/watchesByIssue/${enc(issueId)}`, watchesByIssueSchema, { signal })).watches,
  });
