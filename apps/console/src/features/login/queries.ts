import {
  AccessErrorCode,
  type ChangePasswordRequest,
  changePasswordRequestSchema,
  cliSessionInfoSchema,
  forgotPasswordResponseSchema,
  INVITATION_TOKEN_PATTERN,
  type InvitedSetPassword,
  invitationVerifyResponseSchema,
  type LoginConfig,
  loginConfigSchema,
  loginRelatedDataSchema,
  MFA_AUTHENTICATOR_GOOGLE,
  mfaEnrollResponseSchema,
  OTP_HEADER,
  REMEMBER_ME_QUERY,
  type RegistrationRequest,
  registrationRequestSchema,
  registrationResponseSchema,
  type SsoLoginState,
  ssoLoginStateSchema,
  userDataSchema,
  validateKeyResponseSchema,
} from '@granary/contracts';
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { api, isApiError } from '../../shared/api/index.ts';
import { currentUserQueryKey } from '../../shared/session/queries.ts';

/**
 * The login view: the contract's login-related data, plus the OAuth providers of the login state (spec 000 §3:
 * name, type, url; the icon comes from the lower-cased type). The contract has no providers yet: none are shown
 * until the server sends them.
 */
export const loginViewSchema = loginRelatedDataSchema.extend({
  oauthProviders: z
    .array(z.object({ name: z.string(), type: z.string(), url: z.string(), icon: z.string().optional() }))
    .optional()
    .default([]),
});
export type LoginView = z.infer<typeof loginViewSchema>;

/** spec 000 §8: when the login-related data fails, the view falls back to internal. */
export const INTERNAL_LOGIN_VIEW: LoginView = {
  forgotPassword: false,
  canRememberMe: true,
  ssoProviderLink: null,
  oauthProviders: [],
};

/** spec 000 §7 `GET /access/api/ui/security/loginRelatedData`; a failure is logged only (spec 000 §8). */
export const loginRelatedDataQueryOptions = () =>
  queryOptions({
    queryKey: ['access', 'login-related-data'],
    queryFn: async ({ signal }): Promise<LoginView> => {
      try {
        return await api.get('access/api/ui/security/loginRelatedData', loginViewSchema, { signal });
      } catch (error) {
        console.warn('Could not load the login-related data; showing the internal login view', error);
        return INTERNAL_LOGIN_VIEW;
      }
    },
    staleTime: 5 * 60_000,
    retry: false,
  });

/** No provider: what the login page assumes when the single sign-on state cannot be read. */
export const NO_SSO: SsoLoginState = {
  oauthProviders: [],
  ssoProviderLink: null,
  ssoProviderLinkSAML: null,
  samlLogoutUrl: null,
  ldapEnabled: false,
  isAutoRedirectLogin: false,
};

/**
 * Issue 20, spec 000 §3 login state: the single sign-on part (`GET sso/loginState`, public): the OAuth / OpenID
 * providers' links (name, type, url, icon from the lower-cased type), the SAML link, the SAML logout URL and the
 * auto-redirect state. A failure is logged and the page offers the password form only.
 */
export const ssoLoginStateQueryOptions = () =>
  queryOptions({
    queryKey: ['access', 'sso-login-state'],
    queryFn: async ({ signal }): Promise<SsoLoginState> => {
      try {
        return await api.get('sso/loginState', ssoLoginStateSchema, { signal });
      } catch (error) {
        console.warn('Could not load the single sign-on state; showing the password form only', error);
        return NO_SSO;
      }
    },
    staleTime: 60_000,
    retry: false,
  });

/**
 * spec 000 §7 `GET /auth/saml/samlLogoutUrl` → {logoutUrl}: asked for a SAML user before the session ends (the
 * server builds the identity provider's logout for this session). A failure counts as none.
 */
export async function fetchSamlLogoutUrl(): Promise<string | null> {
  try {
    const answer = await api.get('auth/saml/samlLogoutUrl', z.object({ logoutUrl: z.string().nullable() }));
    return answer.logoutUrl;
  } catch (error) {
    console.warn('Could not read the SAML logout URL', error);
    return null;
  }
}

export interface LoginVariables {
  user: string;
  password: string;
  rememberMe: boolean;
}

/** spec 000 §7 `POST /ui/auth/login?_spring_security_remember_me={bool}` with {user, password, type: login}. */
export function useLoginMutation() {
  return useMutation({
    mutationFn: ({ user, password, rememberMe }: LoginVariables) =>
      api.post('ui/auth/login', { user, password, type: 'login' }, userDataSchema, {
        query: { [REMEMBER_ME_QUERY]: rememberMe },
      }),
  });
}

/** spec 000 §8: the login answer that means "credentials expired" (go to change-password with the username). */
export function isCredentialsExpired(error: unknown): boolean {
  return (
    isApiError(error) &&
    (error.code === AccessErrorCode.CredentialsExpired || error.code === AccessErrorCode.PasswordExpired)
  );
}

/**
 * spec 000 §7 `GET /auth/mfa/enroll/{x}`: a new TOTP secret and its otpauth URI, for the QR code. `{x}` is the
 * authenticator type; the user is the one of the pending (or signed-in) session.
 */
