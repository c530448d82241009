import type { LoginConfig, SsoLoginState } from '@granary/contracts';

/**
 * The login page's route-guard rules (spec 000 §4) as pure functions of the sign-in settings, so they can be tested
 * without rendering; the page reads the settings with `loginConfigQueryOptions` and the single sign-on part of the
 * login state with `ssoLoginStateQueryOptions` (queries.ts).
 */

/**
 * spec 000 §4 route guard: a SAML user leaving goes to the SAML logout URL: the one the server answers for this
 * session (`GET auth/saml/samlLogoutUrl`: the provider's logout URL or a LogoutRequest to its single logout
 * service), else the login state's, else the general sign-in settings'.
 */
export function samlLogoutTarget(
  user: { realm: string } | null | undefined,
  config: LoginConfig | undefined,
  sso?: { sessionLogoutUrl?: string | null; state?: Pick<SsoLoginState, 'samlLogoutUrl'> | null },
): string | null {
  if (user?.realm !== 'saml') return null;
  return sso?.sessionLogoutUrl || sso?.state?.samlLogoutUrl || config?.samlLogoutUrl || null;
}

/** The admin escape hatch: `?local=true` (or `?noAutoRedirect`) keeps the password form when auto-redirect is on. */
export function asksForLocalForm(params: URLSearchParams): boolean {
  return params.has('noAutoRedirect') || (params.has('local') && params.get('local') !== 'false');
}

/**
 * A provider's sign-in address carrying the path the user asked for (the server checks it is same-origin), so
 * they land there after signing in. Only Granary's own sign-in routes (a path) get it.
 */
export function withRedirectTo(url: string, redirectTo: string | null | undefined): string {
  if (!redirectTo || !url.startsWith('/') || url.startsWith('//')) return url;
  const [path = url, hash = ''] = url.split('#', 2);
  const joined = `${path}${path.includes('?') ? '&' : '?'}redirectTo=${encodeURIComponent(serverPath(redirectTo))}`;
  return hash ? `${joined}#${hash}` : joined;
}

/** The console's paths are below /ui/ on the server: `/packages` → `/ui/packages` (an address is left alone). */
function serverPath(redirectTo: string): string {
  if (!redirectTo.startsWith('/') || redirectTo.startsWith('//')) return redirectTo;
  return redirectTo === '/ui' || redirectTo.startsWith('/ui/') ? redirectTo : `/ui${redirectTo}`;
}

/**
 * spec 000 §4 route guard: with auto-redirect SSO on, a visitor of the login page goes to the SSO provider (the
 * default provider's sign-in, or the general settings' SSO URL), except right after signing out (it would sign them
 * straight back in) or when the address asks for the local form (`?local=true`, `?noAutoRedirect`), so an
 * administrator can still sign in when the provider is down.
 */
export function autoRedirectTarget(
  config: LoginConfig | undefined,
  options: { signedOut: boolean; noAutoRedirect: boolean },
  sso?: Pick<SsoLoginState, 'isAutoRedirectLogin' | 'ssoProviderLink'> | null,
): string | null {
  if (options.signedOut || options.noAutoRedirect) return null;
  if (sso?.isAutoRedirectLogin && sso.ssoProviderLink) return sso.ssoProviderLink;
  if (!config?.autoRedirectLogin || !config.ssoLoginUrl) return null;
  return config.ssoLoginUrl;
}
