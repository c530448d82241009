import { entitlementsFor, type ReleaseBundleVersion } from '@granary/contracts';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { beforeEach, describe, expect, it } from 'vitest';
import { renderApp } from '../../../shared/test/renderApp.tsx';
import { apiUrl, restUrl, server } from '../../../shared/test/server.ts';
import { userData } from '../../../shared/test/users.ts';

const root = (path: string) => `http://localhost/${path}`;
const RB = 'lifecycle/api/v2/release_bundle';

const bundle: ReleaseBundleVersion = {
  status: 'COMPLETED',
  repository_key: 'release-bundles-v2',
  release_bundle_name: 'webapp',
  release_bundle_version: '1.2.0',
  created_by: 'admin',
  created: '2030-03-01T10:00:00.000Z',
  release_bundle_sha256: 'f'.repeat(64),
  source: 'local',
  file_count: 1,
  total_size: 2048,
  environments: ['DEV'],
  source_type: 'builds',
  files: [{ repoKey: 'npm-local', path: 'webapp/-/webapp-1.2.0.tgz', sha256: 'b'.repeat(64), size: 2048 }],
  signature: {
    key_name: 'release-key',
    key_id: '0123456789ABCDEF',
    fingerprint: 'AB'.repeat(20),
    armored: '-----BEGIN PGP SIGNATURE-----\nxyz\n-----END PGP SIGNATURE-----',
  },
};

let targets: unknown[];
let created: { body: unknown; key: string | null }[];
let promotions: unknown[];

function services(distribution: boolean, licenseType = 'ENTERPRISE_PLUS', version = '1.0.0') {
  server.use(
    http.get(apiUrl('system/ismicroserviceenabled'), () =>
      HttpResponse.json({
        artifactory: true,
        access: true,
        xray: false,
        distribution,
        mc: false,
        pipelines: false,
      }),
    ),
    http.get(apiUrl('jfconnect/entitlements'), () =>
      HttpResponse.json({
        licenseType,
        rank: licenseType === 'ENTERPRISE_PLUS' ? 5 : 4,
        entitlements: entitlementsFor(licenseType as 'ENTERPRISE_PLUS'),
      }),
    ),
    http.get(apiUrl('system/version'), () => HttpResponse.json({ version, revision: 'test' })),
    http.get(apiUrl('system/licenses'), () =>
      HttpResponse.json({
        type: licenseType,
        rank: 5,
        source: 'builtin',
        licensedTo: 'Granary',
        id: 'builtin',
        validThrough: null,
        expired: false,
        reason: null,
      }),
    ),
  );
}

function signIn(admin = true) {
  server.use(http.get(apiUrl('ui/auth/current'), () => HttpResponse.json(userData({ admin }))));
}

