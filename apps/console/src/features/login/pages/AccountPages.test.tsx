import { ACCESS_MESSAGES } from '@granary/contracts';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { afterEach, describe, expect, it } from 'vitest';
import { renderApp } from '../../../shared/test/renderApp.tsx';
import { apiUrl, server } from '../../../shared/test/server.ts';
import { userData } from '../../../shared/test/users.ts';

const TOKEN = 'A'.repeat(20) + 'b_-'.repeat(5) + 'c'.repeat(8); // 43 base64url characters
const SESSION = 's'.repeat(43);
const envelope = (status: number, code: string, message: string) =>
  HttpResponse.json({ errors: [{ status, code, message }] }, { status });
const related = (extra: object = {}) =>
  http.get(apiUrl('access/api/ui/security/loginRelatedData'), () =>
    HttpResponse.json({ forgotPassword: true, canRememberMe: true, ssoProviderLink: null, ...extra }),
  );
const version = http.get(apiUrl('system/version'), () =>
  HttpResponse.json({ version: '1.0.0', revision: 'a' }),
);

afterEach(() => sessionStorage.clear());

describe('invitation', () => {
  it('spec 000 §2, §5: without a token of the right format, back to login with logout', async () => {
    let loggedOut = false;
    server.use(
      related(),
      http.post(apiUrl('ui/auth/logout'), () => {
        loggedOut = true;
        return new HttpResponse(null, { status: 204 });
      }),
    );
    for (const path of ['/login/invitation', '/login/invitation?token=not-a-token']) {
      loggedOut = false;
      const { router, unmount } = renderApp(path);
      expect(await screen.findByRole('heading', { name: 'Sign in to Granary' })).toBeTruthy();
      expect(router.state.location.pathname).toBe('/ui/login');
      expect(loggedOut).toBe(true);
      unmount();
    }
  });

  it('spec 000 §7: verifies the token, creates the user with access/entities/users/invited/setPassword and signs in', async () => {
    let verified: unknown;
    let created: unknown;
    server.use(
      version,
      http.post(apiUrl('access/token/verify'), async ({ request }) => {
        verified = await request.json();
        return HttpResponse.json({ email: 'ivy.lee@example.com', expiresAt: '2030-01-01T00:00:00Z' });
      }),
      http.post(apiUrl('access/entities/users/invited/setPassword'), async ({ request }) => {
        created = await request.json();
        return HttpResponse.json(userData({ name: 'ivy.lee', admin: false }), { status: 201 });
      }),
    );
    const { router } = renderApp(`/login/invitation?token=${TOKEN}`);
    expect(await screen.findByText('ivy.lee@example.com')).toBeTruthy();
    expect((screen.getByLabelText('Username') as HTMLInputElement).value).toBe('ivy.lee');
    fireEvent.change(screen.getByLabelText('New password'), { target: { value: 'Str0ng-Passw0rd!' } });
    fireEvent.change(screen.getByLabelText('Confirm new password'), {
      target: { value: 'Str0ng-Passw0rd!' },
    });
    fireEvent.click(screen.getByRole('button', { name: 'Create account' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/ui'));
    expect(verified).toEqual({ token: TOKEN });
    expect(created).toEqual({ token: TOKEN, username: 'ivy.lee', password: 'Str0ng-Passw0rd!' });
  });

  it('an invalid or expired invitation says so; a refused password shows the server message', async () => {
    server.use(
      http.post(apiUrl('access/token/verify'), () =>
        envelope(400, 'INVALID_INVITATION', ACCESS_MESSAGES.invalidInvitation),
      ),
    );
    renderApp(`/login/invitation?token=${TOKEN}`);
    expect(await screen.findByText(ACCESS_MESSAGES.invalidInvitation)).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Create account' })).toBeNull();
  });
});

describe('registration', () => {
  it('spec 000 §2: the login page links to registration only when loginRelatedData says canRegister', async () => {
    server.use(related({ canRegister: false }));
    const first = renderApp('/login');
    expect(await screen.findByRole('heading', { name: 'Sign in to Granary' })).toBeTruthy();
    expect(screen.queryByRole('link', { name: 'Create an account' })).toBeNull();
    first.unmount();
    server.use(related({ canRegister: true }));
    renderApp('/login');
    fireEvent.click(await screen.findByRole('link', { name: 'Create an account' }));
    expect(await screen.findByRole('heading', { name: 'Create an account' })).toBeTruthy();
  });

  it('spec 000 §2: registers with ui/auth/register, then signs in', async () => {
    let body: unknown;
    let login: unknown;
    server.use(
      version,
      related({ canRegister: true }),
      http.post(apiUrl('ui/auth/register'), async ({ request }) => {
        body = await request.json();
        return HttpResponse.json({ name: 'walt', email: 'walt@example.com' }, { status: 201 });
      }),
      http.post(apiUrl('ui/auth/login'), async ({ request }) => {
        login = await request.json();
        return HttpResponse.json(userData({ name: 'walt', admin: false }));
      }),
    );
    const { router } = renderApp('/login/registration');
    fireEvent.change(await screen.findByLabelText('Username'), { target: { value: 'walt' } });
    fireEvent.change(screen.getByLabelText('Email address'), { target: { value: 'walt@example.com' } });
    fireEvent.change(screen.getByLabelText('New password'), { target: { value: 'Walt-pa55word!' } });
    fireEvent.change(screen.getByLabelText('Confirm new password'), { target: { value: 'Walt-pa55word!' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create account' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/ui'));
    expect(body).toEqual({ user: 'walt', email: 'walt@example.com', password: 'Walt-pa55word!' });
    expect(login).toEqual({ user: 'walt', password: 'Walt-pa55word!', type: 'login' });
  });

  it('with registration off, the page says so and shows no form; a taken name shows the server message', async () => {
    server.use(related({ canRegister: false }));
    renderApp('/login/registration');
    expect(await screen.findByText(ACCESS_MESSAGES.registrationDisabled)).toBeTruthy();
    expect(screen.queryByLabelText('Email address')).toBeNull();
  });
});

describe('cli-registration', () => {
  it('spec 000 §2: an anonymous visitor signs in first and comes back to the confirmation', async () => {
    server.use(related(), version);
    const { router } = renderApp(`/login/cli-registration?session=${SESSION}`);
    expect(await screen.findByRole('heading', { name: 'Sign in to Granary' })).toBeTruthy();
    expect(router.state.location.search).toContain('redirectTo=%2Flogin%2Fcli-registration');
    server.use(
      http.post(apiUrl('ui/auth/login'), () => HttpResponse.json(userData({ name: 'nina', admin: false }))),
      http.get(apiUrl('ui/auth/current'), () => HttpResponse.json(userData({ name: 'nina', admin: false }))),
      http.get(apiUrl(`access/cli-registration/${SESSION}`), () =>
        HttpResponse.json({
          code: 'ABCD-EFGH',
          client: 'granary-cli',
          confirmed: false,
          expiresAt: '2030-01-01T00:00:00Z',
        }),
      ),
    );
    fireEvent.change(screen.getByLabelText('Username'), { target: { value: 'nina' } });
    fireEvent.change(screen.getByLabelText('Password'), { target: { value: 'pw' } });
    fireEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByText('ABCD-EFGH')).toBeTruthy();
    expect(router.state.location.pathname).toBe('/ui/login/cli-registration');
  });

  it('spec 000 §2: the signed-in user compares the code and confirms; the page says the CLI is signed in', async () => {
    let confirmed = false;
    server.use(
      http.get(apiUrl('ui/auth/current'), () => HttpResponse.json(userData({ name: 'nina', admin: false }))),
      http.get(apiUrl(`access/cli-registration/${SESSION}`), () =>
        HttpResponse.json({
          code: 'ABCD-EFGH',
          client: null,
          confirmed: false,
          expiresAt: '2030-01-01T00:00:00Z',
        }),
      ),
      http.post(apiUrl(`access/cli-registration/${SESSION}/confirm`), () => {
        confirmed = true;
        return new HttpResponse(null, { status: 204 });
      }),
    );
    renderApp(`/login/cli-registration?session=${SESSION}`);
    expect(await screen.findByText('ABCD-EFGH')).toBeTruthy();
    expect(screen.getByText(/A command-line client asks/)).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Confirm' }));
    expect(await screen.findByText('The command-line client is signed in')).toBeTruthy();
    expect(confirmed).toBe(true);
  });

  it('issue 12 §2: a user with an authenticator confirms with a one-time code, sent as X-Granary-OTP', async () => {
    let otp: string | null = null;
    server.use(
      http.get(apiUrl('ui/auth/current'), () =>
        HttpResponse.json(userData({ name: 'nina', admin: false, mfaEnrolled: true })),
      ),
      http.get(apiUrl(`access/cli-registration/${SESSION}`), () =>
        HttpResponse.json({
          code: 'ABCD-EFGH',
          client: null,
          confirmed: false,
          expiresAt: '2030-01-01T00:00:00Z',
        }),
      ),
      http.post(apiUrl(`access/cli-registration/${SESSION}/confirm`), ({ request }) => {
        otp = request.headers.get('X-Granary-OTP');
        return new HttpResponse(null, { status: 204 });
      }),
    );
    renderApp(`/login/cli-registration?session=${SESSION}`);
    expect(await screen.findByText('ABCD-EFGH')).toBeTruthy();
    const confirm = screen.getByRole('button', { name: 'Confirm' });
    expect((confirm as HTMLButtonElement).disabled).toBe(true);
    fireEvent.change(screen.getByLabelText('Code from your authenticator'), { target: { value: '654321' } });
    fireEvent.click(confirm);
    expect(await screen.findByText('The command-line client is signed in')).toBeTruthy();
    expect(otp).toBe('654321');
  });

  it('an expired request shows the server message', async () => {
    server.use(
      http.get(apiUrl('ui/auth/current'), () => HttpResponse.json(userData({ name: 'nina', admin: false }))),
      http.get(apiUrl(`access/cli-registration/${SESSION}`), () =>
        envelope(404, 'CLI_SESSION_NOT_FOUND', ACCESS_MESSAGES.cliSessionNotFound),
      ),
    );
    renderApp(`/login/cli-registration?session=${SESSION}`);
    expect(await screen.findByText(ACCESS_MESSAGES.cliSessionNotFound)).toBeTruthy();
  });
});

describe('single sign-on and account portal', () => {
  it('spec 000 §2 sso-login (sso/{type}) and /auth-provider/{type}: "Single sign-on is not configured for {type}" with a way back', async () => {
    for (const path of ['/login/sso/saml', '/auth-provider/saml']) {
      const { unmount } = renderApp(path);
      expect(await screen.findByText('Single sign-on is not configured for saml')).toBeTruthy();
      expect(screen.getByRole('link', { name: /Sign in with a user name and password/ })).toBeTruthy();
      unmount();
    }
  });

  it('spec 000 §2 /user/my-jfrog-redirect: without an account portal, a message page', async () => {
    server.use(related({ accountPortalUrl: null }));
    renderApp('/user/my-jfrog-redirect');
    expect(await screen.findByText(ACCESS_MESSAGES.accountPortalNotConfigured)).toBeTruthy();
  });
});
