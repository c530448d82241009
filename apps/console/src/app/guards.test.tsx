import { ACCESS_MESSAGES, NO_LICENSE } from '@granary/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import { SIGN_IN_NEEDED } from '../shared/session/RequireSignIn.tsx';
import { renderApp } from '../shared/test/renderApp.tsx';
import { apiUrl, generalConfig, server } from '../shared/test/server.ts';
import { userData } from '../shared/test/users.ts';
import { noLicenceNotice } from './guards.tsx';

/** The login form's related data (its answer does not matter here). */
const loginRelated = http.get(apiUrl('access/api/ui/security/loginRelatedData'), () =>
  HttpResponse.json({ forgotPassword: true, canRememberMe: true, ssoProviderLink: null }),
);

describe('issue 22: a user bounced by the shell is told why', () => {
  it('issue 22 / spec 000 §4, §8: with licence type N/A a regular user goes to login and is told the server has no licence', async () => {
    let signedIn = true;
    server.use(
      loginRelated,
      http.get(apiUrl('ui/auth/current'), () =>
        signedIn
          ? HttpResponse.json(userData({ name: 'dev', admin: false }))
          : HttpResponse.json(
              { errors: [{ status: 401, code: 'UNAUTHORIZED', message: 'Sign in' }] },
              { status: 401 },
            ),
      ),
      http.post(apiUrl('ui/auth/logout'), () => {
        signedIn = false;
        return new HttpResponse(null, { status: 204 });
      }),
      http.get(apiUrl('system/licenses'), () =>
        HttpResponse.json({
          type: NO_LICENSE,
          rank: 0,
          source: 'none',
          licensedTo: null,
          id: null,
          validThrough: null,
          expired: false,
          reason: 'The licence was removed',
        }),
      ),
    );
    const { router } = renderApp('/packages');
    const notice = await screen.findByText(noLicenceNotice('The licence was removed'));
    expect(notice.textContent).toBe(
      'The licence was removed: this server has no licence, and until an administrator installs one only administrators can use the console.',
    );
    expect(screen.getByText(ACCESS_MESSAGES.notAuthorized)).toBeTruthy();
    expect(await screen.findByRole('heading', { level: 1, name: 'Sign in to Granary' })).toBeTruthy();
    await waitFor(() => expect(router.state.location.pathname).toBe('/ui/login'));
    // The reason is still there on the sign-in form (it stays until closed or until a sign-in).
    expect(screen.getByText(noLicenceNotice('The licence was removed'))).toBeTruthy();
  });

  it('issue 22 / spec 000 §6: an anonymous visitor (anonymous access on) is offered no sidebar entry that needs sign-in, and is told why when sent to sign in', async () => {
    server.use(
      loginRelated,
      http.get(apiUrl('ui/generalConfig'), () =>
        HttpResponse.json(generalConfig({ anonymousAccessAllowed: true })),
      ),
    );
    const first = renderApp('/overview');
    const sidebar = await screen.findByRole('navigation', { name: 'Application' });
    const entries = within(sidebar)
      .getAllByRole('link')
      .map((a) => a.textContent);
    expect(entries).toContain('Packages');
    expect(entries).toContain('Overview');
    expect(entries).not.toContain('Artifacts');
    expect(entries).not.toContain('Security & Compliance');
    first.unmount();

    // A page behind sign-in, opened by its URL: the sign-in form, with the reason.
    const { router } = renderApp('/repos/tree/General');
    expect(await screen.findByText(SIGN_IN_NEEDED)).toBeTruthy();
    expect(screen.getByText(ACCESS_MESSAGES.notAuthorized)).toBeTruthy();
    expect(await screen.findByRole('heading', { level: 1, name: 'Sign in to Granary' })).toBeTruthy();
    expect(router.state.location.search).toBe(
      `?${new URLSearchParams({ redirectTo: '/repos/tree/General' })}`,
    );
  });
});
