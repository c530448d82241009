import { type LoginConfig, type SsoLoginState, type SsoProviderLink, ssoIconOf } from '@granary/contracts';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../../platform/db/index.ts';
import { enabledProviders, type ResolvedProvider } from './providers.service.ts';

export const SSO_PREFIX = '/ui/api/v1/sso';

/** Where the browser starts a provider's sign-in (a path on this server). */
export function loginPathOf(provider: Pick<ResolvedProvider, 'key' | 'type'>): string | null {
  switch (provider.type) {
    case 'oidc':
    case 'oauth2':
      return `${SSO_PREFIX}/${provider.key}/login`;
    case 'saml':
      return `${SSO_PREFIX}/${provider.key}/saml/login`;
    case 'http':
      return `/ui/api/v1/ui/httpsso`;
    default:
      // LDAP signs in through the login form.
      return null;
  }
}

/** The login page's link type of a provider: its brand (GitHub, Google…), else OpenID / OAuth2 / SAML. */
export function linkTypeOf(provider: ResolvedProvider): string {
  if ((provider.type === 'oidc' || provider.type === 'oauth2') && provider.brand) return provider.brand;
  return { oidc: 'OpenID', oauth2: 'OAuth2', saml: 'SAML', ldap: 'LDAP', http: 'HTTP' }[provider.type];
}

/** The general login configuration (system module), when the system module is there. */
async function loginConfigOf(app: FastifyInstance | undefined): Promise<LoginConfig | undefined> {
  const system = (app as unknown as { system?: { login?: { get(): Promise<LoginConfig> } } } | undefined)
    ?.system;
  return system?.login?.get();
}

/**
 * The SSO part of the login state (spec 000 §3): `oauthProviders` (OIDC and OAuth 2.0 providers, icon =
 * lower-cased type), `ssoProviderLink` (the default provider, else the general SSO URL),
 * `ssoProviderLinkSAML`, `samlLogoutUrl`, and the auto-redirect state (§4): on when the default
 * provider asks for it, or the general login configuration does.
 */
export async function ssoLoginState(db: Db, app?: FastifyInstance): Promise<SsoLoginState> {
  const providers = await enabledProviders(db, { secrets: false });
  const general = await loginConfigOf(app);
  const oauthProviders: SsoProviderLink[] = providers
    .filter((p) => p.type === 'oidc' || p.type === 'oauth2')
    .map((p) => {
      const type = linkTypeOf(p);
      return { key: p.key, name: p.name, type, url: loginPathOf(p)!, icon: ssoIconOf(type) };
    });
  const byDefault = providers.find((p) => p.isDefault && loginPathOf(p) !== null);
  const saml = providers.find((p) => p.type === 'saml');
  const samlLogout = providers.find((p) => p.type === 'saml' && p.logoutUrl);
  const ssoProviderLink = (byDefault && loginPathOf(byDefault)) ?? general?.ssoLoginUrl ?? null;
  return {
    oauthProviders,
    ssoProviderLink,
    ssoProviderLinkSAML: saml ? loginPathOf(saml) : null,
    samlLogoutUrl:
      (samlLogout?.type === 'saml' ? samlLogout.logoutUrl : null) ?? general?.samlLogoutUrl ?? null,
    ldapEnabled: providers.some((p) => p.type === 'ldap'),
    isAutoRedirectLogin: Boolean((byDefault?.autoRedirect && ssoProviderLink) || general?.autoRedirectLogin),
  };
}

/**
 * The provider a spec-shaped route names (`sso/{ssoLoginType}`, `/auth-provider/{type}`,
 * `oauth2/loginRequestPlatform?provider=`): by key, else by brand, else by type (`oauth` = OIDC or
 * OAuth 2.0), the default one first.
 */
export async function providerNamed(db: Db, name: string): Promise<ResolvedProvider | undefined> {
  const wanted = name.toLowerCase();
  const providers = (await enabledProviders(db, { secrets: false })).sort(
    (a, b) => Number(b.isDefault) - Number(a.isDefault),
  );
  return (
    providers.find((p) => p.key === wanted) ??
    providers.find((p) => linkTypeOf(p).toLowerCase() === wanted) ??
    providers.find(
      (p) =>
        p.type === wanted ||
        (wanted === 'oauth' && (p.type === 'oidc' || p.type === 'oauth2')) ||
        (wanted === 'openid' && p.type === 'oidc'),
    )
  );
}
