import {
  type GroupWrite,
  groupSchema,
  namedListItemSchema,
  type PermissionTargetWrite,
  type ProjectCreate,
  permissionTargetSchema,
  projectSchema,
  type UserWrite,
  userListItemSchema,
  userSchema,
} from '@granary/contracts';
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { api, restApi } from '../../shared/api/index.ts';

/**
 * Users, groups and permission targets are managed through the public REST API (`/api/security/…`, DESIGN.md
 * "Public REST API"): spec 000 §7 names no console call for them. Projects use the console API (`projects`,
 * `access/projects`, spec 000 §7).
 */
const enc = encodeURIComponent;

export const adminKeys = {
  users: ['admin', 'users'] as const,
  user: (name: string) => ['admin', 'users', name] as const,
  groups: ['admin', 'groups'] as const,
  group: (name: string) => ['admin', 'groups', name] as const,
  permissions: ['admin', 'permissions'] as const,
  permission: (name: string) => ['admin', 'permissions', name] as const,
  repositories: ['admin', 'repositories'] as const,
  projects: ['admin', 'projects'] as const,
};

// --- users ---------------------------------------------------------------------------------------

export const usersQueryOptions = () =>
  queryOptions({
    queryKey: adminKeys.users,
    queryFn: ({ signal }) => restApi.get('security/users', z.array(userListItemSchema), { signal }),
  });

export const userQueryOptions = (name: string) =>
  queryOptions({
    queryKey: adminKeys.user(name),
    queryFn: ({ signal }) => restApi.get(`security/users/${enc(name)}`, userSchema, { signal }),
  });

export function useSaveUserMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ name, user }: { name: string; user: UserWrite }) =>
      restApi.put(`security/users/${enc(name)}`, user),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: adminKeys.users }),
  });
}

export function useDeleteUserMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => restApi.delete(`security/users/${enc(name)}`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: adminKeys.users }),
  });
}

/** Updates only the fields sent (`POST /api/security/users/{name}`), e.g. {passwordExpired: true}. */
export function useUpdateUserMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ name, patch }: { name: string; patch: UserWrite }) =>
      restApi.post(`security/users/${enc(name)}`, patch, userSchema),
    onSuccess: (user) => queryClient.setQueryData(adminKeys.user(user.name), user),
  });
}

/** Clears a lock-out after too many failed sign-ins. */
export function useUnlockUserMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => restApi.post(`security/users/${enc(name)}/unlock`),
    onSuccess: (_data, name) => queryClient.invalidateQueries({ queryKey: adminKeys.user(name) }),
  });
}

// --- groups --------------------------------------------------------------------------------------

export const groupsQueryOptions = () =>
  queryOptions({
    queryKey: adminKeys.groups,
    queryFn: ({ signal }) => restApi.get('security/groups', z.array(namedListItemSchema), { signal }),
  });

export const groupQueryOptions = (name: string) =>
  queryOptions({
    queryKey: adminKeys.group(name),
    queryFn: ({ signal }) => restApi.get(`security/groups/${enc(name)}`, groupSchema, { signal }),
  });

export function useSaveGroupMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ name, group }: { name: string; group: GroupWrite }) =>
      restApi.put(`security/groups/${enc(name)}`, group),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: adminKeys.groups }),
  });
}

export function useDeleteGroupMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => restApi.delete(`security/groups/${enc(name)}`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: adminKeys.groups }),
  });
}

// --- permission targets --------------------------------------------------------------------------

export const permissionsQueryOptions = () =>
  queryOptions({
    queryKey: adminKeys.permissions,
    queryFn: ({ signal }) => restApi.get('security/permissions', z.array(namedListItemSchema), { signal }),
  });

export const permissionQueryOptions = (name: string) =>
  queryOptions({
    queryKey: adminKeys.permission(name),
    queryFn: ({ signal }) =>
      restApi.get(`security/permissions/${enc(name)}`, permissionTargetSchema, { signal }),
  });

export function useSavePermissionMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ name, target }: { name: string; target: PermissionTargetWrite }) =>
      restApi.put(`security/permissions/${enc(name)}`, target),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: adminKeys.permissions }),
  });
}

export function useDeletePermissionMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => restApi.delete(`security/permissions/${enc(name)}`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: adminKeys.permissions }),
  });
}

/** Repository keys for the permission resources tab; none yet while the repositories module is not there. */
export const repositoryKeysQueryOptions = () =>
  queryOptions({
    queryKey: adminKeys.repositories,
    queryFn: async ({ signal }) => {
      try {
        const list = await restApi.get('repositories', z.array(z.object({ key: z.string() })), { signal });
        return list.map((r) => r.key);
      } catch {
        return [];
      }
    },
    retry: false,
  });

// --- projects ------------------------------------------------------------------------------------

export const projectsQueryOptions = () =>
  queryOptions({
    queryKey: adminKeys.projects,
    queryFn: ({ signal }) => api.get('access/projects', z.array(projectSchema), { signal }),
  });

export function useCreateProjectMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (project: ProjectCreate) => api.post('access/projects', project, projectSchema),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: adminKeys.projects }),
  });
}

export function useDeleteProjectMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (key: string) => api.delete(`access/projects/${enc(key)}`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: adminKeys.projects }),
  });
}
