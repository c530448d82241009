import { trashActionAnswerSchema, trashSearchAnswerSchema } from '@granary/contracts';
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { api, restApi } from '../../shared/api/index.ts';

/**
 * The trash can (issue 21, spec 001 §3 actions Search Trash Can, Restore, Delete Permanently, Empty Trash Can):
 * the console's search, and Artifactory's REST for the actions (`/api/trash/…`). The server decides every action.
 */
export const trashKeys = {
  all: ['trash'] as const,
  search: (q: string) => ['trash', 'search', q] as const,
};

/** `repo/a/b` with each segment encoded, slashes kept. */
const at = (repoKey: string, path: string) =>
  [repoKey, ...path.split('/').filter(Boolean)].map(encodeURIComponent).join('/');

export const trashSearchQueryOptions = (q: string) =>
  queryOptions({
    queryKey: trashKeys.search(q),
    queryFn: () => api.get('ui/trash/search', trashSearchAnswerSchema, { query: { q: q || undefined } }),
  });

function useTrashMutation<V, R>(fn: (v: V) => Promise<R>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: fn,
    // The tree shows restored files again; the trash shows what is left.
    onSuccess: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: trashKeys.all }),
        queryClient.invalidateQueries({ queryKey: ['tree'] }),
      ]),
  });
}

export const useRestoreMutation = () =>
  useTrashMutation(({ repoKey, path }: { repoKey: string; path: string }) =>
    restApi.post(`trash/restore/${at(repoKey, path)}`, undefined, trashActionAnswerSchema),
  );

export const useDeletePermanentlyMutation = () =>
  useTrashMutation(({ repoKey, path }: { repoKey: string; path: string }) =>
    restApi.delete(`trash/clean/${at(repoKey, path)}`, trashActionAnswerSchema),
  );

export const useEmptyTrashMutation = () =>
  useTrashMutation(() => restApi.post('trash/empty', undefined, trashActionAnswerSchema));
