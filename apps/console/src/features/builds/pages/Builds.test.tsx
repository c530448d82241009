import type { BuildNameItem, BuildRunDetails } from '@granary/contracts';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { beforeEach, describe, expect, it } from 'vitest';
import { renderApp } from '../../../shared/test/renderApp.tsx';
import { apiUrl, restUrl, server } from '../../../shared/test/server.ts';
import { userData } from '../../../shared/test/users.ts';

const NAME = 'webapp-ci';
const item = (name: string, number: string, status: string | null): BuildNameItem => ({
  name,
  lastBuildNumber: number,
  lastStarted: '2030-03-01T10:00:00.000+0000',
  lastStartedAt: '2030-03-01T10:00:00.000Z',
  status,
  runs: 2,
});
const runItem = (number: string) => ({
  name: NAME,
  number,
  started: '2030-03-01T10:00:00.000+0000',
  startedAt: `2030-03-0${number}T10:00:00.000Z`,
  durationMillis: 83_000,
  agent: 'GitHub Actions/2.0',
  url: `https://ci.example.com/runs/${number}`,
  status: number === '2' ? 'Released' : null,
  modules: 1,
  artifacts: 1,
  dependencies: 2,
  uploadedBy: 'ci-bot',
});
const details: BuildRunDetails = {
  run: runItem('2'),
  vcs: [
    { url: 'https://git.example.com/acme/webapp.git', revision: 'abc123', branch: 'main', message: 'Fix' },
  ],
  environment: { 'buildInfo.env.CI': 'true', 'buildInfo.env.NODE_VERSION': '20.19.0' },
  issues: {
    affectedIssues: [{ key: 'WEB-42', url: 'https://jira.example.com/WEB-42', summary: 'Login fails' }],
  },
  statuses: [
    {
      status: 'Released',
      repository: 'npm-release',
      timestamp: '2030-03-02T10:00:00.000+0000',
      user: 'admin',
      comment: 'Ship it',
    },
  ],
  modules: [
    {
      id: 'webapp:1.2.0',
      type: 'npm',
      artifacts: [
        {
          name: 'webapp-1.2.0.tgz',
          type: 'tgz',
          path: 'webapp/-/webapp-1.2.0.tgz',
          sha1: 'a'.repeat(40),
          sha256: 'b'.repeat(64),
          md5: 'c'.repeat(32),
          link: { repoKey: 'npm-local', path: 'webapp/-/webapp-1.2.0.tgz' },
        },
      ],
      dependencies: [
        {
          id: 'lodash:4.17.20',
          type: 'tgz',
          scopes: ['prod'],
          requestedBy: [['express:4.18.2', 'webapp:1.2.0']],
          sha1: null,
          sha256: 'd'.repeat(64),
          md5: null,
          link: null,
          vulnerabilities: { critical: 1, high: 2, medium: 0, low: 0, unknown: 0 },
        },
        {
          id: 'express:4.18.2',
          type: 'tgz',
          scopes: ['prod'],
          requestedBy: [['webapp:1.2.0']],
          sha1: null,
          sha256: 'e'.repeat(64),
          md5: null,
          link: null,
          vulnerabilities: null,
        },
      ],
    },
  ],
  provenanceUri: `/api/build/${NAME}/2/provenance`,
};

let promoteBodies: unknown[];
let deleteBodies: unknown[];
let namesSearches: (string | null)[];

function signIn(admin = true) {
  server.use(
    http.get(apiUrl('ui/auth/current'), () =>
      HttpResponse.json(userData({ admin, name: admin ? 'admin' : 'dev' })),
    ),
  );
}

