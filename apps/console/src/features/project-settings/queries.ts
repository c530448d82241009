import { projectMembersSchema, projectSchema } from '@granary/contracts';
import { queryOptions } from '@tanstack/react-query';
import { api } from '../../shared/api/index.ts';

/** spec 000 §7 `GET /projects/{key}` and its members (`…/users`, `…/groups`), for the project settings screens. */
export const projectSettingsKeys = {
  project: (key: string) => ['access', 'projects', key] as const,
  members: (key: string, kind: 'users' | 'groups') => ['access', 'projects', key, kind] as const,
};

export const projectQueryOptions = (key: string) =>
  queryOptions({
    queryKey: projectSettingsKeys.project(key),
    queryFn: ({ signal }) => api.get(`projects/${encodeURIComponent(key)}`, projectSchema, { signal }),
  });

export const projectMembersQueryOptions = (key: string, kind: 'users' | 'groups') =>
  queryOptions({
    queryKey: projectSettingsKeys.members(key, kind),
    queryFn: ({ signal }) =>
      api.get(`projects/${encodeURIComponent(key)}/${kind}`, projectMembersSchema, { signal }),
  });
