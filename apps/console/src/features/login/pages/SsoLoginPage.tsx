import { SSO_MESSAGES, type SsoLoginState } from '@granary/contracts';
import { useQuery } from '@tanstack/react-query';
import { Alert, Button, Flex, Typography } from 'antd';
import { useEffect } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { SsoProviderIcon } from '../../../shared/components/SsoProviderIcon.tsx';
import { PageLoading } from '../../../shared/session/RequireSignIn.tsx';
import { withRedirectTo } from '../loginGuards.ts';
import { ssoLoginStateQueryOptions } from '../queries.ts';
import { SsoNotConfiguredPage } from './SsoNotConfiguredPage.tsx';

export interface SsoLink {
  name: string;
  type: string;
  icon: string;
  url: string;
  key?: string;
}

/** Every sign-in link of the login state: the OAuth / OpenID providers, then the SAML one. */
export function ssoLinksOf(state: SsoLoginState | undefined): SsoLink[] {
  if (!state) return [];
  const links: SsoLink[] = state.oauthProviders.map((p) => ({ ...p }));
  if (state.ssoProviderLinkSAML && !links.some((l) => l.url === state.ssoProviderLinkSAML))
    links.push({ name: 'SAML SSO', type: 'saml', icon: 'saml', url: state.ssoProviderLinkSAML });
  return links;
}

/**
 * spec 000 §2 sso-login `sso/{ssoLoginType}` and `/auth-provider/{type}`: the provider named by the path (its key,
 * its type or its icon name, any case) — `sso/saml`, `sso/oidc`, `auth-provider/github`, `sso/default` for the
 * default one — is where the visitor goes, a full page load carrying `redirectTo`.
 */
export function ssoLinkFor(state: SsoLoginState | undefined, type: string): string | null {
  if (!state) return null;
  const wanted = type.trim().toLowerCase();
  if ((wanted === 'default' || wanted === 'sso') && state.ssoProviderLink) return state.ssoProviderLink;
  const match = ssoLinksOf(state).find(
    (l) =>
      l.key?.toLowerCase() === wanted || l.type.toLowerCase() === wanted || l.icon.toLowerCase() === wanted,
  );
  return match?.url ?? null;
}

export function SsoLoginPage() {
  const { type = '' } = useParams();
  const [params] = useSearchParams();
  const redirectTo = params.get('redirectTo');
  const state = useQuery(ssoLoginStateQueryOptions());
  const target = ssoLinkFor(state.data, type);
  useEffect(() => {
    if (target) window.location.assign(withRedirectTo(target, redirectTo));
  }, [target, redirectTo]);

  if (state.isPending || target) return <PageLoading label="Redirecting to single sign-on…" />;
  const links = ssoLinksOf(state.data);
  if (type.trim().toLowerCase() === 'crowd')
    return <SsoChoice title={SSO_MESSAGES.crowdUnsupported} links={links} redirectTo={redirectTo} />;
  // No provider at all: the page says single sign-on is not configured.
  if (links.length === 0) return <SsoNotConfiguredPage />;
  return (
    <SsoChoice
      title={`There is no single sign-on provider “${type}”. Sign in with one of these:`}
      links={links}
      redirectTo={redirectTo}
    />
  );
}

function SsoChoice({
  title,
  links,
  redirectTo,
}: {
  title: string;
  links: SsoLink[];
  redirectTo: string | null;
}) {
  return (
    <>
      <title>Single sign-on - Granary</title>
      <h1>Single sign-on</h1>
      <Alert type="info" showIcon title={title} style={{ marginBottom: 16 }} />
      <Flex vertical gap="small" style={{ marginBottom: 16 }}>
        {links.map((link) => (
          <Button
            key={link.url}
            block
            href={withRedirectTo(link.url, redirectTo)}
            icon={<SsoProviderIcon icon={link.icon} />}
          >
            Sign in with {link.name}
          </Button>
        ))}
      </Flex>
      <Typography.Paragraph style={{ marginBottom: 0 }}>
        <Link to="/login?local=true">Sign in with a user name and password</Link>
      </Typography.Paragraph>
    </>
  );
}