beforeEach(() => {
  promoteBodies = [];
  deleteBodies = [];
  namesSearches = [];
  signIn();
  server.use(
    http.get(apiUrl('ui/builds/names'), ({ request }) => {
      const search = new URL(request.url).searchParams.get('search');
      namesSearches.push(search);
      const all = [item(NAME, '2', 'Released'), item('maven-lib', '7', null)];
      return HttpResponse.json({ builds: all.filter((b) => !search || b.name.includes(search)) });
    }),
    http.get(apiUrl(`ui/builds/history/${NAME}`), () =>
      HttpResponse.json({ name: NAME, runs: [runItem('2'), runItem('1')] }),
    ),
    http.get(apiUrl(`ui/builds/${NAME}/2`), () => HttpResponse.json(details)),
    http.post(restUrl(`build/promote/${NAME}/2`), async ({ request }) => {
      const body = (await request.json()) as { dryRun?: boolean };
      promoteBodies.push(body);
      return HttpResponse.json({
        messages: body.dryRun
          ? [{ level: 'info', message: 'Dry run: 1 artifact would be copied to npm-release' }]
          : [
              {
                level: 'error',
                message: 'webapp/-/webapp-1.2.0.tgz exists in npm-release with other content',
              },
            ],
      });
    }),
    http.post(restUrl('build/delete'), async ({ request }) => {
      deleteBodies.push(await request.json());
      return new HttpResponse(null, { status: 204 });
    }),
    http.get(restUrl('repositories'), () =>
      HttpResponse.json([
        { key: 'npm-local', type: 'LOCAL', packageType: 'npm', url: '', description: '' },
        { key: 'npm-release', type: 'LOCAL', packageType: 'npm', url: '', description: '' },
      ]),
    ),
  );
});

describe('builds (issue 19, spec 001 §2 toolbar type builds → /builds)', () => {
  it('issue 19: the list shows each build with its last run and status, and the search box filters on the server', async () => {
    renderApp('/builds?q=webapp');
    const row = (await screen.findByRole('link', { name: NAME })).closest('tr') as HTMLElement;
    expect(within(row).getByRole('link', { name: '#2' })).toBeTruthy();
    expect(within(row).getByText('Released')).toBeTruthy();
    expect(screen.queryByText('maven-lib')).toBeNull();
    expect(namesSearches).toContain('webapp');
    expect((screen.getByRole('searchbox', { name: 'Search builds' }) as HTMLInputElement).value).toBe(
      'webapp',
    );
  });

  it('spec 000 §4: an old build link (jenkinsRedirect=true) opens the run and says where it came from', async () => {
    renderApp(`/builds/${NAME}/2?jenkinsRedirect=true`);
    expect(await screen.findByText('You followed a build link from your CI server')).toBeTruthy();
    expect(await screen.findByRole('heading', { level: 1, name: `${NAME} #2` })).toBeTruthy();
  });

  it("spec 000 §4: Artifactory's run link /builds/{name}/{number}/{started}/published opens the published modules", async () => {
    renderApp(`/builds/${NAME}/2/1700000000000/published`);
    expect(await screen.findByRole('tab', { name: 'Published Modules', selected: true })).toBeTruthy();
    expect(await screen.findByText('webapp-1.2.0.tgz')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'npm-local/webapp/-/webapp-1.2.0.tgz' })).toBeTruthy();
  });

  it('issue 19: run details show dependencies with requestedBy chains and vulnerability counts, environment, issues, vcs, release history', async () => {
    renderApp(`/builds/${NAME}/2/dependencies`);
    const lodash = (await screen.findByText('lodash:4.17.20')).closest('tr') as HTMLElement;
    expect(within(lodash).getByText('express:4.18.2 ← webapp:1.2.0')).toBeTruthy();
    expect(within(lodash).getByText('1 critical')).toBeTruthy();
    expect(within(lodash).getByText('2 high')).toBeTruthy();
    const express = screen.getByText('express:4.18.2', { selector: 'td' }).closest('tr') as HTMLElement;
    expect(within(express).getByText('not scanned')).toBeTruthy();

    fireEvent.click(screen.getByRole('tab', { name: 'Environment' }));
    expect(await screen.findByText('buildInfo.env.NODE_VERSION')).toBeTruthy();
    fireEvent.click(screen.getByRole('tab', { name: 'Issues' }));
    expect((await screen.findByRole('link', { name: 'WEB-42' })).getAttribute('href')).toBe(
      'https://jira.example.com/WEB-42',
    );
    fireEvent.click(screen.getByRole('tab', { name: 'VCS' }));
    expect(await screen.findByText('abc123')).toBeTruthy();
    fireEvent.click(screen.getByRole('tab', { name: 'Release History' }));
    expect(await screen.findByText('Ship it')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Provenance' }).getAttribute('href')).toBe(
      `/api/build/${NAME}/2/provenance`,
    );
  });

  it('issue 19: the promotion dialog sends status, comment, target, copy/move, dependencies, dry run, and shows the server messages', async () => {
    renderApp(`/builds/${NAME}/2`);
    await screen.findByText('webapp-1.2.0.tgz');
    fireEvent.click(screen.getByRole('button', { name: 'Promote' }));
    const dialog = await screen.findByRole('dialog');
    fireEvent.change(within(dialog).getByLabelText('Comment'), { target: { value: 'QA passed' } });
    fireEvent.mouseDown(within(dialog).getByRole('combobox', { name: 'Target repository' }));
    fireEvent.click(await screen.findByTitle('npm-release'));
    fireEvent.click(within(dialog).getByRole('radio', { name: 'Move' }));
    fireEvent.click(within(dialog).getByRole('checkbox', { name: 'Include dependencies' }));
    fireEvent.click(within(dialog).getByRole('button', { name: 'Dry run' }));
    expect(
      await within(dialog).findByText('Dry run: 1 artifact would be copied to npm-release'),
    ).toBeTruthy();
    expect(within(dialog).getByText('Dry run passed: the promotion can be made')).toBeTruthy();
    expect(promoteBodies[0]).toEqual({
      dryRun: true,
      copy: false,
      artifacts: true,
      dependencies: true,
      failFast: true,
      status: 'Released',
      comment: 'QA passed',
      targetRepo: 'npm-release',
    });

    fireEvent.click(within(dialog).getByRole('checkbox', { name: /Dry run/ }));
    fireEvent.click(within(dialog).getByRole('button', { name: 'Promote' }));
    expect(
      await within(dialog).findByText('webapp/-/webapp-1.2.0.tgz exists in npm-release with other content'),
    ).toBeTruthy();
    expect(within(dialog).getByText('The promotion was refused: nothing was changed')).toBeTruthy();
    expect(promoteBodies[1]).toMatchObject({ dryRun: false });
  });

  it('issue 19: an administrator deletes selected runs with their artifacts', async () => {
    renderApp(`/builds/${NAME}`);
    fireEvent.click(await screen.findByRole('checkbox', { name: 'Select run 1' }));
    fireEvent.click(screen.getByRole('button', { name: 'Delete selected runs' }));
    const dialog = await screen.findByRole('dialog');
    fireEvent.click(within(dialog).getByRole('checkbox', { name: /Also delete the artifacts/ }));
    fireEvent.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await waitFor(() =>
      expect(deleteBodies).toEqual([
        { buildName: NAME, buildNumbers: ['1'], deleteArtifacts: true, deleteAll: false },
      ]),
    );
  });

  it('issue 19: a user who is not an administrator sees no delete or retention action', async () => {
    signIn(false);
    renderApp(`/builds/${NAME}`);
    expect(await screen.findByRole('link', { name: '#2' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Delete selected runs' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Retention…' })).toBeNull();
  });
});

