import { ACCESS_MESSAGES } from '@granary/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { afterEach, describe, expect, it } from 'vitest';
import { readSelectedProject } from '../../../shared/session/projects.ts';
import { renderApp } from '../../../shared/test/renderApp.tsx';
import { apiUrl, server } from '../../../shared/test/server.ts';
import { userData } from '../../../shared/test/users.ts';

const SHELL_WEB = {
  project_key: 'shellweb',
  display_name: 'Shell Web',
  description: '',
  admin_privileges: { manage_members: true, manage_resources: false, index_resources: false },
  storage_quota_bytes: null,
};

afterEach(() => localStorage.clear());

describe('issue 22: project settings follow the project in the URL', () => {
  it('issue 22 / spec 000 §2: a project admin opening /project-settings/{project} with "All projects" selected gets that project selected and its settings sidebar', async () => {
    server.use(
      http.get(apiUrl('ui/auth/current'), () =>
        HttpResponse.json(userData({ name: 'pat', admin: false, projectAdmin: true })),
      ),
      http.get(apiUrl('projects'), () => HttpResponse.json([SHELL_WEB])),
      http.get(apiUrl('projects/shellweb'), () => HttpResponse.json(SHELL_WEB)),
    );
    expect(readSelectedProject()).toBeNull();
    renderApp('/project-settings/shellweb');
    expect(await screen.findByRole('heading', { level: 1, name: 'Shell Web settings' })).toBeTruthy();
    const sidebar = await screen.findByRole('navigation', { name: 'Project settings' });
    expect(
      within(sidebar)
        .getAllByRole('link')
        .map((a) => a.textContent),
    ).toEqual(['General', 'Members']);
    expect(screen.queryByRole('navigation', { name: 'Administration' })).toBeNull();
    await waitFor(() => expect(readSelectedProject()).toBe('shellweb'));
    expect(screen.getByTitle('Shell Web')).toBeTruthy();
  });

  it('issue 22 / spec 000 §8: a project the user may not see is named with why, and nothing is selected', async () => {
    let asked = 0;
    server.use(
      http.get(apiUrl('ui/auth/current'), () =>
        HttpResponse.json(userData({ name: 'pat', admin: false, projectAdmin: true })),
      ),
      http.get(apiUrl('projects'), () => HttpResponse.json([SHELL_WEB])),
      http.get(apiUrl('projects/secret'), () => {
        asked += 1;
        return HttpResponse.json(
          { errors: [{ status: 403, code: 'FORBIDDEN', message: 'no' }] },
          { status: 403 },
        );
      }),
    );
    renderApp('/project-settings/secret');
    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText(ACCESS_MESSAGES.notAuthorized)).toBeTruthy();
    expect(
      within(alert).getByText(
        'There is no project "secret" among the projects you can see: it does not exist, or you are not one of its members. Ask an administrator to add you to it.',
      ),
    ).toBeTruthy();
    expect(screen.queryByRole('navigation', { name: 'Project settings' })).toBeNull();
    expect(readSelectedProject()).toBeNull();
    expect(asked).toBe(0);
  });
});
