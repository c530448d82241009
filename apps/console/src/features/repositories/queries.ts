import {
  type ArtifactActions,
  artifactActionsSchema,
  copyMoveAnswerSchema,
  type DownloadStats,
  downloadStatsSchema,
  storageInfoSchema,
  storagePropertiesSchema,
  zapAnswerSchema,
} from '@granary/contracts';
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { apiErrorFromResponse } from '../../shared/api/ApiError.ts';
import { ApiError, api, apiRequest, CSRF_HEADER, restApi } from '../../shared/api/index.ts';

export type Properties = Record<string, string[]>;

/**
 * The tree browser's calls: repositories and folders from the public REST API (`/api/repositories`,
 * `/api/storage`, `/api/copy`, `/api/move`), effective permissions and Set Me Up from the console API,
 * files themselves at `/repository/{key}/{path}`.
 */
export const treeKeys = {
  all: ['tree'] as const,
  repositories: ['tree', 'repositories'] as const,
  info: (repo: string, path: string) => ['tree', 'info', repo, path] as const,
  properties: (repo: string, path: string) => ['tree', 'properties', repo, path] as const,
  stats: (repo: string, path: string) => ['tree', 'stats', repo, path] as const,
  actions: (repo: string, path: string) => ['tree', 'actions', repo, path] as const,
  setMeUp: (repo: string) => ['tree', 'setMeUp', repo] as const,
};

/** `a/b c` → `a/b%20c`: each segment encoded, the slashes kept. */
export const encodePath = (path: string) => path.split('/').map(encodeURIComponent).join('/');
const at = (repo: string, path: string) => `${encodeURIComponent(repo)}${path ? `/${encodePath(path)}` : ''}`;

/** Where a file is downloaded or deployed; a folder with a trailing slash is the native browser. */
export const artifactUrl = (repo: string, path: string, folder = false) =>
  `/repository/${at(repo, path)}${folder ? '/' : ''}`;

/** A folder (or a whole repository) as a zip, streamed by the server; unreadable files are left out. */
export const archiveUrl = (repo: string, path: string) =>
  `/api/archive/download/${at(repo, path)}?archiveType=zip`;

// Used by other features too (Set Me Up, onboarding): they live in shared/, under the same keys.
export { repositoriesQueryOptions, setMeUpQueryOptions } from '../../shared/repositories/queries.ts';

export const storageInfoQueryOptions = (repo: string, path: string) =>
  queryOptions({
    queryKey: treeKeys.info(repo, path),
    queryFn: ({ signal }) => restApi.get(`storage/${at(repo, path)}`, storageInfoSchema, { signal }),
  });

/**
 * Issue 21: a file's download statistics (Artifactory's `GET /api/storage/{repo}/{path}?stats`); null when
 * the server has none for it (a 404, e.g. a folder).
 */
export const downloadStatsQueryOptions = (repo: string, path: string) =>
  queryOptions({
    queryKey: treeKeys.stats(repo, path),
    queryFn: async ({ signal }): Promise<DownloadStats | null> => {
      try {
        return await restApi.get(`storage/${at(repo, path)}`, downloadStatsSchema, {
          signal,
          query: { stats: '' },
        });
      } catch (error) {
        if (error instanceof ApiError && error.status === 404) return null;
        throw error;
      }
    },
  });

/** A file's properties; none is an empty object (the storage API answers 404 then). */
export const propertiesQueryOptions = (repo: string, path: string) =>
  queryOptions({
    queryKey: treeKeys.properties(repo, path),
    queryFn: async ({ signal }): Promise<Properties> => {
      try {
        const answer = await restApi.get(`storage/${at(repo, path)}`, storagePropertiesSchema, {
          signal,
          query: { properties: '' },
        });
        return answer.properties;
      } catch (error) {
        if (error instanceof ApiError && error.status === 404) return {};
        throw error;
      }
    },
  });

export const artifactActionsQueryOptions = (repo: string, path: string) =>
  queryOptions({
    queryKey: treeKeys.actions(repo, path),
    queryFn: ({ signal }): Promise<ArtifactActions> =>
      api.get('ui/artifactactions', artifactActionsSchema, { signal, query: { repoKey: repo, path } }),
  });

