import { fireEvent, screen, within } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { beforeEach, describe, expect, it } from 'vitest';
import { renderApp } from '../../../shared/test/renderApp.tsx';
import { apiUrl, server } from '../../../shared/test/server.ts';
import { userData } from '../../../shared/test/users.ts';

const project = (key: string, name: string) => ({
  project_key: key,
  display_name: name,
  description: '',
  admin_privileges: { manage_members: true, manage_resources: true, index_resources: true },
  storage_quota_bytes: null,
});

beforeEach(() => {
  server.use(
    http.get(apiUrl('projects'), () => HttpResponse.json([project('web', 'Web shop')])),
    http.get(apiUrl('access/projects/web/users'), () =>
      HttpResponse.json({ members: [{ name: 'dana', roles: ['Developer'] }] }),
    ),
    http.get(apiUrl('access/projects/web/groups'), () =>
      HttpResponse.json({ members: [{ name: 'qa', roles: ['Viewer'] }] }),
    ),
  );
});

describe('/projects (issue 17, spec 000 §2 used by onboarding)', () => {
  it("spec 000 §2 /projects: the user's projects with their own and their groups' roles; no Create for a non-admin", async () => {
    server.use(
      http.get(apiUrl('ui/auth/current'), () =>
        HttpResponse.json(userData({ name: 'dana', admin: false, groups: ['qa'] })),
      ),
    );
    renderApp('/projects');
    const row = (await screen.findByText('Web shop')).closest('tr') as HTMLElement;
    expect(await within(row).findByText('Developer')).toBeTruthy();
    expect(within(row).getByText('Viewer')).toBeTruthy();
    expect(screen.queryByRole('button', { name: /Create Project/ })).toBeNull();
  });

  it("spec 000 §8: a failed onboarding project creation says 'Failed to create a project'", async () => {
    server.use(
      http.get(apiUrl('ui/auth/current'), () => HttpResponse.json(userData())),
      http.post(apiUrl('access/projects'), () =>
        HttpResponse.json(
          {
            errors: [
              { status: 409, code: 'PROJECT_EXISTS', message: 'A project with this key already exists' },
            ],
          },
          { status: 409 },
        ),
      ),
    );
    renderApp('/projects');
    fireEvent.click(await screen.findByRole('button', { name: /Create Project/ }));
    const dialog = await screen.findByRole('dialog');
    fireEvent.change(within(dialog).getByLabelText('Project name'), { target: { value: 'Web shop' } });
    fireEvent.change(within(dialog).getByLabelText('Project key'), { target: { value: 'web' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Create' }));
    expect(await within(dialog).findByText('Failed to create a project')).toBeTruthy();
    expect(within(dialog).getByText('A project with this key already exists')).toBeTruthy();
  });
});
