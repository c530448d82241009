import {
  SSO_TEST_MESSAGE_TYPE,
  type SsoProvider,
  type SsoProviderWrite,
  type SsoTestResult,
  ssoProviderListSchema,
  ssoProviderSchema,
  ssoTestResultSchema,
} from '@granary/contracts';
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { api, consoleApiUrl } from '../../shared/api/index.ts';

/**
 * Issue 20: single sign-on providers under the console API (`ui/api/v1/sso/providers`, admins only on the
 * server), their test sign-in flow (`sso/{key}/test`, opened in a popup that posts the mapped user back), the SAML
 * service provider's metadata URL and the LDAP connection test.
 */
const enc = encodeURIComponent;
const PROVIDERS = 'sso/providers';

export const ssoKeys = {
  list: ['admin', 'sso', 'providers'] as const,
  one: (key: string) => ['admin', 'sso', 'providers', key] as const,
};

export const ssoProvidersQueryOptions = () =>
  queryOptions({
    queryKey: ssoKeys.list,
    queryFn: async ({ signal }) => (await api.get(PROVIDERS, ssoProviderListSchema, { signal })).providers,
  });

export const ssoProviderQueryOptions = (key: string) =>
  queryOptions({
    queryKey: ssoKeys.one(key),
    queryFn: ({ signal }) => api.get(`${PROVIDERS}/${enc(key)}`, ssoProviderSchema, { signal }),
    retry: false,
  });

/** The PUT answers the provider, bare or as `{created, provider}`. */
const putAnswerSchema = z.union([
  z.object({ provider: ssoProviderSchema }).transform((a) => a.provider),
  ssoProviderSchema,
]);

/** `PUT sso/providers/{key}`: creates or replaces; a secret left `""` keeps the stored one. */
export function useSaveSsoProviderMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ key, body }: { key: string; body: SsoProviderWrite }) =>
      api.put(`${PROVIDERS}/${enc(key)}`, body, putAnswerSchema),
    onSuccess: (provider) => {
      queryClient.setQueryData(ssoKeys.one(provider.key), provider);
      return queryClient.invalidateQueries({ queryKey: ssoKeys.list });
    },
  });
}

export function useDeleteSsoProviderMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (key: string) => api.delete(`${PROVIDERS}/${enc(key)}`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ssoKeys.list }),
  });
}

/**
 * A stored provider as a write body: the answer without its stamps and `…Set` flags; its masked secrets (`""`)
 * keep the stored values. Used to flip one setting (enabled, default, auto-redirect) from the list.
 */
export function writeBodyOf(provider: SsoProvider, patch: Partial<SsoProviderWrite> = {}): SsoProviderWrite {
  const { createdAt: _c, updatedAt: _u, ...rest } = provider as SsoProvider & Record<string, unknown>;
  const body: Record<string, unknown> = { ...rest, ...patch };
  for (const field of Object.keys(body)) if (field.endsWith('Set')) delete body[field];
  return body as SsoProviderWrite;
}

/** Where the test sign-in flow starts (a full page in the popup: the identity provider's pages follow). */
export const ssoTestUrl = (key: string) => consoleApiUrl(`sso/${enc(key)}/test`);

/** The SAML service provider's metadata, at a stable address the identity provider's admin is given. */
export const samlMetadataUrl = (key: string, origin = window.location.origin) =>
  `${origin}${consoleApiUrl(`sso/${enc(key)}/saml/metadata`)}`;

/** The address the identity provider sends SAML responses to (assertion consumer service). */
export const samlAcsUrl = (key: string, origin = window.location.origin) =>
  `${origin}${consoleApiUrl(`sso/${enc(key)}/saml/acs`)}`;

/** The redirect URI an OpenID Connect / OAuth 2.0 client registration needs. */
export const oauthCallbackUrl = (key: string, origin = window.location.origin) =>
  `${origin}${consoleApiUrl(`sso/${enc(key)}/callback`)}`;

/**
 * The test page's `postMessage` to its opener: `{type: 'granary.sso.test', result}` (or the result's fields beside
 * `type`). Anything else, or from another origin, is not a test result.
 */
export function testResultOf(event: MessageEvent, origin = window.location.origin): SsoTestResult | null {
  if (event.origin !== origin) return null;
  const data = event.data as { type?: unknown; result?: unknown } | null;
  if (!data || typeof data !== 'object' || data.type !== SSO_TEST_MESSAGE_TYPE) return null;
  const parsed = ssoTestResultSchema.safeParse(data.result ?? data);
  return parsed.success ? parsed.data : null;
}

const ldapTestSchema = z.looseObject({
  ok: z.boolean(),
  message: z.string().optional(),
  error: z.string().optional(),
});

/** LDAP: connect and bind as the search user with the stored settings (`POST sso/{key}/ldap/test`). */
export function useLdapConnectionTestMutation() {
  return useMutation({
    mutationFn: (key: string) => api.post(`sso/${enc(key)}/ldap/test`, undefined, ldapTestSchema),
  });
}
