import type { SsoLoginState } from '@granary/contracts';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { renderApp } from '../../../shared/test/renderApp.tsx';
import { apiUrl, server } from '../../../shared/test/server.ts';
import { userData } from '../../../shared/test/users.ts';

/** Issue 20: the login page's single sign-on parts (spec 000 §2, §3, §4, §6, §7) against the SSO login state. */
const state = (over: Partial<SsoLoginState> = {}): SsoLoginState => ({
  oauthProviders: [
    { key: 'corp', name: 'Corp ID', type: 'oidc', url: '/ui/api/v1/sso/corp/login', icon: 'oidc' },
    { key: 'gh', name: 'GitHub', type: 'GitHub', url: '/ui/api/v1/sso/gh/login', icon: 'github' },
  ],
  ssoProviderLink: '/ui/api/v1/sso/corp/login',
  ssoProviderLinkSAML: '/ui/api/v1/sso/okta/saml/login',
  samlLogoutUrl: null,
  ldapEnabled: false,
  isAutoRedirectLogin: false,
  ...over,
});
const ssoState = (over: Partial<SsoLoginState> = {}) =>
  http.get(apiUrl('sso/loginState'), () => HttpResponse.json(state(over)));

let assign: ReturnType<typeof vi.fn<(url: string | URL) => void>>;
beforeEach(() => {
  assign = vi.fn<(url: string | URL) => void>();
  vi.spyOn(window.location, 'assign').mockImplementation(assign);
});
afterEach(() => {
  vi.restoreAllMocks();
  sessionStorage.clear();
});

const linkOf = (name: string) => screen.getByText(name).closest('a');

describe('issue 20: login page single sign-on', () => {
  it('spec 000 §2, §3: OAuth provider links with icons from the lower-cased type, and the SAML link, carrying redirectTo', async () => {
    server.use(ssoState());
    renderApp('/login?redirectTo=%2Fpackages%2Fx');
    expect(await screen.findByText('Sign in with Corp ID')).toBeTruthy();
    expect(linkOf('Sign in with Corp ID')?.getAttribute('href')).toBe(
      '/ui/api/v1/sso/corp/login?redirectTo=%2Fui%2Fpackages%2Fx',
    );
    // The icons load after the links (only when providers exist: the login route's JavaScript budget).
    await waitFor(() =>
      expect(linkOf('Sign in with GitHub')?.querySelector('[data-icon="github"]')).toBeTruthy(),
    );
    expect(linkOf('Sign in with Corp ID')?.querySelector('[data-icon="oidc"]')).toBeTruthy();
    expect(linkOf('Sign in with SAML SSO')?.getAttribute('href')).toBe(
      '/ui/api/v1/sso/okta/saml/login?redirectTo=%2Fui%2Fpackages%2Fx',
    );
    expect(linkOf('Sign in with SAML SSO')?.querySelector('[data-icon="saml"]')).toBeTruthy();
    // The default provider is already a link: no second "Sign in with SSO" for it.
    expect(screen.queryByText('Sign in with SSO')).toBeNull();
    expect(screen.getByLabelText('Username')).toBeTruthy();
  });

  it('spec 000 §4: auto-redirect SSO sends the visitor to the default provider, with the path asked for', async () => {
    server.use(ssoState({ isAutoRedirectLogin: true }));
    renderApp('/login?redirectTo=%2Fbuilds');
    await waitFor(() =>
      expect(assign).toHaveBeenCalledWith('/ui/api/v1/sso/corp/login?redirectTo=%2Fui%2Fbuilds'),
    );
    expect(screen.queryByLabelText('Username')).toBeNull();
  });

  it('spec 000 §4: the escape hatch ?local=true keeps the password form while auto-redirect is on', async () => {
    server.use(ssoState({ isAutoRedirectLogin: true }));
    renderApp('/login?local=true');
    expect(await screen.findByLabelText('Username')).toBeTruthy();
    expect(await screen.findByText('Sign in with Corp ID')).toBeTruthy();
    expect(assign).not.toHaveBeenCalled();
  });

  it('a refused single sign-on comes back with ?ssoError: the reason is shown and auto-redirect does not loop', async () => {
    server.use(ssoState({ isAutoRedirectLogin: true }));
    renderApp(`/login?${new URLSearchParams({ ssoError: 'This user is disabled: ask an administrator' })}`);
    expect(await screen.findByText('This user is disabled: ask an administrator')).toBeTruthy();
    expect(screen.getByLabelText('Username')).toBeTruthy();
    expect(assign).not.toHaveBeenCalled();
  });

  it('spec 000 §4: a SAML user signing out goes to the SAML logout URL the server answers for the session', async () => {
    let signedIn = true;
    let asked = false;
    server.use(
      ssoState({ samlLogoutUrl: 'https://idp.example/fallback-slo' }),
      http.get(apiUrl('ui/auth/current'), () =>
        signedIn
          ? HttpResponse.json(userData({ name: 'sam', realm: 'saml', admin: false }))
          : HttpResponse.json(
              { errors: [{ status: 401, code: 'UNAUTHORIZED', message: 'x' }] },
              { status: 401 },
            ),
      ),
      http.get(apiUrl('auth/saml/samlLogoutUrl'), () => {
        asked = signedIn;
        return HttpResponse.json({ logoutUrl: 'https://idp.example/slo?SAMLRequest=abc' });
      }),
      http.post(apiUrl('ui/auth/logout'), () => {
        signedIn = false;
        return new HttpResponse(null, { status: 204 });
      }),
    );
    renderApp('/login?logout=true');
    await waitFor(() => expect(assign).toHaveBeenCalledWith('https://idp.example/slo?SAMLRequest=abc'));
    expect(asked).toBe(true);
    expect(signedIn).toBe(false);
  });

  it('spec 000 §4: an internal user signing out stays in Granary (no SAML logout)', async () => {
    let signedOut = false;
    server.use(
      ssoState({ samlLogoutUrl: 'https://idp.example/slo', isAutoRedirectLogin: true }),
      http.get(apiUrl('ui/auth/current'), () =>
        signedOut
          ? HttpResponse.json(
              { errors: [{ status: 401, code: 'UNAUTHORIZED', message: 'x' }] },
              { status: 401 },
            )
          : HttpResponse.json(userData()),
      ),
      http.post(apiUrl('ui/auth/logout'), () => {
        signedOut = true;
        return new HttpResponse(null, { status: 204 });
      }),
    );
    const { router } = renderApp('/login?logout=true');
    // Signed out, the form shows: no redirect back to the provider right after signing out.
    expect(await screen.findByLabelText('Username')).toBeTruthy();
    expect(router.state.location.search).toBe('');
    expect(assign).not.toHaveBeenCalled();
  });
});