describe('version details Builds tab (issue 19, spec 001 §7 GET builds (path, repoKey))', () => {
  it('spec 001 §7: the Builds tab lists the builds that produced or used the lead file, from builds?path=&repoKey=', async () => {
    const LEAD = 'webapp/-/webapp-1.2.0.tgz';
    const asked: string[] = [];
    server.use(
      http.post(apiUrl('versions'), () =>
        HttpResponse.json({
          data: {
            version: {
              name: '1.2.0',
              packageId: 'npm://webapp',
              created: '2030-01-01T09:00:00.000Z',
              modified: '2030-01-01T09:00:00.000Z',
              repos: [{ name: 'npm-local', type: 'local', leadFilePath: LEAD }],
              licenses: [],
              size: 1234,
              stats: { downloadCount: 0 },
              vulnerabilities: {},
              files: [],
              dependencies: [],
              installCommand: 'npm install webapp@1.2.0',
            },
          },
        }),
      ),
      http.get(apiUrl('packages/readme'), () => HttpResponse.json({ readme: '' })),
      http.get(apiUrl('builds'), ({ request }) => {
        asked.push(new URL(request.url).search);
        return HttpResponse.json({
          builds: [
            {
              name: NAME,
              number: '2',
              started: '2030-03-01T10:00:00.000Z',
              role: 'produced',
              moduleId: 'webapp:1.2.0',
            },
          ],
        });
      }),
    );
    renderApp(`/packages/${encodeURIComponent('npm://webapp')}/1.2.0`);
    fireEvent.click(await screen.findByRole('tab', { name: 'Builds' }));
    const link = await screen.findByRole('link', { name: NAME });
    expect(link.getAttribute('href')).toBe(`/ui/builds/${NAME}/2`);
    expect(within(link.closest('tr') as HTMLElement).getByText('Produced')).toBeTruthy();
    expect(new URLSearchParams(asked[0]).get('repoKey')).toBe('npm-local');
    expect(new URLSearchParams(asked[0]).get('path')).toBe(LEAD);
  });
});
