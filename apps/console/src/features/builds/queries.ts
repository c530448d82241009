import {
  artifactBuildsAnswerSchema,
  type BuildPromotionRequest,
  type BuildRetentionRequest,
  buildDiffAnswerSchema,
  buildHistoryAnswerSchema,
  buildNamesAnswerSchema,
  buildPromotionAnswerSchema,
  buildRunDetailsSchema,
} from '@granary/contracts';
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { api, restApi } from '../../shared/api/index.ts';

/**
 * Issue 19 builds (spec 001 §7 `ui/builds/names`, `ui/builds/history/{id}`, `GET builds (path, repoKey)`): the
 * console calls under `/ui/api/v1/`, and Artifactory's REST calls (`/api/build/…`) for diff, promotion, deletion
 * and retention, so the console does what a CI script would.
 */
const enc = encodeURIComponent;
const run = (name: string, number: string) => `${enc(name)}/${enc(number)}`;

export const buildKeys = {
  all: ['builds'] as const,
  names: (search: string) => ['builds', 'names', search] as const,
  history: (name: string) => ['builds', 'history', name] as const,
  run: (name: string, number: string) => ['builds', 'run', name, number] as const,
  diff: (name: string, number: string, other: string) => ['builds', 'diff', name, number, other] as const,
  forFile: (repoKey: string, path: string) => ['builds', 'file', repoKey, path] as const,
};

/** `GET ui/builds/names?search=`: every build the user may read, newest run first. */
export const buildNamesQueryOptions = (search: string) =>
  queryOptions({
    queryKey: buildKeys.names(search),
    queryFn: ({ signal }) =>
      api
        .get('ui/builds/names', buildNamesAnswerSchema, { query: { search: search || undefined }, signal })
        .then((a) => a.builds),
  });

/** `GET ui/builds/history/{name}`: the build's runs. */
export const buildHistoryQueryOptions = (name: string) =>
  queryOptions({
    queryKey: buildKeys.history(name),
    queryFn: ({ signal }) => api.get(`ui/builds/history/${enc(name)}`, buildHistoryAnswerSchema, { signal }),
  });

/** One run's details: modules, artifacts, dependencies (with vulnerability counts), environment, issues, vcs. */
export const buildRunQueryOptions = (name: string, number: string) =>
  queryOptions({
    queryKey: buildKeys.run(name, number),
    queryFn: ({ signal }) => api.get(`ui/builds/${run(name, number)}`, buildRunDetailsSchema, { signal }),
  });

/** `GET /api/build/{name}/{number}?diff={older}` (Artifactory's diff). */
export const buildDiffQueryOptions = (name: string, number: string, other: string) =>
  queryOptions({
    queryKey: buildKeys.diff(name, number, other),
    queryFn: ({ signal }) =>
      restApi.get(`build/${run(name, number)}`, buildDiffAnswerSchema, { query: { diff: other }, signal }),
  });

/** `GET ui/api/v1/builds?path=&repoKey=`: the builds that produced or used an artifact (version Builds tab). */
export const artifactBuildsQueryOptions = (repoKey: string, path: string) =>
  queryOptions({
    queryKey: buildKeys.forFile(repoKey, path),
    queryFn: ({ signal }) =>
      api
        .get('builds', artifactBuildsAnswerSchema, { query: { path, repoKey }, signal })
        .then((a) => a.builds),
  });

/** The provenance statement's download URL (an in-toto statement, SLSA provenance v1). */
export function provenanceUrl(name: string, number: string, uri?: string): string {
  return uri ?? `/api/build/${run(name, number)}/provenance`;
}

/** `POST /api/build/promote/{name}/{number}`: answers `{messages}` (a dry run changes nothing). */
export function usePromoteBuildMutation(name: string, number: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: Partial<BuildPromotionRequest>) =>
      restApi.post(`build/promote/${run(name, number)}`, body, buildPromotionAnswerSchema),
    onSuccess: (_answer, body) =>
      body.dryRun ? undefined : queryClient.invalidateQueries({ queryKey: buildKeys.all }),
  });
}

/** `POST /api/build/delete` {buildName, buildNumbers, deleteArtifacts, deleteAll}. */
export function useDeleteBuildRunsMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: {
      buildName: string;
      buildNumbers: string[];
      deleteArtifacts: boolean;
      deleteAll: boolean;
    }) => restApi.post('build/delete', body),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: buildKeys.all }),
  });
}

/** `POST /api/build/retention/{name}` {count, minimumBuildDate, deleteBuildArtifacts, buildNumbersNotToBeDiscarded}. */
export function useBuildRetentionMutation(name: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: Partial<BuildRetentionRequest>) => restApi.post(`build/retention/${enc(name)}`, body),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: buildKeys.all }),
  });
}