export const mfaEnrollQueryOptions = (userName: string) =>
  queryOptions({
    queryKey: ['access', 'mfa-enroll', userName],
    queryFn: ({ signal }) =>
      api.get(`auth/mfa/enroll/${MFA_AUTHENTICATOR_GOOGLE}`, mfaEnrollResponseSchema, { signal }),
    staleTime: Number.POSITIVE_INFINITY,
    gcTime: 0,
    retry: false,
  });

/** spec 000 §7 `POST /auth/mfa/verify/{x}` with {otp, authenticator type}; answers the user data. */
export function useVerifyOtpMutation() {
  return useMutation({
    mutationFn: ({ otp }: { userName: string; otp: string }) =>
      api.post(
        `auth/mfa/verify/${MFA_AUTHENTICATOR_GOOGLE}`,
        { otp, type: MFA_AUTHENTICATOR_GOOGLE },
        userDataSchema,
      ),
  });
}

/** spec 000 §7 `POST /ui/auth/forgotpassword` with {user}. */
export function useForgotPasswordMutation() {
  return useMutation({
    mutationFn: ({ user }: { user: string }) =>
      api.post('ui/auth/forgotpassword', { user }, forgotPasswordResponseSchema),
  });
}

/** spec 000 §7 `POST validatetoken?key=` → {user} (spec 000 §3 key validation response). */
export const validateResetKeyQueryOptions = (key: string) =>
  queryOptions({
    queryKey: ['access', 'reset-key', key],
    queryFn: ({ signal }) =>
      api.post('validatetoken', undefined, validateKeyResponseSchema, { query: { key }, signal }),
    retry: false,
    staleTime: Number.POSITIVE_INFINITY,
  });

/** spec 000 §7 `POST /ui/auth/resetpassword?key=` with {user, password}; answers the user data, signed in. */
export function useResetPasswordMutation() {
  return useMutation({
    mutationFn: ({ key, user, password }: { key: string; user: string; password: string }) =>
      api.post('ui/auth/resetpassword', { user, password }, userDataSchema, { query: { key } }),
  });
}

/** spec 000 §7 `POST changePassword?prefix=changePassword`; answers the user data, signed in. */
export function useChangePasswordMutation() {
  return useMutation({
    mutationFn: (body: ChangePasswordRequest) =>
      api.post('changePassword', changePasswordRequestSchema.parse(body), userDataSchema, {
        query: { prefix: 'changePassword' },
      }),
  });
}

/** spec 000 §4 logout: call logout, then forget everything this session loaded. */
export function useLogoutMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api.post('ui/auth/logout'),
    onSettled: () => {
      queryClient.removeQueries();
      queryClient.setQueryData(currentUserQueryKey, null);
    },
  });
}

/** spec 000 §5: the invitation's token query value passes the format check before anything is asked. */
export function isInvitationToken(token: string | null): token is string {
  return token !== null && INVITATION_TOKEN_PATTERN.test(token);
}

/** spec 000 §7 `POST /access/token/verify` {token} → the invited address. */
export const verifyInvitationQueryOptions = (token: string) =>
  queryOptions({
    queryKey: ['access', 'invitation', token],
    queryFn: ({ signal }) =>
      api.post('access/token/verify', { token }, invitationVerifyResponseSchema, { signal }),
    retry: false,
    staleTime: Number.POSITIVE_INFINITY,
  });

/** spec 000 §7 `POST /access/entities/users/invited/setPassword`: creates the user; answers the user data, signed in. */
export function useInvitedSetPasswordMutation() {
  return useMutation({
    mutationFn: (body: InvitedSetPassword) =>
      api.post('access/entities/users/invited/setPassword', body, userDataSchema),
  });
}

/** `POST ui/auth/register` {user, email, password} (self-registration, when loginRelatedData says canRegister). */
export function useRegisterMutation() {
  return useMutation({
    mutationFn: (body: RegistrationRequest) =>
      api.post('ui/auth/register', registrationRequestSchema.parse(body), registrationResponseSchema),
  });
}

/** The CLI sign-in request the confirmation page shows (signed-in users only). */
export const cliSessionQueryOptions = (session: string) =>
  queryOptions({
    queryKey: ['access', 'cli-registration', session],
    queryFn: ({ signal }) =>
      api.get(`access/cli-registration/${encodeURIComponent(session)}`, cliSessionInfoSchema, { signal }),
    retry: false,
  });

/** Confirms a CLI sign-in; a user with an authenticator adds a fresh one-time code (issue 12 §2). */
export function useConfirmCliSessionMutation() {
  return useMutation({
    mutationFn: ({ session, otp }: { session: string; otp?: string }) =>
      api.post(`access/cli-registration/${encodeURIComponent(session)}/confirm`, undefined, undefined, {
        headers: otp?.trim() ? { [OTP_HEADER]: otp.trim() } : {},
      }),
  });
}

export function useCancelCliSessionMutation() {
  return useMutation({
    mutationFn: (session: string) => api.delete(`access/cli-registration/${encodeURIComponent(session)}`),
  });
}

export { type LoginConfig, loginConfigSchema };

export const loginConfigKey = ['system', 'login-config'] as const;

export const loginConfigQueryOptions = () =>
  queryOptions({
    queryKey: loginConfigKey,
    queryFn: ({ signal }) => api.get('system/loginConfig', loginConfigSchema, { signal }),
    staleTime: 60_000,
    retry: false,
  });
