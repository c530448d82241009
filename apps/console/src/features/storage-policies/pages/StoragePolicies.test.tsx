import type { ArchivedArtifact, RetentionPolicy } from '@granary/contracts';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { beforeEach, describe, expect, it } from 'vitest';
import { renderApp } from '../../../shared/test/renderApp.tsx';
import { apiUrl, restUrl, server } from '../../../shared/test/server.ts';
import { userData } from '../../../shared/test/users.ts';

const policy: RetentionPolicy = {
  id: '7d1e0c55-0000-4000-8000-000000000001',
  name: 'npmOld',
  description: '',
  enabled: true,
  repositories: ['npm-local'],
  projectKey: null,
  rules: {
    keepLastVersions: 2,
    notDownloadedDays: null,
    olderThanDays: 30,
    keepPatterns: [],
    keepProperties: [],
    keepReferenced: true,
    mavenSnapshotKeep: null,
    ociKeepTags: null,
    ociUntaggedDays: null,
  },
  action: 'delete',
  intervalHours: 24,
  createdAt: '2026-01-01T00:00:00.000Z',
  modifiedAt: '2026-01-01T00:00:00.000Z',
  lastRunAt: null,
  nextRunAt: '2026-01-02T00:00:00.000Z',
  lastResult: null,
};

const archived: ArchivedArtifact = {
  id: '12',
  repoKey: 'npm-local',
  path: 'left-pad/-/left-pad-1.0.0.tgz',
  name: 'left-pad-1.0.0.tgz',
  size: 2048,
  sha256: 'a'.repeat(64),
  archivedAt: '2026-01-05T10:00:00.000Z',
  archivedBy: '_retention',
  createdAt: '2025-01-01T00:00:00.000Z',
  policy: 'npmOld',
};

let statusCalls: number;
beforeEach(() => {
  statusCalls = 0;
  server.use(
    http.get(apiUrl('ui/auth/current'), () => HttpResponse.json(userData())),
    http.get(restUrl('retention/policies'), () => HttpResponse.json({ policies: [policy] })),
    http.get(apiUrl('retention/config/enable'), () => {
      statusCalls++;
      return HttpResponse.json({ enable: true });
    }),
  );
});

describe('issue 21: cleanup policies', () => {
  it('issue 21: lists policies and previews a dry run (what would go, with bytes)', async () => {
    server.use(
      http.post(restUrl(`retention/policies/${policy.id}/dry-run`), () =>
        HttpResponse.json({
          candidates: [
            {
              repoKey: 'npm-local',
              kind: 'version',
              name: 'left-pad',
              version: '1.0.0',
              paths: ['left-pad/-/left-pad-1.0.0.tgz'],
              files: 1,
              bytes: 2048,
              reason: 'created more than 30 days ago',
            },
          ],
          count: 1,
          bytes: 2048,
          truncated: false,
        }),
      ),
    );
    renderApp('/admin/repositories/cleanup-policies');
    const row = (await screen.findByRole('link', { name: 'npmOld' }, { timeout: 10_000 })).closest('tr')!;
    expect(within(row).getByText('Every 1 day')).toBeTruthy();
    fireEvent.click(within(row).getByRole('button', { name: 'Dry run' }));
    expect(await screen.findByText('Dry run of npmOld', undefined, { timeout: 10_000 })).toBeTruthy();
    expect(await screen.findByText('1 item would go, 2.0 KB.')).toBeTruthy();
    expect(screen.getByText('created more than 30 days ago')).toBeTruthy();
  });
});

describe('issue 21: Run now', () => {
  it('issue 21: after Run now the list shows the run as running, then its outcome, without a reload', async () => {
    let ran = false;
    server.use(
      http.get(restUrl('retention/policies'), () =>
        HttpResponse.json({
          policies: [
            ran
              ? {
                  ...policy,
                  lastRunAt: '2026-01-02T00:00:00.000Z',
                  lastResult: {
                    dryRun: false,
                    candidates: 3,
                    bytes: 3072,
                    done: 3,
                    failed: 0,
                    at: '2026-01-02T00:00:00.000Z',
                  },
                }
              : policy,
          ],
        }),
      ),
      http.post(restUrl(`retention/policies/${policy.id}/run`), () => HttpResponse.json({ queued: true })),
    );
    renderApp('/admin/repositories/cleanup-policies');
    const row = (await screen.findByRole('link', { name: 'npmOld' }, { timeout: 10_000 })).closest('tr')!;
    expect(within(row).getByText('Never')).toBeTruthy();
    fireEvent.click(within(row).getByRole('button', { name: 'Run now' }));
    // the confirmation's own "Run now"
    await waitFor(() => expect(screen.getAllByRole('button', { name: 'Run now' })).toHaveLength(2));
    fireEvent.click(screen.getAllByRole('button', { name: 'Run now' })[1]!);
    expect(await screen.findByText('Running…', undefined, { timeout: 5000 })).toBeTruthy();
    ran = true;
    expect(await screen.findByText('3 removed, 3.0 KB', undefined, { timeout: 6000 })).toBeTruthy();
    expect(screen.queryByText('Running…')).toBeNull();
  });
});