beforeEach(() => {
  targets = [];
  created = [];
  promotions = [];
  signIn();
  services(true);
  server.use(
    http.get(root(`${RB}/names`), () =>
      HttpResponse.json({
        release_bundles: [
          {
            release_bundle_name: 'webapp',
            repository_key: 'release-bundles-v2',
            release_bundle_version_latest: '1.2.0',
            last_version_created_millis: Date.parse('2030-03-01T10:00:00Z'),
            versions: 1,
          },
        ],
        total: 1,
      }),
    ),
    http.get(root(`${RB}/records/webapp`), () => HttpResponse.json({ release_bundles: [bundle], total: 1 })),
    http.get(root(`${RB}/records/webapp/1.2.0`), () => HttpResponse.json(bundle)),
    http.get(root('lifecycle/api/v2/promotion/records/webapp/1.2.0'), () =>
      HttpResponse.json({ promotions, total: promotions.length }),
    ),
    http.post(root('lifecycle/api/v2/promotion/records/webapp/1.2.0'), async ({ request }) => {
      const body = (await request.json()) as { environment: string; operation: 'copy' | 'move' };
      const p = {
        id: 'p1',
        status: 'COMPLETED',
        repository_key: 'release-bundles-v2',
        release_bundle_name: 'webapp',
        release_bundle_version: '1.2.0',
        environment: body.environment,
        included_repository_keys: ['prod-local'],
        operation: body.operation,
        created_by: 'admin',
        created: '2030-03-02T10:00:00.000Z',
        created_millis: 0,
        messages: [{ text: '1 file copied to prod-local' }],
      };
      promotions.push(p);
      return HttpResponse.json(p, { status: 201 });
    }),
    http.get(root('lifecycle/api/v2/distribution/trackers/webapp/1.2.0'), () =>
      HttpResponse.json([
        {
          tracker_id: 't1',
          release_bundle_name: 'webapp',
          release_bundle_version: '1.2.0',
          distributed_by: 'admin',
          distributed_at: '2030-03-03T10:00:00.000Z',
          status: 'FAILED',
          targets: [
            {
              target: 'edge-eu',
              status: 'FAILED',
              reason: 'signature did not verify',
              files_done: 0,
              files_total: 1,
              attempts: 3,
              updated: '2030-03-03T10:01:00.000Z',
            },
          ],
        },
      ]),
    ),
    http.get(root('lifecycle/api/v2/distribution/targets'), () => HttpResponse.json(targets)),
    http.get(root('lifecycle/api/v2/distribution/received'), () => HttpResponse.json([])),
    http.get(root('access/api/v1/environments'), () =>
      HttpResponse.json([
        { name: 'PROD', rank: 3, repositories: ['prod-local'] },
        { name: 'DEV', rank: 1, repositories: ['dev-local'] },
      ]),
    ),
    http.get(restUrl('security/keypair'), () =>
      HttpResponse.json([
        {
          pairName: 'release-key',
          pairType: 'GPG',
          alias: 'release-key',
          publicKey: '-----BEGIN PGP PUBLIC KEY BLOCK-----',
          keyId: '0123456789ABCDEF',
          fingerprint: 'AB'.repeat(20),
          algorithm: 'curve25519',
          userId: 'Granary <release@granary.local>',
          createdBy: 'admin',
          created: '2030-01-01T00:00:00.000Z',
        },
      ]),
    ),
    http.post(root(RB), async ({ request }) => {
      created.push({ body: await request.json(), key: request.headers.get('X-JFrog-Signing-Key-Name') });
      return HttpResponse.json(
        {
          repository_key: 'release-bundles-v2',
          release_bundle_name: 'webapp',
          release_bundle_version: '1.2.0',
          created: '2030-03-01T10:00:00.000Z',
        },
        { status: 201 },
      );
    }),
  );
});

