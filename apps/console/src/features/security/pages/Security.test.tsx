import { entitlementsFor, type Violation } from '@granary/contracts';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { beforeEach, describe, expect, it } from 'vitest';
import { renderApp } from '../../../shared/test/renderApp.tsx';
import { apiUrl, server } from '../../../shared/test/server.ts';
import { userData } from '../../../shared/test/users.ts';

const SEVERITIES = ['High', 'Medium', 'Low', 'Unknown'] as const;

const violation = (n: number, extra: Partial<Violation> = {}): Violation => ({
  id: `v-${n}`,
  type: 'security',
  severity: SEVERITIES[Math.min(3, Math.floor(n / 20))] ?? 'Unknown',
  issueId: `GHSA-test-${String(n).padStart(4, '0')}`,
  summary: `Prototype pollution ${n}`,
  watch: 'all-npm',
  policy: 'no-high',
  rule: 'high-and-above',
  repoKey: 'npm-local',
  path: `widget/-/widget-1.0.${n}.tgz`,
  componentPurl: `pkg:npm/widget@1.0.${n}`,
  blocking: true,
  ignored: false,
  ignoreRuleId: null,
  created: '2030-01-01T10:00:00.000Z',
  ...extra,
});

/** 60 violations, answered a page at a time; the bodies the console sent are kept. */
let violationBodies: Record<string, unknown>[];
let ignoreBodies: unknown[];

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

beforeEach(() => {
  violationBodies = [];
  ignoreBodies = [];
  const all = Array.from({ length: 60 }, (_, i) => violation(i));
  scanningInstalled();
  server.use(
    http.post(apiUrl('xray/ui/violations'), async ({ request }) => {
      const body = (await request.json()) as { filter: string; page: number; pageSize: number };
      violationBodies.push(body);
      const matching = body.filter === 'ignored' ? [] : all;
      const start = (body.page - 1) * body.pageSize;
      return HttpResponse.json({
        total: matching.length,
        rows: matching.slice(start, start + body.pageSize),
      });
    }),
    http.post(apiUrl('xray/ui/ignore'), async ({ request }) => {
      ignoreBodies.push(await request.json());
      return HttpResponse.json({ id: 'rule-1' });
    }),
  );
});

const rows = () => screen.getAllByRole('row').filter((r) => r.querySelector('td'));

