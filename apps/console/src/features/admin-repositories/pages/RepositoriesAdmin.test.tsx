import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { beforeEach, describe, expect, it } from 'vitest';
import { renderApp } from '../../../shared/test/renderApp.tsx';
import { apiUrl, restUrl, server } from '../../../shared/test/server.ts';
import { userData } from '../../../shared/test/users.ts';

const item = (key: string, type: string) => ({
  key,
  type,
  packageType: 'generic',
  url: `http://x/repository/${key}`,
  description: '',
});

beforeEach(() => {
  server.use(
    http.get(apiUrl('ui/auth/current'), () => HttpResponse.json(userData())),
    http.get(restUrl('repositories'), () =>
      HttpResponse.json([item('libs-local', 'LOCAL'), item('mirror', 'REMOTE'), item('all', 'VIRTUAL')]),
    ),
    http.get(apiUrl('ui/packagetypes'), () =>
      HttpResponse.json([
        { id: 'generic', displayName: 'Generic', icon: 'generic', classes: ['local', 'remote', 'virtual'] },
      ]),
    ),
  );
});

describe('admin repositories', () => {
  it('spec 000 §2 admin.repositories.list shows every repository and links each to its edit route', async () => {
    renderApp('/admin/repositories');
    expect(await screen.findByRole('heading', { level: 1, name: 'Repositories' })).toBeTruthy();
    const link = await screen.findByRole('link', { name: 'mirror' });
    expect(link.getAttribute('href')).toBe('/ui/admin/repositories/remote/mirror/edit');
    expect(screen.getByRole('link', { name: 'libs-local' })).toBeTruthy();
    expect(screen.getByRole('link', { name: 'all' })).toBeTruthy();
  });

  it('spec 000 §2 menu link /admin/repositories/local/new: package type grid, then PUT /api/repositories/{key} with the shared key rule', async () => {
    let put: unknown;
    server.use(
      http.put(restUrl('repositories/tools'), async ({ request }) => {
        put = await request.json();
        return HttpResponse.json(
          {
            key: 'tools',
            rclass: 'local',
            packageType: 'generic',
            description: '',
            notes: '',
            includesPattern: '**/*',
            excludesPattern: '',
            projectKey: null,
          },
          { status: 201 },
        );
      }),
    );
    const { router } = renderApp('/admin/repositories/local/new');
    fireEvent.click(await screen.findByRole('button', { name: 'Generic' }));
    const key = await screen.findByLabelText('Repository Key');
    fireEvent.change(key, { target: { value: 'bad..key' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create Repository' }));
    expect(await screen.findByText('Repository key must not contain ".."')).toBeTruthy();
    fireEvent.change(key, { target: { value: 'tools' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create Repository' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/ui/admin/repositories'));
    expect(put).toMatchObject({
      key: 'tools',
      rclass: 'local',
      packageType: 'generic',
      includesPattern: '**/*',
    });
  });

  it('issue 7: a Maven repository form has the release/snapshot policies and the redeploy switch, off by default', async () => {
    let put: Record<string, unknown> | undefined;
    server.use(
      http.get(apiUrl('ui/packagetypes'), () =>
        HttpResponse.json([
          { id: 'maven', displayName: 'Maven', icon: 'maven', classes: ['local', 'remote', 'virtual'] },
        ]),
      ),
      http.put(restUrl('repositories/libs-release'), async ({ request }) => {
        put = (await request.json()) as Record<string, unknown>;
        return HttpResponse.json({ ...put, description: '', notes: '', projectKey: null }, { status: 201 });
      }),
    );
    const { router } = renderApp('/admin/repositories/local/new?packageType=maven');
    fireEvent.change(await screen.findByLabelText('Repository Key'), { target: { value: 'libs-release' } });
    const redeploy = screen.getByRole('checkbox', { name: 'Allow redeploying releases' }) as HTMLInputElement;
    expect(redeploy.checked).toBe(false);
    fireEvent.click(screen.getByRole('checkbox', { name: 'Handle snapshots' }));
    fireEvent.click(screen.getByRole('button', { name: 'Create Repository' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/ui/admin/repositories'));
    expect(put).toMatchObject({
      key: 'libs-release',
      packageType: 'maven',
      handleReleases: true,
      handleSnapshots: false,
      allowReleaseRedeploy: false,
    });
  });
});

describe('tree browser', () => {
  it('spec 001 §3: a file deep link shows its details and only the actions the server allows', async () => {
    server.use(
      http.get(restUrl('storage/libs-local/docs/a.txt'), () =>
        HttpResponse.json({
          repo: 'libs-local',
          path: '/docs/a.txt',
          created: '2026-01-01T00:00:00.000Z',
          createdBy: 'admin',
          lastModified: '2026-01-01T00:00:00.000Z',
          size: '5',
          mimeType: 'text/plain',
          checksums: { sha1: 'a'.repeat(40), md5: 'b'.repeat(32), sha256: 'c'.repeat(64) },
          uri: 'http://x/api/storage/libs-local/docs/a.txt',
        }),
      ),
      http.get(restUrl('storage/libs-local/docs'), () =>
        HttpResponse.json({
          repo: 'libs-local',
          path: '/docs',
          created: '2026-01-01T00:00:00.000Z',
          createdBy: 'system',
          lastModified: '2026-01-01T00:00:00.000Z',
          children: [{ uri: '/a.txt', folder: false }],
          uri: 'http://x/api/storage/libs-local/docs',
        }),
      ),
      http.get(restUrl('storage/libs-local'), () =>
        HttpResponse.json({
          repo: 'libs-local',
          path: '/',
          created: '2026-01-01T00:00:00.000Z',
          createdBy: 'system',
          lastModified: '2026-01-01T00:00:00.000Z',
          children: [{ uri: '/docs', folder: true }],
          uri: 'http://x/api/storage/libs-local',
        }),
      ),
      http.get(apiUrl('ui/artifactactions'), () =>
        HttpResponse.json({
          repoKey: 'libs-local',
          path: 'docs/a.txt',
          kind: 'file',
          rclass: 'local',
          permissions: { read: true, annotate: false, write: false, delete: false, manage: false },
          actions: ['Download', 'Copy', 'Refresh'],
        }),
      ),
    );
    renderApp('/repos/tree/General/libs-local/docs/a.txt');
    expect(await screen.findByRole('heading', { level: 2, name: 'a.txt' })).toBeTruthy();
    const toolbar = screen.getByRole('toolbar', { name: 'Actions' });
    const buttons = Array.from(toolbar.children).map((b) => b.textContent?.trim());
    expect(buttons).toEqual(['Download', 'Copy', 'Refresh']);
    expect(within(toolbar).getByText('Download').closest('a')?.getAttribute('href')).toBe(
      '/repository/libs-local/docs/a.txt',
    );
    expect(screen.getByText('c'.repeat(64))).toBeTruthy();
  });
});
