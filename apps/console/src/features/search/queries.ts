import {
  type ArtifactSearchKind,
  type ArtifactSearchRequest,
  artifactSearchAnswerSchema,
} from '@granary/contracts';
import { queryOptions } from '@tanstack/react-query';
import { z } from 'zod';
import { api } from '../../shared/api/index.ts';

/**
 * The server's `GET ui/artifactsearch/status` answer (apps/server/src/modules/search), declared here rather
 * than in the contracts package, which the login route loads whole.
 */
const artifactSearchStatusSchema = z.object({ archiveIndexing: z.boolean() });

/** The console's artifact search (`POST ui/artifactsearch/{kind}`): only readable repositories answer. */
export const artifactSearchQueryOptions = (kind: ArtifactSearchKind, request: ArtifactSearchRequest) =>
  queryOptions({
    queryKey: ['search', 'artifacts', kind, request] as const,
    queryFn: ({ signal }) =>
      api.post(`ui/artifactsearch/${kind}`, request, artifactSearchAnswerSchema, { signal }),
  });

/** `GET ui/artifactsearch/status`: whether archive entries are indexed (spec 001 §4 archive fallback). */
export const artifactSearchStatusQueryOptions = () =>
  queryOptions({
    queryKey: ['search', 'status'] as const,
    queryFn: ({ signal }) => api.get('ui/artifactsearch/status', artifactSearchStatusSchema, { signal }),
    staleTime: 60_000,
  });
