import { type ArtifactScan, entitlementsFor, SCAN_STATUSES } from '@granary/contracts';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { beforeEach, describe, expect, it } from 'vitest';
import { renderApp } from '../../../shared/test/renderApp.tsx';
import { apiUrl, server } from '../../../shared/test/server.ts';
import { userData } from '../../../shared/test/users.ts';
import { scanStatusText } from './VersionSecurity.tsx';

const LEAD = 'widget/-/widget-1.0.0.tgz';
const VERSION_PAGE = `/packages/${encodeURIComponent('npm://widget')}/1.0.0`;

const scan: ArtifactScan = {
  repoKey: 'npm-local',
  path: LEAD,
  status: 'scanned',
  error: null,
  scannedAt: '2030-01-01T10:00:00.000Z',
  components: [
    {
      purl: 'pkg:npm/widget@1.0.0',
      ecosystem: 'npm',
      name: 'widget',
      version: '1.0.0',
      licenses: ['MIT'],
      direct: true,
    },
    {
      purl: 'pkg:npm/lodash@4.17.20',
      ecosystem: 'npm',
      name: 'lodash',
      version: '4.17.20',
      licenses: ['MIT'],
      direct: false,
    },
  ],
  issues: [
    {
      issueId: 'GHSA-35jh-r3h4-6jhm',
      cves: ['CVE-2021-23337'],
      summary: 'Command injection in lodash',
      severity: 'High',
      cvssScore: 7.2,
      cvssVector: 'CVSS:3.1/AV:N/AC:L/PR:H/UI:N/S:U/C:H/I:H/A:H',
      componentPurl: 'pkg:npm/lodash@4.17.20',
      componentName: 'lodash',
      componentVersion: '4.17.20',
      fixedVersions: ['4.17.21'],
      impactPath: [`npm-local/${LEAD}`, 'widget 1.0.0', 'lodash 4.17.20'],
    },
  ],
  licenses: ['MIT'],
  vulnerabilities: { high: 1 },
  blocked: null,
};

let scanNowBodies: unknown[];

beforeEach(() => {
  scanNowBodies = [];
  server.use(
    http.get(apiUrl('ui/auth/current'), () => HttpResponse.json(userData())),
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
    http.post(apiUrl('versions'), () =>
      HttpResponse.json({
        data: {
          version: {
            name: '1.0.0',
            packageId: 'npm://widget',
            created: '2030-01-01T09:00:00.000Z',
            modified: '2030-01-01T09:00:00.000Z',
            repos: [{ name: 'npm-local', type: 'local', leadFilePath: LEAD }],
            licenses: ['MIT'],
            size: 1234,
            stats: { downloadCount: 0 },
            vulnerabilities: { high: 1 },
            files: [],
            dependencies: [],
            installCommand: 'npm install widget@1.0.0',
          },
        },
      }),
    ),
    http.get(apiUrl('packages/readme'), () => HttpResponse.json({ readme: '' })),
    http.post(apiUrl('xray/ui/scanNow'), async ({ request }) => {
      scanNowBodies.push(await request.json());
      return HttpResponse.json(
        {
          errors: [
            { status: 403, code: 'FORBIDDEN', message: 'Scanning npm-local needs the deploy permission' },
          ],
        },
        { status: 403 },
      );
    }),
  );
});

async function openSecurityTab() {
  renderApp(VERSION_PAGE);
  fireEvent.click(await screen.findByRole('tab', { name: 'Security' }));
}

describe('Version details: security (issue 16)', () => {
  it('spec 001 §3/§8: the scan status strings are shown as they are, and "not scanned" exactly as \'Not Scanned\'', () => {
    expect(SCAN_STATUSES.map(scanStatusText)).toEqual([
      'scan failed',
      'not supported',
      'in progress',
      'Not Scanned',
      'scanned',
    ]);
  });

  it("spec 001 §8: a version not scanned yet reads 'Not Scanned'", async () => {
    server.use(
      http.post(apiUrl('xray/ui/scanStatus'), () =>
        HttpResponse.json({ status: 'not scanned', scannedAt: null }),
      ),
      http.get(apiUrl(`xray/ui/scan/npm-local/${LEAD}`), () =>
        HttpResponse.json(
          { errors: [{ status: 404, code: 'NOT_FOUND', message: 'Not scanned' }] },
          { status: 404 },
        ),
      ),
    );
    await openSecurityTab();
    await waitFor(() => expect(screen.getByTestId('scan-status').textContent).toBe('Not Scanned'));
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('spec 001 §8: scan status failures are silently ignored; scan now failures show the parsed error; counts, impact path and SBOM links', async () => {
    server.use(
      http.post(apiUrl('xray/ui/scanStatus'), () =>
        HttpResponse.json(
          { errors: [{ status: 500, code: 'INTERNAL', message: 'status broke' }] },
          { status: 500 },
        ),
      ),
      http.get(apiUrl(`xray/ui/scan/npm-local/${LEAD}`), () => HttpResponse.json(scan)),
    );
    await openSecurityTab();
    await waitFor(() => expect(screen.getByTestId('scan-status').textContent).toBe('scanned'));
    expect(screen.queryByText('status broke')).toBeNull();
    const panel = screen.getByRole('tabpanel');
    expect(within(panel).getAllByText('high 1').length).toBeGreaterThan(0);
    expect(within(panel).getByText('GHSA-35jh-r3h4-6jhm')).toBeTruthy();
    expect(within(panel).getByText(`npm-local/${LEAD} → widget 1.0.0 → lodash 4.17.20`)).toBeTruthy();
    expect(within(panel).getByText('4.17.21')).toBeTruthy();
    expect(
      within(panel)
        .getByRole('link', { name: /Download SBOM \(CycloneDX\)/ })
        .getAttribute('href'),
    ).toBe(`/api/sbom/npm-local/widget/-/widget-1.0.0.tgz?format=cyclonedx`);
    expect(
      within(panel)
        .getByRole('link', { name: /Download SBOM \(SPDX\)/ })
        .getAttribute('href'),
    ).toBe(`/api/sbom/npm-local/widget/-/widget-1.0.0.tgz?format=spdx`);

    fireEvent.click(within(panel).getByRole('button', { name: /Scan now/ }));
    expect(await within(panel).findByText('Scanning npm-local needs the deploy permission')).toBeTruthy();
    expect(scanNowBodies).toEqual([{ type: 'artifact', data: { repoKey: 'npm-local', path: LEAD } }]);
  });
});
