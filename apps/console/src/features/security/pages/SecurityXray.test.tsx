import { type ComponentSearchRow, type CustomIssue, entitlementsFor } from '@granary/contracts';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { beforeEach, describe, expect, it } from 'vitest';
import { renderApp } from '../../../shared/test/renderApp.tsx';
import { apiUrl, server } from '../../../shared/test/server.ts';
import { userData } from '../../../shared/test/users.ts';
import { componentLink, severityCounts } from '../xraySearchRules.ts';

function scanningInstalled(admin = true) {
  server.use(
    http.get(apiUrl('ui/auth/current'), () =>
      HttpResponse.json(userData({ admin, name: admin ? 'admin' : 'dev' })),
    ),
    http.get(apiUrl('system/ismicroserviceenabled'), () =>
      HttpResponse.json({
        artifactory: true,
        access: true,
        xray: true,
        distribution: false,
        mc: false,
        pipelines: false,
      }),
    ),
    http.get(apiUrl('jfconnect/entitlements'), () =>
      HttpResponse.json({
        licenseType: 'ENTERPRISE_PLUS',
        rank: 5,
        entitlements: entitlementsFor('ENTERPRISE_PLUS'),
      }),
    ),
  );
}

/** 45 search hits, newest first as the server orders them; widget 1.0.n is the npm tarball's own package. */
const hit = (n: number): ComponentSearchRow => ({
  componentId: `pkg:npm/widget@1.0.${n}`,
  name: 'widget',
  version: `1.0.${n}`,
  pkgType: 'npm',
  repoKey: 'npm-local',
  path: `widget/-/widget-1.0.${n}.tgz`,
  vulnerabilities: n === 0 ? { high: 2, low: 1, medium: 0 } : n === 1 ? {} : { critical: 1 },
  issues: ['GHSA-aaaa-bbbb-cccc'],
  licenses: n === 0 ? ['MIT', 'Apache-2.0'] : [],
  lastUpdated: new Date(Date.UTC(2030, 0, 1, 12, 0) - n * 60_000).toISOString(),
});

let searchBodies: { query: string; page: number; pageSize: number }[];

beforeEach(() => {
  scanningInstalled();
  searchBodies = [];
  const all = Array.from({ length: 45 }, (_, i) => hit(i));
  server.use(
    http.post(apiUrl('xray/ui/component/paginatedsearch'), async ({ request }) => {
      const body = (await request.json()) as { query: string; page: number; pageSize: number };
      searchBodies.push(body);
      const start = (body.page - 1) * body.pageSize;
      return HttpResponse.json({ total: all.length, rows: all.slice(start, start + body.pageSize) });
    }),
  );
});

const rows = () => screen.getAllByRole('row').filter((r) => r.querySelector('td'));

describe('Security & Compliance search (issue 16; spec 001 §2, §7, §9)', () => {
  it('spec 001 §2: the toolbar offers "Security & Compliance" with the xray service and sends the text to its results page', async () => {
    const { router } = renderApp('/security_policies/issues');
    server.use(http.post(apiUrl('xray/ui/securityIssues'), () => HttpResponse.json({ total: 0, rows: [] })));
    fireEvent.mouseDown(await screen.findByRole('combobox', { name: 'Search type' }));
    fireEvent.click(await screen.findByTitle('Security & Compliance'));
    const input = screen.getByRole('textbox', { name: 'Search' });
    fireEvent.change(input, { target: { value: 'GHSA-aaaa-bbbb-cccc' } });
    fireEvent.keyDown(input, { key: 'Enter', code: 'Enter', keyCode: 13 });
    await waitFor(() => expect(router.state.location.pathname).toBe('/ui/xraySearchResults'));
    expect(router.state.location.search).toBe('?q=GHSA-aaaa-bbbb-cccc');
    expect(await screen.findByText('45 components for “GHSA-aaaa-bbbb-cccc”')).toBeTruthy();
    expect(searchBodies[0]).toEqual({ query: 'GHSA-aaaa-bbbb-cccc', page: 1, pageSize: 20 });
  });

  it('spec 001 §9: 20 rows a page in the server order; component, version, type, path, severity counts without zeros, licences, last updated', async () => {
    renderApp('/xraySearchResults?q=widget');
    expect(await screen.findByText('45 components for “widget”')).toBeTruthy();
    await waitFor(() => expect(rows()).toHaveLength(20));
    const headers = screen.getAllByRole('columnheader').map((h) => h.textContent);
    expect(headers).toEqual([
      'Component',
      'Version',
      'Type',
      'Repository and path',
      'Vulnerabilities',
      'Licences',
      'Last updated',
    ]);
    const first = within(rows()[0] as HTMLElement);
    expect(first.getByText('1.0.0')).toBeTruthy();
    expect(first.getByText('npm')).toBeTruthy();
    // Counts by severity, most severe first; the zero medium count is dropped.
    expect(first.getByText('High 2')).toBeTruthy();
    expect(first.getByText('Low 1')).toBeTruthy();
    expect(first.queryByText(/Medium/)).toBeNull();
    expect(first.getByText('MIT, Apache-2.0')).toBeTruthy();
    expect(first.getByText('GHSA-aaaa-bbbb-cccc')).toBeTruthy();
    // The component leads to its package version; the path to the artifact in the tree.
    expect(first.getByRole('link', { name: 'widget' }).getAttribute('href')).toBe(
      '/ui/packages/npm%3A%2F%2Fwidget/1.0.0',
    );
    expect(
      first.getByRole('link', { name: 'npm-local/widget/-/widget-1.0.0.tgz' }).getAttribute('href'),
    ).toBe('/ui/repos/tree/General/npm-local/widget/-/widget-1.0.0.tgz');
    expect(within(rows()[1] as HTMLElement).getByText('none found')).toBeTruthy();

    // Page 3 of 3 asks the server for page 3 and shows the last 5.
    fireEvent.click(screen.getByRole('listitem', { name: '3' }));
    expect(await screen.findByText('1.0.44')).toBeTruthy();
    expect(searchBodies.at(-1)).toEqual({ query: 'widget', page: 3, pageSize: 20 });
    await waitFor(() => expect(rows()).toHaveLength(5));
  });

  it('spec 001 §3: severity counts drop zeros and read most severe first; a bundled component leads to its artifact', () => {
    expect(severityCounts({ low: 1, unknown: 0, critical: 3, high: 0 })).toEqual([
      ['Critical', 3],
      ['Low', 1],
    ]);
    const bundled: ComponentSearchRow = {
      ...hit(0),
      componentId: 'pkg:deb/debian/openssl@3.0.11-1',
      name: 'openssl',
      version: '3.0.11-1',
      pkgType: 'debian',
      repoKey: 'docker-local',
      path: 'app/1.0/manifest.json',
    };
    expect(componentLink(bundled)).toBe('/repos/tree/General/docker-local/app/1.0/manifest.json');
  });
});

