import { ACCESS_MESSAGES } from '@granary/contracts';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { beforeEach, describe, expect, it } from 'vitest';
import { renderApp } from '../../../shared/test/renderApp.tsx';
import { apiUrl, restUrl, server } from '../../../shared/test/server.ts';
import { userData } from '../../../shared/test/users.ts';

const listItem = (name: string, realm = 'internal') => ({
  name,
  uri: `http://x/api/security/users/${name}`,
  realm,
});
const user = (name: string, extra: object = {}) => ({
  name,
  email: `${name}@example.com`,
  admin: false,
  disabled: false,
  locked: false,
  passwordExpired: false,
  profileUpdatable: true,
  mfaEnabled: false,
  realm: 'internal',
  groups: [],
  lastLoggedIn: null,
  ...extra,
});

beforeEach(() => {
  server.use(
    http.get(apiUrl('ui/auth/current'), () => HttpResponse.json(userData())),
    http.get(restUrl('security/groups'), () =>
      HttpResponse.json([{ name: 'readers', uri: 'http://x/api/security/groups/readers' }]),
    ),
    http.get(restUrl('security/users'), () =>
      HttpResponse.json([listItem('zoe'), listItem('admin'), listItem('bob', 'saml')]),
    ),
  );
});

const names = () =>
  screen
    .getAllByRole('row')
    .slice(1)
    .map((row) => within(row).getAllByRole('cell')[0]?.textContent);