function useInvalidateTree() {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: treeKeys.all });
}

export function useCopyMoveMutation() {
  const invalidate = useInvalidateTree();
  return useMutation({
    mutationFn: (v: { mode: 'copy' | 'move'; repo: string; path: string; to: string; dry?: boolean }) =>
      restApi.post(`${v.mode}/${at(v.repo, v.path)}`, undefined, copyMoveAnswerSchema, {
        query: { to: v.to, dry: v.dry ? 1 : undefined },
      }),
    // Not awaited: the caller moves the selection to the destination first, then the tree refreshes.
    onSuccess: (_answer, v) => {
      if (!v.dry) void invalidate();
    },
  });
}

export function useDeleteArtifactMutation() {
  const invalidate = useInvalidateTree();
  return useMutation({
    mutationFn: ({ repo, path }: { repo: string; path: string }) =>
      apiRequest(at(repo, path), { method: 'DELETE', base: '/repository/' }),
    onSuccess: invalidate,
  });
}

/** Artifactory's property syntax: `k=v1,v2`, with `\`, `,`, `;`, `=` and `|` in values escaped away. */
const propertyValue = (v: string) => v.replace(/[\\,;=|]/g, '_');

export function useSetPropertyMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({
      repo,
      path,
      name,
      values,
    }: {
      repo: string;
      path: string;
      name: string;
      values: string[];
    }) =>
      restApi.put(`storage/${at(repo, path)}`, undefined, undefined, {
        query: { properties: `${name}=${values.map(propertyValue).join(',')}` },
      }),
    onSuccess: (_d, v) => queryClient.invalidateQueries({ queryKey: treeKeys.properties(v.repo, v.path) }),
  });
}

export function useDeletePropertyMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ repo, path, name }: { repo: string; path: string; name: string }) =>
      restApi.delete(`storage/${at(repo, path)}`, undefined, { query: { properties: name } }),
    onSuccess: (_d, v) => queryClient.invalidateQueries({ queryKey: treeKeys.properties(v.repo, v.path) }),
  });
}

export function useZapCacheMutation() {
  const invalidate = useInvalidateTree();
  return useMutation({
    mutationFn: ({ repo, path }: { repo: string; path: string }) =>
      restApi.post(`repositories/${encodeURIComponent(repo)}/zap`, undefined, zapAnswerSchema, {
        query: { path: path || undefined },
      }),
    onSuccess: invalidate,
  });
}

export interface DeployInput {
  repo: string;
  path: string;
  file: Blob;
  /** 0–100, as the browser reports the upload's progress. */
  onProgress?: (percent: number) => void;
  signal?: AbortSignal;
}

/**
 * Deploys one file with `PUT /repository/{key}/{path}`. An XMLHttpRequest rather than fetch: only it reports
 * upload progress. Same session cookie and headers as every other console call.
 */
export function deployFile({ repo, path, file, onProgress, signal }: DeployInput): Promise<void> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('PUT', artifactUrl(repo, path));
    xhr.setRequestHeader('X-Requested-With', 'XMLHttpRequest');
    xhr.setRequestHeader(CSRF_HEADER, '1');
    xhr.setRequestHeader('Content-Type', 'application/octet-stream');
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable && e.total > 0) onProgress?.(Math.round((e.loaded / e.total) * 100));
    };
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        onProgress?.(100);
        resolve();
      } else
        reject(
          apiErrorFromResponse(
            xhr.status,
            xhr.statusText,
            xhr.getResponseHeader('content-type'),
            xhr.responseText,
          ),
        );
    };
    xhr.onerror = () => reject(new Error('The server could not be reached'));
    xhr.onabort = () => reject(new DOMException('Upload cancelled', 'AbortError'));
    signal?.addEventListener('abort', () => xhr.abort(), { once: true });
    xhr.send(file);
  });
}

export function useDeployMutation() {
  const invalidate = useInvalidateTree();
  return useMutation({ mutationFn: deployFile, onSuccess: invalidate });
}