describe('custom issues (issue 16; spec 001 §7 custom issue CRUD)', () => {
  let issues: CustomIssue[];
  let posts: unknown[];
  let puts: { id: string; body: unknown }[];
  let deletes: string[];
  beforeEach(() => {
    issues = [
      {
        id: 'ACME-2030-0001',
        summary: 'Leaky widget',
        severity: 'Medium',
        cves: ['CVE-2030-0001'],
        components: [
          { ecosystem: 'npm', name: 'widget', vulnerableVersions: ['<1.0.5'], fixedVersions: ['1.0.5'] },
        ],
      },
    ];
    posts = [];
    puts = [];
    deletes = [];
    server.use(
      http.get(apiUrl('xray/ui/customIssue'), () => HttpResponse.json(issues)),
      http.post(apiUrl('xray/ui/customIssue'), async ({ request }) => {
        const body = (await request.json()) as CustomIssue;
        posts.push(body);
        issues = [...issues, body];
        return HttpResponse.json(body, { status: 201 });
      }),
      http.put(apiUrl('xray/ui/customIssue/:id'), async ({ request, params }) => {
        const body = (await request.json()) as CustomIssue;
        puts.push({ id: String(params.id), body });
        issues = issues.map((i) => (i.id === body.id ? body : i));
        return HttpResponse.json(body);
      }),
      http.delete(apiUrl('xray/ui/customIssue/:id'), ({ params }) => {
        deletes.push(String(params.id));
        issues = issues.filter((i) => i.id !== params.id);
        return new HttpResponse(null, { status: 204 });
      }),
    );
  });

  it('issue 16: an admin lists custom issues; the form requires id, summary, severity and a component, then creates it', async () => {
    renderApp('/security_policies/custom-issues');
    expect(await screen.findByText('ACME-2030-0001')).toBeTruthy();
    expect(screen.getByText('npm/widget (<1.0.5)')).toBeTruthy();

    fireEvent.click(screen.getByRole('button', { name: /New custom issue/ }));
    const drawer = await screen.findByRole('dialog');
    fireEvent.click(within(drawer).getByRole('button', { name: 'Create' }));
    // Issue id, summary, severity, the component's ecosystem and name.
    await waitFor(() => expect(within(drawer).getAllByText('This field is mandatory')).toHaveLength(5));
    expect(posts).toHaveLength(0);

    fireEvent.change(within(drawer).getByLabelText('Issue id'), { target: { value: 'ACME-2030-0002' } });
    fireEvent.change(within(drawer).getByLabelText('Summary'), { target: { value: 'Widget runs code' } });
    fireEvent.change(within(drawer).getByLabelText('Description'), { target: { value: 'Found in review.' } });
    fireEvent.mouseDown(within(drawer).getByRole('combobox', { name: 'Severity' }));
    fireEvent.click(await screen.findByTitle('High'));
    fireEvent.change(within(drawer).getByLabelText('CVEs'), {
      target: { value: 'CVE-2030-0002, CVE-2030-0003' },
    });
    fireEvent.mouseDown(within(drawer).getByRole('combobox', { name: 'Ecosystem of component 1' }));
    fireEvent.click(await screen.findByTitle('PyPI'));
    fireEvent.change(within(drawer).getByLabelText('Name of component 1'), { target: { value: 'widgetpy' } });
    fireEvent.change(within(drawer).getByLabelText('Vulnerable versions of component 1'), {
      target: { value: '>=1.0 <1.4, 2.0.0' },
    });
    fireEvent.change(within(drawer).getByLabelText('Fixed versions of component 1'), {
      target: { value: '1.4' },
    });
    fireEvent.click(within(drawer).getByRole('button', { name: 'Create' }));
    await waitFor(() => expect(posts).toHaveLength(1));
    expect(posts[0]).toEqual({
      id: 'ACME-2030-0002',
      summary: 'Widget runs code',
      description: 'Found in review.',
      severity: 'High',
      cves: ['CVE-2030-0002', 'CVE-2030-0003'],
      components: [
        {
          ecosystem: 'PyPI',
          name: 'widgetpy',
          vulnerableVersions: ['>=1.0 <1.4', '2.0.0'],
          fixedVersions: ['1.4'],
        },
      ],
    });
    expect(await screen.findByText('Custom issue ACME-2030-0002 created')).toBeTruthy();
    expect(await screen.findByText('Widget runs code')).toBeTruthy();
  });

  it('issue 16: editing a custom issue PUTs it by id (the id fixed); deleting asks first', async () => {
    renderApp('/security_policies/custom-issues');
    fireEvent.click(await screen.findByRole('button', { name: 'Edit custom issue ACME-2030-0001' }));
    const drawer = await screen.findByRole('dialog');
    const id = within(drawer).getByLabelText('Issue id') as HTMLInputElement;
    await waitFor(() => expect(id.value).toBe('ACME-2030-0001'));
    expect(id.disabled).toBe(true);
    fireEvent.change(within(drawer).getByLabelText('Summary'), { target: { value: 'Leaky widget, worse' } });
    fireEvent.click(within(drawer).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(puts).toHaveLength(1));
    expect(puts[0]).toEqual({
      id: 'ACME-2030-0001',
      body: {
        id: 'ACME-2030-0001',
        summary: 'Leaky widget, worse',
        severity: 'Medium',
        cves: ['CVE-2030-0001'],
        components: [
          { ecosystem: 'npm', name: 'widget', vulnerableVersions: ['<1.0.5'], fixedVersions: ['1.0.5'] },
        ],
      },
    });
    expect(await screen.findByText('Leaky widget, worse')).toBeTruthy();

    fireEvent.click(screen.getByRole('button', { name: 'Delete custom issue ACME-2030-0001' }));
    fireEvent.click(await screen.findByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(deletes).toEqual(['ACME-2030-0001']));
    expect(await screen.findByText('Custom issue ACME-2030-0001 deleted')).toBeTruthy();
  });
});