describe('Security & Compliance (issue 16)', () => {
  it('spec 000 §2: the teaser redirects to security_policies when the scanning service is present and licensed', async () => {
    const { router } = renderApp('/security-and-compliance-teaser');
    expect(await screen.findByRole('heading', { level: 1, name: 'Security & Compliance' })).toBeTruthy();
    await waitFor(() => expect(router.state.location.pathname).toBe('/ui/security_policies/violations'));
    expect(screen.getByRole('tab', { name: 'Violations', selected: true })).toBeTruthy();
  });

  it('spec 001 §3/§4/§9: the violations filter defaults to active; 25 rows a page, ordered by severity ascending', async () => {
    renderApp('/security_policies');
    expect(await screen.findByText('GHSA-test-0000')).toBeTruthy();
    expect(violationBodies[0]).toMatchObject({
      filter: 'active',
      page: 1,
      pageSize: 25,
      orderBy: 'severity',
      direction: 'asc',
    });
    expect(rows()).toHaveLength(25);
    const filter = screen.getByRole('radiogroup', { name: 'Violations filter' });
    expect((within(filter).getByRole('radio', { name: 'Active' }) as HTMLInputElement).checked).toBe(true);

    // Page 2 of 3 asks the server for page 2.
    fireEvent.click(screen.getByRole('listitem', { name: '2' }));
    expect(await screen.findByText('GHSA-test-0025')).toBeTruthy();
    expect(violationBodies.at(-1)).toMatchObject({ filter: 'active', page: 2, pageSize: 25 });

    // The filter can be changed: ignored violations, back to page 1.
    fireEvent.click(within(filter).getByRole('radio', { name: 'Ignored' }));
    expect(await screen.findByText('No ignored violations')).toBeTruthy();
    expect(violationBodies.at(-1)).toMatchObject({ filter: 'ignored', page: 1 });
  });

  it('issue 16: ignoring a violation needs a justification and an expiry date; once or always', async () => {
    renderApp('/security_policies/violations');
    fireEvent.click(
      (await screen.findAllByRole('button', { name: 'Ignore GHSA-test-0003' }))[0] as HTMLElement,
    );
    const dialog = await screen.findByRole('dialog');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Ignore' }));
    expect(await within(dialog).findByText('A justification is required')).toBeTruthy();
    expect(within(dialog).getByText('An expiry date is required')).toBeTruthy();
    expect(ignoreBodies).toHaveLength(0);

    fireEvent.click(within(dialog).getByRole('radio', { name: 'Always (this issue on this component)' }));
    fireEvent.change(within(dialog).getByLabelText('Justification'), {
      target: { value: 'Not reachable: the polluted path is never called' },
    });
    fireEvent.change(within(dialog).getByLabelText('Expiry date'), { target: { value: '2031-06-30' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Ignore' }));
    await waitFor(() => expect(ignoreBodies).toHaveLength(1));
    expect(ignoreBodies[0]).toEqual({
      violationId: 'v-3',
      mode: 'all',
      notes: 'Not reachable: the polluted path is never called',
      expiration_date: '2031-06-30T23:59:59.000Z',
    });
    expect(await screen.findByText('Violation GHSA-test-0003 ignored until 2031-06-30')).toBeTruthy();
  });

  it('issue 16: indexed repositories are saved with PUT indexedRepos; a refused save shows the parsed error (spec 001 §8)', async () => {
    const puts: unknown[] = [];
    let refuse = true;
    server.use(
      http.get(apiUrl('xray/ui/indexedRepos'), () =>
        HttpResponse.json({
          indexed: [{ name: 'npm-local', pkgType: 'npm', type: 'local' }],
          notIndexed: [{ name: 'pypi-local', pkgType: 'pypi', type: 'local' }],
        }),
      ),
      http.put(apiUrl('xray/ui/indexedRepos'), async ({ request }) => {
        puts.push(await request.json());
        if (refuse) {
          refuse = false;
          return HttpResponse.json(
            { errors: [{ status: 400, code: 'BAD_REQUEST', message: 'No repository named pypi-local' }] },
            { status: 400 },
          );
        }
        return HttpResponse.json({ indexed: ['npm-local', 'pypi-local'] });
      }),
    );
    renderApp('/security_policies/indexed-repos');
    const item = await screen.findByText('pypi-local (pypi local)');
    fireEvent.click(item);
    fireEvent.click(screen.getByRole('button', { name: /right/ }));
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('No repository named pypi-local')).toBeTruthy();
    expect(puts[0]).toEqual({ indexed: ['npm-local', 'pypi-local'] });
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Indexed repositories saved')).toBeTruthy();
    expect(puts).toHaveLength(2);
  });

  it('issue 16: a user who is not an admin sees violations, issues and licences, not the editors', async () => {
    scanningInstalled(false);
    renderApp('/security_policies/policies');
    expect(await screen.findByRole('tab', { name: 'Violations', selected: true })).toBeTruthy();
    expect(screen.getByRole('tab', { name: 'Security issues' })).toBeTruthy();
    expect(screen.getByRole('tab', { name: 'Licences' })).toBeTruthy();
    for (const name of ['Watches', 'Policies', 'Ignore rules', 'Indexed repositories', 'Advisory database']) {
      expect(screen.queryByRole('tab', { name })).toBeNull();
    }
    expect(await screen.findByText('GHSA-test-0000')).toBeTruthy();
    expect(screen.queryByRole('button', { name: /^Ignore / })).toBeNull();
  });
});
