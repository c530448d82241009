import { artifactScanSchema, scanStatusAnswerSchema } from '@granary/contracts';
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { api, isApiError } from '../../shared/api/index.ts';

/**
 * The version details' security data (spec 001 §7 "Security scanning"): scan status (`POST /xray/ui/scanStatus`,
 * its failures silently ignored — §8), the scan itself (`GET /xray/ui/scan/{repoKey}/{path}`) and scan now
 * (`POST /xray/ui/scanNow`, answer not read; failures show the parsed error — §8). Keys start with 'packages' so
 * logout clears them with the rest of the package state.
 */
const filePath = (path: string) => path.split('/').map(encodeURIComponent).join('/');
const scanTarget = (repoKey: string, path: string) => ({
  type: 'artifact' as const,
  data: { repoKey, path },
});

export const scanKeys = {
  status: (repoKey: string, path: string) => ['packages', 'scanStatus', repoKey, path] as const,
  scan: (repoKey: string, path: string) => ['packages', 'scan', repoKey, path] as const,
};

export const scanStatusQueryOptions = (repoKey: string, path: string) =>
  queryOptions({
    queryKey: scanKeys.status(repoKey, path),
    queryFn: async ({ signal }) => {
      try {
        return await api.post('xray/ui/scanStatus', scanTarget(repoKey, path), scanStatusAnswerSchema, {
          signal,
        });
      } catch (error) {
        if (signal.aborted) throw error;
        return null;
      }
    },
    // A scan in progress is followed until its verdict.
    refetchInterval: (query) => (query.state.data?.status === 'in progress' ? 2000 : false),
  });

export const artifactScanQueryOptions = (repoKey: string, path: string) =>
  queryOptions({
    queryKey: scanKeys.scan(repoKey, path),
    queryFn: async ({ signal }) => {
      try {
        return await api.get(
          `xray/ui/scan/${encodeURIComponent(repoKey)}/${filePath(path)}`,
          artifactScanSchema,
          {
            signal,
          },
        );
      } catch (error) {
        // Not scanned yet (or not indexed): the status line says so.
        if (isApiError(error) && (error.status === 404 || error.status === 409)) return null;
        throw error;
      }
    },
  });

export function useScanNowMutation(repoKey: string, path: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api.post('xray/ui/scanNow', scanTarget(repoKey, path)),
    onSuccess: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: scanKeys.status(repoKey, path) }),
        queryClient.invalidateQueries({ queryKey: scanKeys.scan(repoKey, path) }),
      ]),
  });
}

/** SBOM downloads of a stored file (`GET /api/sbom/{repoKey}/{path}?format=cyclonedx|spdx`). */
export const sbomUrl = (repoKey: string, path: string, format: 'cyclonedx' | 'spdx') =>
  `/api/sbom/${encodeURIComponent(repoKey)}/${filePath(path)}?format=${format}`;