describe('release bundles and distribution (issue 19, spec 000 §2 / 001 §2)', () => {
  it('spec 000 §2: the distribution main route without a tab lands on source for a user with distribution and an enterprise-plus licence', async () => {
    const { router } = renderApp('/bundles');
    await waitFor(() => expect(router.state.location.pathname).toBe('/ui/bundles/source'));
    expect(await screen.findByRole('link', { name: 'webapp' })).toBeTruthy();
  });

  it('spec 000 §2: without the distribution service the main route lands on the target tab', async () => {
    services(false);
    const { router } = renderApp('/bundles');
    await waitFor(() => expect(router.state.location.pathname).toBe('/ui/bundles/target'));
    expect(await screen.findByText('The distribution service does not run on this instance')).toBeTruthy();
  });

  it('spec 000 §2: licence gating — an ENTERPRISE (not enterprise-plus) licence lands on the target tab even with distribution', async () => {
    services(true, 'ENTERPRISE');
    const { router } = renderApp('/bundles');
    await waitFor(() => expect(router.state.location.pathname).toBe('/ui/bundles/target'));
  });

  it('spec 000 §2 / 001 §2: the old bundles path moves to the release bundles path at 7.48.0 (no distribution version: stays otherwise)', async () => {
    services(false, 'ENTERPRISE_PLUS', '7.48.0-rc.1');
    const { router } = renderApp('/bundles/target');
    await waitFor(() => expect(router.state.location.pathname).toBe('/ui/release-bundles/target'));
    expect(await screen.findByRole('heading', { level: 1, name: 'Release Bundles' })).toBeTruthy();
  });

  it('spec 001 §2: after entering a bundles path the toolbar search type switches to release bundles', async () => {
    renderApp('/bundles/source');
    await screen.findByRole('link', { name: 'webapp' });
    await waitFor(() =>
      expect(
        screen.getByRole('combobox', { name: 'Search type' }).closest('.ant-select')?.textContent,
      ).toContain('Release Bundles'),
    );
  });

  it("spec 000 §8: 'No distribution repositories are configured...' with a link to create one (admin) or a hint (user)", async () => {
    renderApp('/bundles/source');
    expect(await screen.findByText('No distribution repositories are configured...')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Create a distribution target' }).getAttribute('href')).toBe(
      '/ui/admin/distribution/targets?new=1',
    );
  });

  it('spec 000 §8: a user who is not an administrator gets the message without the link', async () => {
    signIn(false);
    renderApp('/bundles/source');
    expect(await screen.findByText('No distribution repositories are configured...')).toBeTruthy();
    expect(screen.queryByRole('link', { name: 'Create a distribution target' })).toBeNull();
    expect(screen.getByText('Ask an administrator to create a distribution target.')).toBeTruthy();
  });

  it('issue 19: the create wizard refuses a version outside [A-Za-z0-9_.-] and sends name, version, source and signing key', async () => {
    const { router } = renderApp('/bundles/source');
    fireEvent.click(await screen.findByRole('button', { name: /Create Release Bundle/ }));
    const dialog = await screen.findByRole('dialog');
    fireEvent.change(within(dialog).getByLabelText('Name'), { target: { value: 'webapp' } });
    fireEvent.change(within(dialog).getByLabelText('Version'), { target: { value: '1.2.0 beta' } });
    fireEvent.mouseDown(within(dialog).getByRole('combobox', { name: 'Signing key' }));
    fireEvent.click(await screen.findByTitle('release-key (0123456789ABCDEF)'));
    fireEvent.click(within(dialog).getByRole('button', { name: 'Next' }));
    expect(await within(dialog).findByText('Only letters, digits, "_", "." and "-"')).toBeTruthy();
    fireEvent.change(within(dialog).getByLabelText('Version'), { target: { value: '1.2.0' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Next' }));
    fireEvent.change(await within(dialog).findByLabelText(/one repository\/path per line/), {
      target: { value: 'npm-local/webapp/-/webapp-1.2.0.tgz\n' },
    });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Next' }));
    fireEvent.click(await within(dialog).findByRole('button', { name: 'Create' }));
    await waitFor(() => expect(created).toHaveLength(1));
    expect(created[0]).toEqual({
      key: 'release-key',
      body: {
        release_bundle_name: 'webapp',
        release_bundle_version: '1.2.0',
        source_type: 'artifacts',
        source: { artifacts: [{ path: 'npm-local/webapp/-/webapp-1.2.0.tgz' }] },
      },
    });
    await waitFor(() => expect(router.state.location.pathname).toBe('/ui/bundles/source/webapp/1.2.0'));
  });

  it('issue 19: bundle details show contents, promotions, distributions per target with status, signature and key; promote to an environment', async () => {
    renderApp('/bundles/source/webapp/1.2.0');
    expect(await screen.findByText('webapp/-/webapp-1.2.0.tgz')).toBeTruthy();
    fireEvent.click(screen.getByRole('tab', { name: 'Distributions' }));
    const row = (await screen.findByText('edge-eu')).closest('tr') as HTMLElement;
    expect(within(row).getByText('FAILED')).toBeTruthy();
    expect(within(row).getByText('signature did not verify')).toBeTruthy();
    fireEvent.click(screen.getByRole('tab', { name: 'Signature' }));
    expect(await screen.findByText('0123456789ABCDEF')).toBeTruthy();
    expect(screen.getByText('release-key')).toBeTruthy();

    fireEvent.click(screen.getByRole('button', { name: 'Promote' }));
    const dialog = await screen.findByRole('dialog');
    // DEV reached: the next environment up (PROD) is proposed.
    await waitFor(() => expect(within(dialog).getByText('PROD')).toBeTruthy());
    fireEvent.click(within(dialog).getByRole('button', { name: 'Promote' }));
    fireEvent.click(await screen.findByRole('tab', { name: 'Promotions' }));
    expect(await screen.findByText('1 file copied to prod-local')).toBeTruthy();
  });
});