describe('issue 20: spec 000 §2 sso/{ssoLoginType} and /auth-provider/{type}', () => {
  it('goes to the provider the path names: by type (sso/saml), by icon (auth-provider/github), by key (sso/corp)', async () => {
    server.use(ssoState());
    for (const [path, to] of [
      ['/login/sso/saml', '/ui/api/v1/sso/okta/saml/login'],
      ['/auth-provider/github', '/ui/api/v1/sso/gh/login'],
      ['/login/sso/corp?redirectTo=%2Fsearch', '/ui/api/v1/sso/corp/login?redirectTo=%2Fui%2Fsearch'],
    ] as const) {
      const { unmount } = renderApp(path);
      await waitFor(() => expect(assign).toHaveBeenCalledWith(to));
      unmount();
    }
  });

  it('with providers but none of that type, the page lists the ones there are instead of "not configured"', async () => {
    server.use(ssoState());
    renderApp('/login/sso/keycloak');
    expect(await screen.findByText(/There is no single sign-on provider “keycloak”/)).toBeTruthy();
    expect(screen.queryByText(/not configured/)).toBeNull();
    expect(linkOf('Sign in with GitHub')?.getAttribute('href')).toBe('/ui/api/v1/sso/gh/login');
    expect(screen.getByRole('link', { name: 'Sign in with a user name and password' })).toBeTruthy();
    expect(assign).not.toHaveBeenCalled();
  });

  it('crowd: says clearly it is not supported', async () => {
    server.use(ssoState());
    renderApp('/login/sso/crowd');
    expect(await screen.findByText(/Atlassian Crowd is not supported/)).toBeTruthy();
  });
});

describe('issue 20: spec 000 §6 OAuth realm users fetch an API key with an empty password', () => {
  it('the profile asks no password and sends Basic "name:" in the re-authentication header', async () => {
    let auth: string | null = null;
    server.use(
      http.get(apiUrl('ui/auth/current'), () =>
        HttpResponse.json(userData({ name: 'olivia', realm: 'oauth', admin: false })),
      ),
      http.get(apiUrl('ui/userApiKey'), () =>
        HttpResponse.json({ exists: false, createdAt: null, lastUsed: null }),
      ),
      http.get(apiUrl('apiKey/olivia'), ({ request }) => {
        auth = request.headers.get('x-granary-reauthentication');
        return HttpResponse.json({ apiKey: 'AKCp-olivia-key' });
      }),
    );
    renderApp('/admin/artifactory/user_profile');
    fireEvent.click(await screen.findByRole('button', { name: 'Create API key' }));
    expect(await screen.findByText('AKCp-olivia-key')).toBeTruthy();
    expect(screen.queryByLabelText('Current password')).toBeNull();
    expect(auth).toBe(`Basic ${btoa('olivia:')}`);
    // Issue 20: the identity provider handles their second factor: no authenticator set-up here.
    expect(screen.queryByRole('heading', { name: 'Two-step verification' })).toBeNull();
  });
});