describe('watches by issue (issue 16; spec 001 §7 watches by issue)', () => {
  it('issue 16: expanding a security issue shows the watches that flagged it', async () => {
    const asked: string[] = [];
    server.use(
      http.post(apiUrl('xray/ui/securityIssues'), () =>
        HttpResponse.json({
          total: 1,
          rows: [
            {
              issueId: 'GHSA-aaaa-bbbb-cccc',
              cves: ['CVE-2030-1111'],
              summary: 'Prototype pollution',
              severity: 'High',
              cvssScore: 8.1,
              artifacts: 2,
              components: ['pkg:npm/widget@1.0.0'],
              fixedVersions: ['1.0.5'],
            },
          ],
        }),
      ),
      http.get(apiUrl('xray/ui/watchesByIssue/:issueId'), ({ params }) => {
        asked.push(String(params.issueId));
        return HttpResponse.json({ watches: ['all-npm', 'release-gate'] });
      }),
    );
    renderApp('/security_policies/issues');
    expect(await screen.findByText('Prototype pollution')).toBeTruthy();
    expect(asked).toHaveLength(0);
    fireEvent.click(screen.getByRole('button', { name: /expand row/i }));
    const group = await screen.findByRole('group', { name: 'Watches that flagged GHSA-aaaa-bbbb-cccc' });
    expect(within(group).getByText('all-npm')).toBeTruthy();
    expect(within(group).getByText('release-gate')).toBeTruthy();
    expect(asked).toEqual(['GHSA-aaaa-bbbb-cccc']);
  });

  it('issue 16: a user who is not an admin cannot expand an issue (the server answers watches to admins only)', async () => {
    scanningInstalled(false);
    server.use(
      http.post(apiUrl('xray/ui/securityIssues'), () =>
        HttpResponse.json({
          total: 1,
          rows: [
            {
              issueId: 'GHSA-aaaa-bbbb-cccc',
              cves: [],
              summary: 'Prototype pollution',
              severity: 'High',
              cvssScore: null,
              artifacts: 1,
              components: ['pkg:npm/widget@1.0.0'],
              fixedVersions: [],
            },
          ],
        }),
      ),
    );
    renderApp('/security_policies/issues');
    expect(await screen.findByText('Prototype pollution')).toBeTruthy();
    expect(screen.queryByRole('button', { name: /expand row/i })).toBeNull();
    expect(screen.queryByRole('tab', { name: 'Custom issues' })).toBeNull();
  });
});
