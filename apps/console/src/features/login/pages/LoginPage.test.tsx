import { ACCESS_MESSAGES } from '@granary/contracts';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { afterEach, describe, expect, it } from 'vitest';
import { renderApp } from '../../../shared/test/renderApp.tsx';
import { apiUrl, restUrl, server } from '../../../shared/test/server.ts';
import { userData } from '../../../shared/test/users.ts';

const relatedUrl = apiUrl('access/api/ui/security/loginRelatedData');
const loginUrl = apiUrl('ui/auth/login');
const currentUrl = apiUrl('ui/auth/current');

const related = (body: object = {}) =>
  http.get(relatedUrl, () =>
    HttpResponse.json({ forgotPassword: true, canRememberMe: true, ssoProviderLink: null, ...body }),
  );
const envelope = (status: number, code: string, message: string) =>
  HttpResponse.json({ errors: [{ status, code, message }] }, { status });

async function fillAndSubmit(user = 'admin', password = 'secret') {
  fireEvent.change(await screen.findByLabelText('Username'), { target: { value: user } });
  fireEvent.change(screen.getByLabelText('Password'), { target: { value: password } });
  fireEvent.click(screen.getByRole('button', { name: 'Sign in' }));
}

afterEach(() => sessionStorage.clear());

describe('login page', () => {
  it('spec 000 §7, §9: posts {user, password, type: login} with remember-me on by default and the CSRF header', async () => {
    let seen: { url: URL; body: unknown; csrf: string | null } | undefined;
    server.use(
      related(),
      http.post(loginUrl, async ({ request }) => {
        seen = {
          url: new URL(request.url),
          body: await request.json(),
          csrf: request.headers.get('x-granary-csrf'),
        };
        return HttpResponse.json(userData());
      }),
      http.get(apiUrl('system/version'), () => HttpResponse.json({ version: '1.0.0', revision: 'abc' })),
    );
    const { router } = renderApp('/login');

    expect(await screen.findByRole('heading', { level: 1, name: 'Sign in to Granary' })).toBeTruthy();
    expect((screen.getByRole('checkbox', { name: 'Remember me' }) as HTMLInputElement).checked).toBe(true);
    await fillAndSubmit('admin', 'secret');

    await waitFor(() => expect(router.state.location.pathname).toBe('/ui/packages'));
    expect(seen?.body).toEqual({ user: 'admin', password: 'secret', type: 'login' });
    expect(seen?.url.searchParams.get('_spring_security_remember_me')).toBe('true');
    expect(seen?.csrf).toBe('1');
  });

  it('spec 000 §7: remember-me off is sent as false', async () => {
    let remember: string | null = null;
    server.use(
      related(),
      http.post(loginUrl, ({ request }) => {
        remember = new URL(request.url).searchParams.get('_spring_security_remember_me');
        return HttpResponse.json(userData());
      }),
      http.get(apiUrl('system/version'), () => HttpResponse.json({ version: '1.0.0', revision: 'abc' })),
    );
    renderApp('/login');
    fireEvent.click(await screen.findByRole('checkbox', { name: 'Remember me' }));
    await fillAndSubmit();
    await waitFor(() => expect(remember).toBe('false'));
  });

  it("spec 000 §8: another login failure shows the server's errors as a string", async () => {
    server.use(
      related(),
      http.post(loginUrl, () => envelope(401, 'BAD_CREDENTIALS', 'Bad credentials')),
    );
    renderApp('/login');
    await fillAndSubmit('admin', 'wrong');
    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('Bad credentials')).toBeTruthy();
    expect((screen.getByRole('button', { name: 'Sign in' }) as HTMLButtonElement).disabled).toBe(false);
  });

  it('spec 000 §5: empty username and password are refused before any call', async () => {
    let calls = 0;
    server.use(
      related(),
      http.post(loginUrl, () => {
        calls += 1;
        return HttpResponse.json(userData());
      }),
    );
    renderApp('/login');
    fireEvent.click(await screen.findByRole('button', { name: 'Sign in' }));
    expect(await screen.findAllByText('This field is mandatory')).toHaveLength(2);
    expect(calls).toBe(0);
  });

  it('spec 000 §8: credentials expired goes to change-password with the username', async () => {
    server.use(
      related(),
      http.post(loginUrl, () => envelope(401, 'CREDENTIALS_EXPIRED', 'Credentials expired')),
    );
    const { router } = renderApp('/login');
    await fillAndSubmit('bob', 'old');
    expect(await screen.findByRole('heading', { name: 'Your password has expired' })).toBeTruthy();
    expect(router.state.location.pathname).toBe('/ui/login/change-password');
    expect(router.state.location.search).toBe('?userName=bob');
  });

  it('spec 000 §8: login-related data failure falls back to the internal view (no provider links)', async () => {
    server.use(
      http.get(relatedUrl, () => envelope(500, 'INTERNAL', 'boom')),
      http.post(loginUrl, () => envelope(401, 'BAD_CREDENTIALS', 'Bad credentials')),
    );
    renderApp('/login');
    expect(await screen.findByRole('checkbox', { name: 'Remember me' })).toBeTruthy();
    expect(screen.queryByRole('link', { name: 'Forgot password?' })).toBeNull();
    expect(screen.queryByText('Sign in with SSO')).toBeNull();
  });

  it('spec 000 §3: login-related data drives forgot-password, remember-me and the SSO link', async () => {
    server.use(
      related({ forgotPassword: true, canRememberMe: false, ssoProviderLink: '/ui/api/v1/sso/saml' }),
    );
    renderApp('/login');
    expect(await screen.findByRole('link', { name: 'Forgot password?' })).toBeTruthy();
    expect(screen.getByText('Sign in with SSO').closest('a')?.getAttribute('href')).toBe(
      '/ui/api/v1/sso/saml',
    );
    expect(screen.queryByRole('checkbox', { name: 'Remember me' })).toBeNull();
  });

  it('spec 000 §4: an anonymous visitor opening an admin page goes to login and returns there after', async () => {
    let signedIn = false;
    server.use(
      related(),
      http.get(currentUrl, () =>
        signedIn ? HttpResponse.json(userData()) : envelope(401, 'UNAUTHORIZED', 'Sign in'),
      ),
      http.post(loginUrl, () => {
        signedIn = true;
        return HttpResponse.json(userData());
      }),
      http.get(restUrl('security/users'), () =>
        HttpResponse.json([{ name: 'admin', uri: 'http://x/api/security/users/admin', realm: 'internal' }]),
      ),
    );
    const { router } = renderApp('/admin/management/users');

    expect(await screen.findByRole('heading', { name: 'Sign in to Granary' })).toBeTruthy();
    expect(router.state.location.pathname).toBe('/ui/login');
    expect(new URLSearchParams(router.state.location.search).get('redirectTo')).toBe(
      '/admin/management/users',
    );
    expect(JSON.parse(sessionStorage.getItem('path_after_login') ?? '{}').path).toBe(
      '/admin/management/users',
    );

    await fillAndSubmit();
    expect(await screen.findByRole('heading', { level: 1, name: 'Users' })).toBeTruthy();
    expect(router.state.location.pathname).toBe('/ui/admin/management/users');
    expect(sessionStorage.getItem('path_after_login')).toBeNull();
  });

  it('spec 000 §2: a hostile redirectTo is not followed after login', async () => {
    server.use(
      related(),
      http.post(loginUrl, () => HttpResponse.json(userData())),
      http.get(apiUrl('system/version'), () => HttpResponse.json({ version: '1.0.0', revision: 'abc' })),
    );
    const { router } = renderApp('/login?redirectTo=%2F%2Fevil.example%2Fx');
    await fillAndSubmit();
    await waitFor(() => expect(router.state.location.pathname).toBe('/ui/packages'));
  });

  it('spec 000 §4: a signed-in user hitting login goes to their last route', async () => {
    server.use(
      related(),
      http.get(currentUrl, () => HttpResponse.json(userData())),
      http.get(restUrl('security/groups'), () => HttpResponse.json([])),
    );
    const { router } = renderApp('/login?redirectTo=%2Fadmin%2Fmanagement%2Fgroups');
    expect(await screen.findByRole('heading', { level: 1, name: 'Groups' })).toBeTruthy();
    expect(router.state.location.pathname).toBe('/ui/admin/management/groups');
  });

  it('spec 000 §4: a signed-in user who opens the login route goes back to the last screen they reached, else home', async () => {
    server.use(
      related(),
      http.get(currentUrl, () => HttpResponse.json(userData())),
      http.get(restUrl('security/groups'), () => HttpResponse.json([])),
      http.get(apiUrl('system/version'), () => HttpResponse.json({ version: '1.0.0', revision: 'abc' })),
    );
    const { router } = renderApp('/admin/management/groups?q=dev');
    expect(await screen.findByRole('heading', { level: 1, name: 'Groups' })).toBeTruthy();
    await router.navigate('/login');
    await waitFor(() => expect(router.state.location.pathname).toBe('/ui/admin/management/groups'));
    expect(router.state.location.search).toBe('?q=dev');
    expect(await screen.findByRole('heading', { level: 1, name: 'Groups' })).toBeTruthy();

    // another user signed in on this tab does not inherit it: home (packages) instead
    sessionStorage.setItem(
      'last_route',
      JSON.stringify({ user: 'someone-else', path: '/admin/management/groups' }),
    );
    await router.navigate('/login');
    await waitFor(() => expect(router.state.location.pathname).toBe('/ui/packages'));
  });

  it('spec 000 §4, §8: a non-admin opening an admin page is told "You are not authorized to view this page"', async () => {
    server.use(
      http.get(currentUrl, () => HttpResponse.json(userData({ name: 'bob', admin: false }))),
      http.get(apiUrl('system/version'), () => HttpResponse.json({ version: '1.0.0', revision: 'abc' })),
    );
    const { router } = renderApp('/admin/management/users');
    expect(await screen.findByText(ACCESS_MESSAGES.notAuthorized)).toBeTruthy();
    await waitFor(() => expect(router.state.location.pathname).toBe('/ui/packages'));
  });
});

