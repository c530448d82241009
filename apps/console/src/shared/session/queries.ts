import { type UserData, userDataSchema } from '@granary/contracts';
import { queryOptions } from '@tanstack/react-query';
import { api, isApiError } from '../api/index.ts';

export const currentUserQueryKey = ['access', 'current-user'] as const;

/**
 * spec 000 §7 `GET /ui/auth/current`: the signed-in user, or null when nobody is signed in (the server answers
 * 401, or the anonymous user). Every other failure is an error.
 */
export const currentUserQueryOptions = () =>
  queryOptions({
    queryKey: currentUserQueryKey,
    queryFn: async ({ signal }): Promise<UserData | null> => {
      try {
        const user = await api.get('ui/auth/current', userDataSchema, { signal });
        return user.anonymous ? null : user;
      } catch (error) {
        if (isApiError(error) && error.status === 401) return null;
        throw error;
      }
    },
    staleTime: 30_000,
  });