describe('users', () => {
  it('spec 000 §2: /admin goes to /admin/management/users, sorted by name, searchable', async () => {
    const { router } = renderApp('/admin');
    expect(await screen.findByRole('heading', { level: 1, name: 'Users' })).toBeTruthy();
    expect(router.state.location.pathname).toBe('/ui/admin/management/users');
    await screen.findByText('zoe');
    expect(names()).toEqual(['admin', 'bob', 'zoe']);
    fireEvent.click(screen.getByText('Name'));
    expect(names()).toEqual(['zoe', 'bob', 'admin']);
    fireEvent.change(screen.getByRole('searchbox', { name: 'Search users' }), { target: { value: 'O' } });
    await waitFor(() => expect(names().sort()).toEqual(['bob', 'zoe']));
  });

  it('spec 000 §2 menu link /admin/management/users/new creates a user with PUT /api/security/users/{name}', async () => {
    let put: { body: unknown; csrf: string | null } | undefined;
    server.use(
      http.put(restUrl('security/users/u1'), async ({ request }) => {
        put = { body: await request.json(), csrf: request.headers.get('x-granary-csrf') };
        return new HttpResponse(null, { status: 201 });
      }),
    );
    const { router } = renderApp('/admin/management/users/new');
    fireEvent.change(await screen.findByLabelText('User name'), { target: { value: 'u1' } });
    fireEvent.change(screen.getByLabelText('Email address'), { target: { value: 'u1@example.com' } });
    fireEvent.change(screen.getByLabelText('Password'), { target: { value: 'S3cret-pass' } });
    fireEvent.change(screen.getByLabelText('Confirm password'), { target: { value: 'S3cret-pass' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create User' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/ui/admin/management/users'));
    expect(put).toEqual({
      csrf: '1',
      body: {
        name: 'u1',
        email: 'u1@example.com',
        password: 'S3cret-pass',
        admin: false,
        disabled: false,
        profileUpdatable: true,
        groups: [],
        passwordExpired: false,
      },
    });
  });

  it('a new user needs a name and a password; the server refusing shows its message', async () => {
    server.use(
      http.put(restUrl('security/users/u1'), () =>
        HttpResponse.json(
          { errors: [{ status: 409, code: 'CONFLICT', message: 'User u1 exists' }] },
          { status: 409 },
        ),
      ),
    );
    renderApp('/admin/management/users/new');
    fireEvent.click(await screen.findByRole('button', { name: 'Create User' }));
    expect(await screen.findAllByText('This field is mandatory')).toHaveLength(2);
    fireEvent.change(screen.getByLabelText('User name'), { target: { value: 'u1' } });
    fireEvent.change(screen.getByLabelText('Password'), { target: { value: 'x' } });
    fireEvent.change(screen.getByLabelText('Confirm password'), { target: { value: 'x' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create User' }));
    expect(await screen.findByText('User u1 exists')).toBeTruthy();
  });

  it('edit: unlock a locked user and expire the password', async () => {
    let unlocked = false;
    let expired: unknown;
    server.use(
      http.get(restUrl('security/users/bob'), () => HttpResponse.json(user('bob', { locked: !unlocked }))),
      http.post(restUrl('security/users/bob/unlock'), () => {
        unlocked = true;
        return new HttpResponse(null, { status: 204 });
      }),
      http.post(restUrl('security/users/bob'), async ({ request }) => {
        expired = await request.json();
        return HttpResponse.json(user('bob', { passwordExpired: true }));
      }),
    );
    renderApp('/admin/management/users/bob/edit');
    expect(await screen.findByText('locked')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Unlock' }));
    await waitFor(() => expect(screen.queryByText('locked')).toBeNull());
    expect(unlocked).toBe(true);

    fireEvent.click(screen.getByRole('button', { name: 'Expire Password' }));
    fireEvent.click(await screen.findByRole('button', { name: 'Expire' }));
    await waitFor(() => expect(expired).toEqual({ passwordExpired: true }));
    expect(await screen.findByText('password expired')).toBeTruthy();
  });

  it('edit: saving sends a partial update (POST), keeping the password', async () => {
    let body: unknown;
    server.use(
      http.get(restUrl('security/users/bob'), () => HttpResponse.json(user('bob', { groups: ['readers'] }))),
      http.post(restUrl('security/users/bob'), async ({ request }) => {
        body = await request.json();
        return HttpResponse.json(user('bob', { email: 'new@example.com' }));
      }),
    );
    const { router } = renderApp('/admin/management/users/bob/edit');
    const email = await screen.findByLabelText('Email address');
    await waitFor(() => expect((email as HTMLInputElement).value).toBe('bob@example.com'));
    fireEvent.change(email, { target: { value: 'new@example.com' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/ui/admin/management/users'));
    expect(body).toEqual({
      name: 'bob',
      email: 'new@example.com',
      admin: false,
      disabled: false,
      profileUpdatable: true,
      groups: ['readers'],
      passwordExpired: false,
    });
  });

  it('deletes a user from the list after confirmation', async () => {
    let deleted = '';
    server.use(
      http.delete(restUrl('security/users/:name'), ({ params }) => {
        deleted = String(params.name);
        return new HttpResponse(null, { status: 204 });
      }),
    );
    renderApp('/admin/management/users');
    fireEvent.click(await screen.findByRole('button', { name: 'Delete zoe' }));
    fireEvent.click(await screen.findByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(deleted).toBe('zoe'));
  });
});

describe('groups', () => {
  it('spec 000 §2 menu link /admin/management/groups/new creates a group', async () => {
    let body: unknown;
    server.use(
      http.put(restUrl('security/groups/devs'), async ({ request }) => {
        body = await request.json();
        return new HttpResponse(null, { status: 201 });
      }),
    );
    const { router } = renderApp('/admin/management/groups/new');
    fireEvent.change(await screen.findByLabelText('Group name'), { target: { value: 'devs' } });
    fireEvent.change(screen.getByLabelText('Description'), { target: { value: 'Developers' } });
    fireEvent.click(screen.getByRole('checkbox', { name: 'New users join this group automatically' }));
    fireEvent.click(screen.getByRole('button', { name: 'Create Group' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/ui/admin/management/groups'));
    expect(body).toEqual({
      name: 'devs',
      description: 'Developers',
      adminPrivileges: false,
      autoJoin: true,
      members: [],
    });
  });
});

describe('permissions', () => {
  it('spec 000 §2 menu link /admin/management/permissions/create: resources and the users × actions matrix', async () => {
    let body: unknown;
    server.use(
      http.get(restUrl('repositories'), () => HttpResponse.json([{ key: 'npm-local' }])),
      http.put(restUrl('security/permissions/deployers'), async ({ request }) => {
        body = await request.json();
        return new HttpResponse(null, { status: 201 });
      }),
    );
    const { router } = renderApp('/admin/management/permissions/create');
    fireEvent.change(await screen.findByLabelText('Permission name'), { target: { value: 'deployers' } });
    fireEvent.click(screen.getByRole('checkbox', { name: 'Builds' }));
    fireEvent.click(screen.getByRole('tab', { name: 'Users' }));
    const add = await screen.findByRole('combobox', { name: 'Add a user' });
    fireEvent.mouseDown(add);
    fireEvent.click(await screen.findByTitle('bob'));
    fireEvent.click(await screen.findByRole('checkbox', { name: 'Deploy/Cache for bob' }));
    fireEvent.click(screen.getByRole('button', { name: 'Create Permission' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/ui/admin/management/permissions'));
    expect(body).toEqual({
      name: 'deployers',
      repo: {
        repositories: ['ANY'],
        include_patterns: ['**'],
        exclude_patterns: [],
        actions: { users: { bob: ['read', 'write'] }, groups: {} },
      },
      build: {
        repositories: [],
        include_patterns: ['**'],
        exclude_patterns: [],
        actions: { users: {}, groups: {} },
      },
    });
  });

  it('a permission needs a name', async () => {
    server.use(http.get(restUrl('repositories'), () => HttpResponse.json([])));
    renderApp('/admin/management/permissions/create');
    fireEvent.click(await screen.findByRole('button', { name: 'Create Permission' }));
    expect(await screen.findByText('This field is mandatory')).toBeTruthy();
  });
});

describe('projects', () => {
  beforeEach(() => {
    server.use(
      http.get(apiUrl('access/projects'), () =>
        HttpResponse.json([
          {
            project_key: 'dflt',
            display_name: 'Default Project',
            description: '',
            admin_privileges: { manage_members: true, manage_resources: true, index_resources: true },
            storage_quota_bytes: null,
          },
        ]),
      ),
    );
  });

  async function openCreate(key: string) {
    renderApp('/admin/projects/list');
    expect(await screen.findByText('Default Project')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: /New Project/ }));
    fireEvent.change(await screen.findByLabelText('Project name'), { target: { value: 'Team A' } });
    fireEvent.change(screen.getByLabelText('Project key'), { target: { value: key } });
    fireEvent.click(screen.getByRole('button', { name: 'Create' }));
  }

  it('spec 001 §5: a project key must start with a lowercase character', async () => {
    await openCreate('Team-a');
    expect(await screen.findByText('Project key must start with a lowercase character')).toBeTruthy();
  });

  it('spec 001 §5, §9: a project key is at most 128 characters', async () => {
    await openCreate(`a${'b'.repeat(128)}`);
    expect(await screen.findByText(ACCESS_MESSAGES.projectKeyMaxLength)).toBeTruthy();
  });

  it('creates a project; a failure says "Failed to create a project"', async () => {
    let body: unknown;
    let fail = true;
    server.use(
      http.post(apiUrl('access/projects'), async ({ request }) => {
        body = await request.json();
        if (fail)
          return HttpResponse.json(
            { errors: [{ status: 409, code: 'CONFLICT', message: 'Project team-a exists' }] },
            { status: 409 },
          );
        return HttpResponse.json({
          project_key: 'team-a',
          display_name: 'Team A',
          description: '',
          admin_privileges: { manage_members: true, manage_resources: true, index_resources: true },
          storage_quota_bytes: null,
        });
      }),
    );
    await openCreate('team-a');
    expect(await screen.findByText('Failed to create a project')).toBeTruthy();
    expect(screen.getByText('Project team-a exists')).toBeTruthy();
    expect(body).toEqual({ project_key: 'team-a', display_name: 'Team A' });
    fail = false;
    fireEvent.click(screen.getByRole('button', { name: 'Create' }));
    expect(await screen.findByText('Project Team A created')).toBeTruthy();
  });
});
