import { entitlementsFor, type IntegrationRepositoryScan } from '@granary/contracts';
import { fireEvent, screen, within } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import { renderApp } from '../../../shared/test/renderApp.tsx';
import { apiUrl, server } from '../../../shared/test/server.ts';
import { userData } from '../../../shared/test/users.ts';

function scanningInstalled(admin: boolean, scans: IntegrationRepositoryScan[] | null) {
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
    http.post(apiUrl('xray/ui/violations'), () => HttpResponse.json({ total: 0, rows: [] })),
    http.get(apiUrl('integrations/scans'), () =>
      scans ? HttpResponse.json(scans) : HttpResponse.json({ errors: [{ status: 403 }] }, { status: 403 }),
    ),
  );
}

const shop: IntegrationRepositoryScan = {
  integrationKey: 'github-main-key',
  integrationName: 'github-main',
  vendorName: 'github',
  repository: 'acme/shop',
  status: 'done',
  scannedAt: '2030-01-02T10:00:00.000Z',
  error: null,
  manifests: ['package-lock.json', 'requirements.txt'],
  components: 3,
  findings: [
    {
      manifest: 'package-lock.json',
      ecosystem: 'npm',
      package: 'lodash',
      version: '4.17.20',
      advisoryId: 'GHSA-35jh-r3h4-6jhm',
      severity: 'High',
      summary: 'Command Injection in lodash',
      fixedVersions: ['4.17.21'],
    },
    {
      manifest: 'requirements.txt',
      ecosystem: 'PyPI',
      package: 'django',
      version: '4.0.1',
      advisoryId: 'GHSA-django-0001',
      severity: 'High',
      summary: 'SQL injection in Django',
      fixedVersions: ['4.0.2'],
    },
    {
      manifest: 'requirements.txt',
      ecosystem: 'PyPI',
      package: 'django',
      version: '4.0.1',
      advisoryId: 'GHSA-django-0002',
      severity: 'Low',
      summary: 'Open redirect in Django',
      fixedVersions: [],
    },
  ],
  licenses: [
    { package: 'lodash', version: '4.17.20', license: 'MIT' },
    { package: 'left-pad', version: '1.3.0', license: 'WTFPL' },
  ],
};
const api: IntegrationRepositoryScan = {
  ...shop,
  integrationKey: 'gitlab-main-key',
  integrationName: 'gitlab-main',
  vendorName: 'gitlab',
  repository: 'acme/api',
  manifests: [],
  components: 0,
  findings: [],
  licenses: [],
};

describe('Security & Compliance: Source Repositories (issue 18)', () => {
  it('issue 18 (scans shown in Security & Compliance): a row per scanned repository with counts by severity, expandable to its findings and licences', async () => {
    scanningInstalled(true, [shop, api]);
    renderApp('/security_policies/source-repos');
    expect(await screen.findByRole('tab', { name: 'Source Repositories', selected: true })).toBeTruthy();
    const table = await screen.findByRole('table', { name: 'Source repository scans' });
    const shopRow = (await within(table).findByText('acme/shop')).closest('tr') as HTMLElement;
    expect(within(shopRow).getByRole('link', { name: 'github-main' }).getAttribute('href')).toBe(
      '/ui/integrations/gitRepoScan/selectRepos?vcsType=github&integrationId=github-main-key',
    );
    expect(within(shopRow).getByText('GitHub')).toBeTruthy();
    expect(within(shopRow).getByText('High 2')).toBeTruthy();
    expect(within(shopRow).getByText('Low 1')).toBeTruthy();
    const apiRow = within(table).getByText('acme/api').closest('tr') as HTMLElement;
    expect(within(apiRow).getByText('GitLab')).toBeTruthy();
    expect(within(apiRow).getByText('None')).toBeTruthy();

    // Expanded: the findings (advisory, severity, package, version, fixed versions, manifest) and the licences.
    fireEvent.click(within(shopRow).getByRole('button', { name: /expand/i }));
    const findings = await screen.findByRole('table', { name: 'Findings of acme/shop' });
    const lodash = within(findings).getByText('GHSA-35jh-r3h4-6jhm').closest('tr') as HTMLElement;
    for (const text of ['High', 'lodash', '4.17.20', '4.17.21', 'package-lock.json'])
      expect(within(lodash).getByText(text)).toBeTruthy();
    expect(screen.getByText('MIT')).toBeTruthy();
    expect(screen.getByText('WTFPL')).toBeTruthy();
  });

  it('issue 18: with no repository scanned, the tab says so and links to Integrations', async () => {
    scanningInstalled(true, []);
    renderApp('/security_policies/source-repos');
    expect(await screen.findByText(/No source repositories are scanned yet/)).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Integrations' }).getAttribute('href')).toBe('/ui/integrations');
  });

  it('issue 18: the tab is for admins only', async () => {
    scanningInstalled(false, null);
    renderApp('/security_policies/violations');
    expect(await screen.findByRole('tab', { name: 'Violations', selected: true })).toBeTruthy();
    expect(screen.queryByRole('tab', { name: 'Source Repositories' })).toBeNull();
  });
});
