import { fireEvent, screen } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { afterEach, describe, expect, it } from 'vitest';
import { renderApp } from '../shared/test/renderApp.tsx';
import { apiUrl, server } from '../shared/test/server.ts';
import { userData } from '../shared/test/users.ts';
import { INITIAL_PASSWORD_NOTICE } from './InitialPasswordNotice.tsx';

afterEach(() => sessionStorage.clear());

describe('issue 12 §23: the console nags the admin whose generated password is unchanged', () => {
  it('issue 12 §23: a banner on every page says the generated admin password is still in use and links to Edit Profile', async () => {
    server.use(
      http.get(apiUrl('ui/auth/current'), () =>
        HttpResponse.json(userData({ initialPasswordUnchanged: true })),
      ),
      http.get(apiUrl('ui/userApiKey'), () =>
        HttpResponse.json({ exists: false, createdAt: null, lastUsed: null }),
      ),
    );
    const { router } = renderApp('/');
    const banner = await screen.findByText(INITIAL_PASSWORD_NOTICE);
    expect(banner.closest('[role="alert"]')).toBeTruthy();
    fireEvent.click(screen.getByRole('link', { name: 'Change password' }));
    expect(router.state.location.pathname).toBe('/ui/admin/artifactory/user_profile');
    // still there on the next page, until the password changes
    expect(await screen.findByRole('heading', { level: 1, name: 'Edit Profile' })).toBeTruthy();
    expect(screen.getByText(INITIAL_PASSWORD_NOTICE)).toBeTruthy();
  });

  it('issue 12 §23: no banner once the password was changed (or for anyone else)', async () => {
    server.use(
      http.get(apiUrl('ui/auth/current'), () =>
        HttpResponse.json(userData({ initialPasswordUnchanged: false })),
      ),
    );
    renderApp('/');
    expect(await screen.findByRole('button', { name: /admin/ })).toBeTruthy();
    expect(screen.queryByText(INITIAL_PASSWORD_NOTICE)).toBeNull();
  });
});
