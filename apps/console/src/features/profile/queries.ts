import {
  apiKeyResponseSchema,
  type ChangePasswordRequest,
  changePasswordRequestSchema,
  MFA_AUTHENTICATOR_GOOGLE,
  mfaEnrollResponseSchema,
  OTP_HEADER,
  REAUTHENTICATION_HEADER,
  userApiKeyInfoSchema,
  userDataSchema,
} from '@granary/contracts';
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../shared/api/index.ts';
import { currentUserQueryKey } from '../../shared/session/queries.ts';

const enc = encodeURIComponent;

/** The one-time code header of a user with an authenticator (issue 12 §2); nothing without a code. */
const otpHeaders = (otp: string | undefined): Record<string, string> =>
  otp?.trim() ? { [OTP_HEADER]: otp.trim() } : {};

// Also used by the quick-start wizard: it lives in shared/.
export { useIdentityTokenMutation } from '../../shared/session/identityToken.ts';

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
 * spec 000 §7 `POST ui/userProfile` (spec 001 §7 "user profile with password"): the signed-in user changes their own
 * email address, proving it is them with the current password. Answers the user data.
 */
export function useUpdateEmailMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ password, email }: { password: string; email: string | null }) =>
      api.post('ui/userProfile', { password, email: email ?? '' }, userDataSchema),
    onSuccess: (user) => queryClient.setQueryData(currentUserQueryKey, user),
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

/** `POST auth/mfa/reset` {password, otp}: the user removes their own authenticator, with the password and a code from it. */
export function useResetMfaMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ password, otp }: { password: string; otp?: string }) =>
      api.post('auth/mfa/reset', { password, ...(otp?.trim() ? { otp: otp.trim() } : {}) }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: currentUserQueryKey }),
  });
}

const apiKeyInfoKey = ['access', 'user-api-key'] as const;

/** spec 001 §7 `GET /ui/userApiKey`: whether the user has an API key (a failure is logged only, spec 001 §8). */
export const apiKeyInfoQueryOptions = () =>
  queryOptions({
    queryKey: apiKeyInfoKey,
    queryFn: async ({ signal }) => {
      try {
        return await api.get('ui/userApiKey', userApiKeyInfoSchema, { signal });
      } catch (error) {
        console.warn('Could not load the API key state', error);
        return null;
      }
    },
    retry: false,
  });

/**
 * spec 001 §7 `GET api key/{username}` with the re-authentication header carrying Basic credentials → {apiKey}: a
 * new API key (the previous one stops working).
 */
export function useFetchApiKeyMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ name, password, otp }: { name: string; password: string; otp?: string }) =>
      api.get(`apiKey/${enc(name)}`, apiKeyResponseSchema, {
        headers: {
          [REAUTHENTICATION_HEADER]: `Basic ${basicCredentials(name, password)}`,
          ...otpHeaders(otp),
        },
      }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: apiKeyInfoKey }),
  });
}

/** `DELETE ui/userApiKey`: revokes the user's API key. */
export function useRevokeApiKeyMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api.delete('ui/userApiKey'),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: apiKeyInfoKey }),
  });
}

/** base64 of `name:password` in UTF-8 (btoa alone takes Latin-1 only). */
function basicCredentials(name: string, password: string): string {
  const bytes = new TextEncoder().encode(`${name}:${password}`);
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}