describe('issue 21: a cleanup policy scoped to a project', () => {
  it("issue 21: the policy form applies a policy to a project's repositories (projectKey, no repository list)", async () => {
    let body: Record<string, unknown> | undefined;
    server.use(
      http.get(apiUrl('projects'), () =>
        HttpResponse.json([
          {
            project_key: 'team1',
            display_name: 'Team One',
            description: '',
            admin_privileges: { manage_members: true, manage_resources: true, index_resources: true },
            storage_quota_bytes: null,
          },
        ]),
      ),
      http.get(restUrl('repositories'), () =>
        HttpResponse.json([
          { key: 'npm-local', type: 'LOCAL', packageType: 'Npm', url: '', description: '' },
        ]),
      ),
      http.get(restUrl('retention/policies'), () =>
        HttpResponse.json({ policies: body ? [{ ...policy, ...body, id: 'p2' }] : [] }),
      ),
      http.post(restUrl('retention/policies'), async ({ request }) => {
        body = (await request.json()) as Record<string, unknown>;
        return HttpResponse.json({ ...policy, ...body, id: 'p2', name: 'teamOld' });
      }),
    );
    renderApp('/admin/repositories/cleanup-policies/new');
    fireEvent.change(await screen.findByLabelText('Name', undefined, { timeout: 10_000 }), {
      target: { value: 'teamOld' },
    });
    fireEvent.click(screen.getByRole('radio', { name: "A project's repositories" }));
    // (the top bar has a project selector too)
    fireEvent.mouseDown(await screen.findByLabelText('Project', { selector: '#policy-project' }));
    fireEvent.click(await screen.findByTitle('Team One (team1)'));
    fireEvent.change(screen.getByLabelText('Versions older than'), { target: { value: '90' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create' }));
    await waitFor(() => expect(body).toBeDefined(), { timeout: 5000 });
    expect(body).toMatchObject({ name: 'teamOld', projectKey: 'team1', repositories: [] });
    expect(body).toMatchObject({ rules: { olderThanDays: 90 } });
    // back on the list, the project is the policy's scope
    expect(await screen.findByText('Project team1', undefined, { timeout: 5000 })).toBeTruthy();
  });
});

describe('spec 001 §4/§8/§9: the retention feature status and the Archive search', () => {
  it('spec 001 §2: the Archive search lists archived files and restores the chosen ones', async () => {
    let restored: string[] = [];
    server.use(
      http.get(restUrl('retention/archive/search'), ({ request }) => {
        expect(new URL(request.url).searchParams.get('q')).toBe('left*');
        return HttpResponse.json({ results: [archived], total: 1 });
      }),
      http.post(restUrl('retention/archive/restore'), async ({ request }) => {
        restored = ((await request.json()) as { ids: string[] }).ids;
        return HttpResponse.json({
          restored: [{ id: '12', repoKey: 'npm-local', path: archived.path }],
          errors: [],
        });
      }),
    );
    renderApp('/artifactoryRetention/search?q=left*');
    const row = (await screen.findByText(archived.path, undefined, { timeout: 10_000 })).closest('tr')!;
    fireEvent.click(within(row).getByRole('checkbox'));
    fireEvent.click(screen.getByRole('button', { name: /Restore/ }));
    await waitFor(() => expect(restored).toEqual(['12']));
    expect(await screen.findByText('Restored 1 file')).toBeTruthy();
  });

  it("spec 001 §4/§9: up to 3 attempts, then the info notification 'There was an error while trying to fetch retention feature status: {message}'", async () => {
    server.use(
      http.get(apiUrl('retention/config/enable'), () => {
        statusCalls++;
        return HttpResponse.json(
          { errors: [{ status: 500, code: 'INTERNAL', message: 'database down' }] },
          { status: 500 },
        );
      }),
    );
    renderApp('/artifactoryRetention/search');
    expect(
      await screen.findByText(
        'There was an error while trying to fetch retention feature status: database down',
        undefined,
        { timeout: 5000 },
      ),
    ).toBeTruthy();
    expect(statusCalls).toBe(3);
    expect(screen.getByText('The archive (cold storage) is not enabled on this instance.')).toBeTruthy();
  });

  it('spec 001 §4: a 404 means disabled (no retry, no notification)', async () => {
    server.use(
      http.get(apiUrl('retention/config/enable'), () => {
        statusCalls++;
        return HttpResponse.json(
          { errors: [{ status: 404, code: 'NOT_FOUND', message: 'No route' }] },
          { status: 404 },
        );
      }),
    );
    renderApp('/artifactoryRetention/search');
    expect(
      await screen.findByText('The archive (cold storage) is not enabled on this instance.'),
    ).toBeTruthy();
    expect(statusCalls).toBe(1);
  });
});
