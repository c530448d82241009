import {
  type ChangePasswordRequest,
  changePasswordRequestSchema,
  identityTokenResponseSchema,
  MFA_AUTHENTICATOR_GOOGLE,
  mfaEnrollResponseSchema,
  userDataSchema,
  userSchema,
} from '@granary/contracts';
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { api, restApi } from '../../shared/api/index.ts';
import { currentUserQueryKey } from '../../shared/session/queries.ts';

const enc = encodeURIComponent;

/** spec 000 §7 `POST ui/userIdentifyToken/{name}` {description, includeReferenceToken, expiresIn}; reads reference_token. */
export function useIdentityTokenMutation() {
  return useMutation({
    mutationFn: ({ name, description }: { name: string; description: string }) =>
      api.post(
        `ui/userIdentifyToken/${enc(name)}`,
        { description, includeReferenceToken: true },
        identityTokenResponseSchema,
      ),
  });
}

/** spec 000 §7 `POST changePassword?prefix=changePassword`, used by the profile for the user's own password. */
export function useChangeOwnPasswordMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: ChangePasswordRequest) =>
      api.post('changePassword', changePasswordRequestSchema.parse(body), userDataSchema, {
        query: { prefix: 'changePassword' },
      }),
    onSuccess: (user) => queryClient.setQueryData(currentUserQueryKey, user),
  });
}

/**
 * The e-mail address, through the REST partial update `POST /api/security/users/{name}`. The server offers no
 * self-service profile call yet (spec 000 §7 `POST ui/userProfile` is not served), and this one is admin-only, so
 * the profile page lets administrators edit their address and shows it to everyone else.
 */
export function useUpdateEmailMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ name, email }: { name: string; email: string | null }) =>
      restApi.post(`security/users/${enc(name)}`, { email }, userSchema),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: currentUserQueryKey }),
  });
}

/** spec 000 §7 `GET auth/mfa/enroll/{x}` for the signed-in user. */
export const profileMfaEnrollQueryOptions = (name: string) =>
  queryOptions({
    queryKey: ['access', 'profile-mfa-enroll', name],
    queryFn: ({ signal }) =>
      api.get(`auth/mfa/enroll/${MFA_AUTHENTICATOR_GOOGLE}`, mfaEnrollResponseSchema, { signal }),
    staleTime: Number.POSITIVE_INFINITY,
    gcTime: 0,
    retry: false,
  });

/** spec 000 §7 `POST auth/mfa/verify/{x}`: confirms the enrolment with a first code. */
export function useConfirmMfaMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ otp }: { name: string; otp: string }) =>
      api.post(
        `auth/mfa/verify/${MFA_AUTHENTICATOR_GOOGLE}`,
        { otp, type: MFA_AUTHENTICATOR_GOOGLE },
        userDataSchema,
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: currentUserQueryKey }),
  });
}

/**
 * Removes the user's authenticator: `DELETE /api/security/users/{name}/mfa` (the spec shows no reset call; the
 * server offers this one to administrators only).
 */
export function useResetMfaMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => restApi.delete(`security/users/${enc(name)}/mfa`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: currentUserQueryKey }),
  });
}