describe('logout', () => {
  it('spec 000 §2, §4: /logout goes to login with the logout flag, calls logout and shows the form', async () => {
    let loggedOut = 0;
    server.use(
      related(),
      http.post(apiUrl('ui/auth/logout'), ({ request }) => {
        loggedOut += request.headers.get('x-granary-csrf') === '1' ? 1 : 0;
        return new HttpResponse(null, { status: 204 });
      }),
    );
    const { router } = renderApp('/logout');
    expect(await screen.findByRole('heading', { name: 'Sign in to Granary' })).toBeTruthy();
    expect(loggedOut).toBe(1);
    expect(router.state.location.pathname).toBe('/ui/login');
    expect(router.state.location.search).toBe('');
  });

  it('the user menu shows the signed-in name, Edit Profile and Logout', async () => {
    server.use(
      http.get(currentUrl, () => HttpResponse.json(userData({ name: 'carol', admin: false }))),
      http.get(apiUrl('system/version'), () => HttpResponse.json({ version: '1.0.0', revision: 'abc' })),
    );
    renderApp('/');
    fireEvent.click(await screen.findByRole('button', { name: /carol/ }));
    expect(await screen.findByText('Edit Profile')).toBeTruthy();
    expect(screen.getByText('Logout')).toBeTruthy();
    expect(screen.queryByText('New User')).toBeNull();
  });
});
