import { z } from 'zod';

/** One login-page link to a provider (spec 000 §3 `oauthProviders`: name, type, url, icon = lower-cased type). */
export const ssoProviderLinkSchema = z.object({
  key: z.string(),
  name: z.string(),
  type: z.string(),
  url: z.string(),
  icon: z.string(),
});
export type SsoProviderLink = z.infer<typeof ssoProviderLinkSchema>;

/** `GET ui/api/v1/sso/loginState` (public): the SSO part of the login state (spec 000 §3, §4). */
export const ssoLoginStateSchema = z.object({
  oauthProviders: z.array(ssoProviderLinkSchema),
  /** The default provider's sign-in URL (any type), else the general login config's SSO URL. */
  ssoProviderLink: z.string().nullable(),
  /** The first enabled SAML provider's sign-in URL. */
  ssoProviderLinkSAML: z.string().nullable(),
  samlLogoutUrl: z.string().nullable(),
  /** LDAP providers enabled: the login form's password is also checked against them. */
  ldapEnabled: z.boolean(),
  isAutoRedirectLogin: z.boolean(),
});
export type SsoLoginState = z.infer<typeof ssoLoginStateSchema>;
