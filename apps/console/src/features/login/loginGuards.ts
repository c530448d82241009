import type { LoginConfig } from '@granary/contracts';

/**
 * The login page's route-guard rules (spec 000 §4) as pure functions of the sign-in settings, so they can be tested
 * without rendering; the page reads the settings with `loginConfigQueryOptions` (queries.ts).
 */

/** spec 000 §4 route guard: a SAML user leaving goes to the SAML logout URL (when one is configured). */
export function samlLogoutTarget(
  user: { realm: string } | null | undefined,
  config: LoginConfig | undefined,
): string | null {
  return user?.realm === 'saml' && config?.samlLogoutUrl ? config.samlLogoutUrl : null;
}

/**
 * spec 000 §4 route guard: with auto-redirect SSO on, a visitor of the login page goes to the SSO provider,
 * except right after signing out (it would sign them straight back in) or when the address asks for the
 * local form (`?noAutoRedirect`, so an administrator can still sign in when the provider is down).
 */
export function autoRedirectTarget(
  config: LoginConfig | undefined,
  options: { signedOut: boolean; noAutoRedirect: boolean },
): string | null {
  if (!config?.autoRedirectLogin || !config.ssoLoginUrl) return null;
  if (options.signedOut || options.noAutoRedirect) return null;
  return config.ssoLoginUrl;
}
