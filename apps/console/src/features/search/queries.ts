import {
  type ArtifactSearchKind,
  type ArtifactSearchRequest,
  artifactSearchAnswerSchema,
} from '@granary/contracts';
import { queryOptions } from '@tanstack/react-query';
import { api } from '../../shared/api/index.ts';

/** The console's artifact search (`POST ui/artifactsearch/{kind}`): only readable repositories answer. */
export const artifactSearchQueryOptions = (kind: ArtifactSearchKind, request: ArtifactSearchRequest) =>
  queryOptions({
    queryKey: ['search', 'artifacts', kind, request] as const,
    queryFn: ({ signal }) =>
      api.post(`ui/artifactsearch/${kind}`, request, artifactSearchAnswerSchema, { signal }),
  });
