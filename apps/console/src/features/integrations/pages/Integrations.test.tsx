import {
  APPLICATION_MESSAGES,
  type Application,
  type GitIntegration,
  INTEGRATION_MESSAGES,
  type IntegrationGroup,
} from '@granary/contracts';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { renderApp } from '../../../shared/test/renderApp.tsx';
import { apiUrl, restUrl, server } from '../../../shared/test/server.ts';
import { userData } from '../../../shared/test/users.ts';

const integration = (key: string, extra: Partial<GitIntegration> = {}): GitIntegration => ({
  key,
  name: key,
  url: 'https://api.github.com',
  vendorName: 'github',
  userName: 'octocat',
  products: [],
  tokenLast4: 'wxyz',
  createdOn: '2026-03-04T05:06:07Z',
  updatedOn: '2026-03-04T05:06:07Z',
  ...extra,
});

let github: GitIntegration[];
const groups = (): IntegrationGroup[] => [
  {
    type: 'git',
    name: 'Source Control',
    available: true,
    items: (['github', 'gitlab', 'bitbucket_cloud', 'bitbucket_server'] as const).map((name, i) => {
      const integrations = name === 'github' ? github : [];
      const products = [...new Set(integrations.flatMap((x) => x.products))];
      return {
        id: i + 1,
        name,
        displayName: name,
        integrations,
        configured: products.length > 0,
        configuredServices: [],
        products,
      };
    }),
  },
];

const error500 = () =>
  HttpResponse.json({ errors: [{ status: 500, code: 'INTERNAL', message: 'boom' }] }, { status: 500 });

beforeEach(() => {
  github = [];
  server.use(
    http.get(apiUrl('ui/auth/current'), () => HttpResponse.json(userData())),
    http.get(apiUrl('integrations'), () => HttpResponse.json(groups())),
    http.get(apiUrl('integrations/applications/user-integrations/:name'), () => HttpResponse.json([])),
    http.get(apiUrl('ui/setMeUp'), () => HttpResponse.json({ baseUrl: 'https://granary.example.com//' })),
    http.get(apiUrl('ui/userApiKey'), () =>
      HttpResponse.json({ exists: false, createdAt: null, lastUsed: null }),
    ),
    http.get(restUrl('repositories'), () =>
      HttpResponse.json([
        { key: 'npm-local', type: 'LOCAL', packageType: 'npm', url: '', description: '' },
        { key: 'npm-all', type: 'VIRTUAL', packageType: 'npm', url: '', description: '' },
      ]),
    ),
  );
});
afterEach(() => vi.restoreAllMocks());

describe('integrations cards (spec 001 §2 /integrations)', () => {
  it('spec 001 §2, §4: the groups and cards; a connected card shows the check and CONNECTED and, with no service, "Connect a service"; others DISCONNECTED; 204 × 218 px', async () => {
    github = [integration('gh-main')];
    renderApp('/integrations');
    expect(await screen.findByRole('heading', { level: 1, name: 'Integrations' })).toBeTruthy();
    for (const group of ['Source Control', 'Developer Tools', 'Continuous Integration'])
      expect(screen.getByRole('heading', { level: 2, name: group })).toBeTruthy();
    for (const name of ['Jetbrains', 'Visual Studio Code', 'Android Studio', 'Docker Desktop'])
      expect(
        within(screen.getByRole('region', { name: 'Developer Tools' })).getByRole('article', { name }),
      ).toBeTruthy();
    for (const name of ['JFrog CLI', 'GitHub Actions', 'Azure DevOps', 'Frogbot'])
      expect(
        within(screen.getByRole('region', { name: 'Continuous Integration' })).getByRole('article', { name }),
      ).toBeTruthy();
    const gh = await screen.findByRole('article', { name: 'GitHub' });
    await waitFor(() => expect(within(gh).getByText('CONNECTED')).toBeTruthy());
    expect(within(gh).getByRole('img', { name: 'check-circle' })).toBeTruthy();
    expect(within(gh).getByText(INTEGRATION_MESSAGES.connectService)).toBeTruthy();
    const gl = screen.getByRole('article', { name: 'GitLab' });
    expect(within(gl).getByText('DISCONNECTED')).toBeTruthy();
    expect(within(gl).queryByText(INTEGRATION_MESSAGES.connectService)).toBeNull();
    expect(gl.style.width).toBe('204px');
    expect(gl.style.height).toBe('218px');
  });

  it('spec 001 §4: a configured vendor (a product chosen) is CONNECTED without "Connect a service"', async () => {
    github = [integration('gh-main', { products: ['xray'] })];
    renderApp('/integrations');
    const gh = await screen.findByRole('article', { name: 'GitHub' });
    await waitFor(() => expect(within(gh).getByText('CONNECTED')).toBeTruthy());
    expect(within(gh).queryByText(INTEGRATION_MESSAGES.connectService)).toBeNull();
  });

  it('spec 001 §4, §6: git integration is for admins only — a regular user sees the tools, no Source Control', async () => {
    let asked = false;
    server.use(
      http.get(apiUrl('ui/auth/current'), () => HttpResponse.json(userData({ name: 'carol', admin: false }))),
      http.get(apiUrl('integrations'), () => {
        asked = true;
        return HttpResponse.json(groups());
      }),
    );
    renderApp('/integrations');
    expect(await screen.findByRole('heading', { level: 2, name: 'Developer Tools' })).toBeTruthy();
    expect(screen.queryByRole('heading', { level: 2, name: 'Source Control' })).toBeNull();
    expect(asked).toBe(false);
  });

  it('spec 001 §8: a failure loading integrations is only logged; the cards show DISCONNECTED', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    server.use(http.get(apiUrl('integrations'), error500));
    renderApp('/integrations');
    const gh = await screen.findByRole('article', { name: 'GitHub' });
    await waitFor(() => expect(warn).toHaveBeenCalled());
    expect(within(gh).getByText('DISCONNECTED')).toBeTruthy();
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('spec 001 §2, §7: a CI card opens highlights, screenshot, per-OS steps with Granary URLs (base URL slash normalised); §8 an API key failure is logged and the modal still opens', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    server.use(http.get(apiUrl('ui/userApiKey'), error500));
    renderApp('/integrations');
    fireEvent.click(await screen.findByRole('button', { name: 'Set up GitHub Actions' }));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText('GitHub Actions integration')).toBeTruthy();
    expect(within(dialog).getByRole('img', { name: 'GitHub Actions screenshot' })).toBeTruthy();
    expect(within(dialog).getByRole('link', { name: 'Marketplace' }).getAttribute('href')).toMatch(
      /^https:\/\//,
    );
    expect(within(dialog).getByRole('link', { name: 'Documentation' }).getAttribute('href')).toMatch(
      /^https:\/\//,
    );
    expect(await within(dialog).findByText('https://granary.example.com/')).toBeTruthy();
    // The virtual npm repository is chosen first; the workflow points setup-node at Granary's /repository/{key}/.
    await waitFor(() =>
      expect(dialog.textContent).toContain('registry-url: https://granary.example.com/repository/npm-all/'),
    );
    // A GitHub Actions expression, not a template placeholder.
    expect(dialog.textContent).toContain(`NODE_AUTH_TOKEN: $${'{{'} secrets.GRANARY_TOKEN }}`);
    for (const os of ['macOS', 'Linux', 'Windows'])
      expect(within(dialog).getByRole('tab', { name: os })).toBeTruthy();
    fireEvent.click(within(dialog).getByRole('tab', { name: 'Windows' }));
    await waitFor(() =>
      expect(
        [...dialog.querySelectorAll('pre[data-os="windows"]')].map((p) => p.textContent).join('\n'),
      ).toContain('Set-Content -Encoding utf8 .github\\workflows\\build.yml'),
    );
    expect(warn).toHaveBeenCalled();
  });

  it('spec 001 §7: a new API key (apiKey/{username} with re-authentication) fills the commands', async () => {
    let auth = '';
    server.use(
      http.get(apiUrl('apiKey/admin'), ({ request }) => {
        auth = request.headers.get('X-Granary-Reauthentication') ?? '';
        return HttpResponse.json({ apiKey: 'AKCfresh123' });
      }),
    );
    renderApp('/integrations');
    fireEvent.click(await screen.findByRole('button', { name: 'Set up JFrog CLI' }));
    const dialog = await screen.findByRole('dialog');
    expect(dialog.textContent).toContain('<YOUR_API_KEY>');
    fireEvent.change(within(dialog).getByLabelText('Current password'), { target: { value: 's3cret' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Create API key' }));
    await waitFor(() => expect(dialog.textContent).toContain("--access-token='AKCfresh123'"));
    expect(auth).toBe(`Basic ${btoa('admin:s3cret')}`);
    expect(dialog.textContent).toContain("--artifactory-url='https://granary.example.com/'");
  });
});

describe('git integration modal (spec 001 §4 states, §5 messages, §8 notifications)', () => {
  it("spec 001 §5: 'Integration name is required', 'User name is required', 'Token is required'", async () => {
    renderApp('/integrations');
    fireEvent.click(await screen.findByRole('button', { name: 'Connect GitHub' }));
    const dialog = await screen.findByRole('dialog');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Test Connection' }));
    expect(await within(dialog).findByText(INTEGRATION_MESSAGES.nameRequired)).toBeTruthy();
    expect(within(dialog).getByText(INTEGRATION_MESSAGES.userNameRequired)).toBeTruthy();
    expect(within(dialog).getByText(INTEGRATION_MESSAGES.tokenRequired)).toBeTruthy();
    // §4: the create button is disabled while the test button is visible and the form is invalid.
    expect(within(dialog).getByRole('button', { name: 'Create' }).hasAttribute('disabled')).toBe(true);
  });

  it("spec 001 §8: a failed test says 'Connection test failed, please check your credentials'", async () => {
    server.use(
      http.post(apiUrl('integrations/testConnection'), () =>
        HttpResponse.json(
          { errors: [{ status: 400, code: 'INVALID', message: 'Bad credentials' }] },
          { status: 400 },
        ),
      ),
    );
    renderApp('/integrations');
    fireEvent.click(await screen.findByRole('button', { name: 'Connect GitHub' }));
    const dialog = await screen.findByRole('dialog');
    fillGit(dialog);
    fireEvent.click(within(dialog).getByRole('button', { name: 'Test Connection' }));
    expect(await screen.findByText(INTEGRATION_MESSAGES.testFailed)).toBeTruthy();
  });

  it("spec 001 §4, §8: test → tested popover (identity, scopes); a change resets it; create says 'Successfully created' with the key and moves to select service; xray opens gitRepoScan.selectRepos", async () => {
    let tested: Record<string, unknown> | undefined;
    let created: Record<string, unknown> | undefined;
    let put: Record<string, unknown> | undefined;
    server.use(
      http.post(apiUrl('integrations/testConnection'), async ({ request }) => {
        tested = (await request.json()) as Record<string, unknown>;
        return HttpResponse.json({
          identity: { login: 'octocat', name: 'The Octocat' },
          scopes: ['repo', 'read:org'],
          expiresAt: null,
          capabilities: { readRepositories: true, comment: true, openPullRequests: true, commitStatus: true },
        });
      }),
      http.post(apiUrl('integrations'), async ({ request }) => {
        created = (await request.json()) as Record<string, unknown>;
        github = [integration('gh-1a2b')];
        return HttpResponse.json('gh-1a2b');
      }),
      http.put(apiUrl('integration/:key'), async ({ request }) => {
        put = (await request.json()) as Record<string, unknown>;
        github = [integration('gh-1a2b', { products: ['xray'] })];
        return HttpResponse.json(github[0]);
      }),
      http.get(apiUrl('integration/gh-1a2b/repositories'), () => HttpResponse.json([])),
      http.get(apiUrl('integration/gh-1a2b/scans'), () => HttpResponse.json([])),
    );
    const { router } = renderApp('/integrations');
    fireEvent.click(await screen.findByRole('button', { name: 'Connect GitHub' }));
    const dialog = await screen.findByRole('dialog');
    fillGit(dialog);
    fireEvent.click(within(dialog).getByRole('button', { name: 'Test Connection' }));
    expect(await screen.findByText('octocat')).toBeTruthy();
    expect(screen.getByText('repo')).toBeTruthy();
    expect(tested).toMatchObject({ vendorName: 1, userName: 'octocat', token: 'ghp_secret1234' });
    // Any change resets the test.
    fireEvent.change(within(dialog).getByLabelText('User Name'), { target: { value: 'octo' } });
    expect(await within(dialog).findByRole('button', { name: 'Test Connection' })).toBeTruthy();
    fireEvent.click(within(dialog).getByRole('button', { name: 'Create' }));
    expect(await screen.findByText(INTEGRATION_MESSAGES.created)).toBeTruthy();
    expect(screen.getByText('gh-1a2b')).toBeTruthy();
    expect(created).toMatchObject({
      integrationName: 'gh-main',
      vendorName: 1,
      url: 'https://api.github.com',
    });
    expect(await within(dialog).findByText(/Choose what Granary does with it/)).toBeTruthy();
    fireEvent.click(within(dialog).getByRole('button', { name: 'Continue' }));
    await waitFor(() => expect(router.state.location.search).toBe('?vcsType=github&integrationId=gh-1a2b'));
    expect(router.state.location.pathname).toBe('/ui/integrations/gitRepoScan/selectRepos');
    expect(put).toMatchObject({ products: ['xray'], integrationKey: 'gh-1a2b', token: '' });
  });

  it("spec 001 §8: a failed create says 'Error while creating integration'", async () => {
    server.use(http.post(apiUrl('integrations'), error500));
    renderApp('/integrations');
    fireEvent.click(await screen.findByRole('button', { name: 'Connect GitHub' }));
    const dialog = await screen.findByRole('dialog');
    fillGit(dialog);
    // §4: once the form is valid, create is enabled even before a test.
    await waitFor(() =>
      expect(within(dialog).getByRole('button', { name: 'Create' }).hasAttribute('disabled')).toBe(false),
    );
    fireEvent.click(within(dialog).getByRole('button', { name: 'Create' }));
    expect(await screen.findByText(INTEGRATION_MESSAGES.createFailed)).toBeTruthy();
  });
});

function fillGit(dialog: HTMLElement) {
  fireEvent.change(within(dialog).getByLabelText('Integration Name'), { target: { value: 'gh-main' } });
  fireEvent.change(within(dialog).getByLabelText('User Name'), { target: { value: 'octocat' } });
  fireEvent.change(within(dialog).getByLabelText('Token'), { target: { value: 'ghp_secret1234' } });
}

describe('vendor instances (spec 001 §2 integrations/{vendorName})', () => {
  it("spec 001 §2: columns, 'Select a Product', Manage Repositories only with xray, breadcrumb, count in the title, quick filter", async () => {
    github = [integration('gh-scan', { products: ['xray'] }), integration('gh-plain')];
    renderApp('/integrations/github');
    expect(await screen.findByRole('heading', { level: 1, name: 'GitHub Instances (2)' })).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Integrations' })).toBeTruthy();
    expect(screen.getAllByText('GitHub Instances').length).toBeGreaterThan(0);
    for (const c of ['Integration Name', 'URL', 'Product', 'Created On'])
      expect(screen.getByRole('columnheader', { name: c })).toBeTruthy();
    const plain = screen.getByText('gh-plain').closest('tr')!;
    expect(within(plain).getByText('Select a Product')).toBeTruthy();
    expect(within(plain).queryByRole('button', { name: /Manage Repositories/ })).toBeNull();
    expect(within(plain).getByText(new Date('2026-03-04T05:06:07Z').toLocaleString())).toBeTruthy();
    const scan = screen.getByText('gh-scan').closest('tr')!;
    expect(within(scan).getByRole('button', { name: 'Manage Repositories of gh-scan' })).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Filter integrations'), { target: { value: 'plain' } });
    await waitFor(() => expect(screen.queryByText('gh-scan')).toBeNull());
  });

  it("spec 001 §5: editing shows the token's last four only and keeps it when left empty; 'Successfully updated'", async () => {
    github = [integration('gh-plain')];
    let put: Record<string, unknown> | undefined;
    server.use(
      http.put(apiUrl('integration/gh-plain'), async ({ request }) => {
        put = (await request.json()) as Record<string, unknown>;
        return HttpResponse.json(github[0]);
      }),
    );
    renderApp('/integrations/github');
    fireEvent.click(await screen.findByRole('button', { name: 'Edit Integration gh-plain' }));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText(/ends with …wxyz/)).toBeTruthy();
    expect((within(dialog).getByLabelText('Token') as HTMLInputElement).value).toBe('');
    // Saved again until the request leaves: a CI run under load once clicked before the form's values
    // (set in an effect, watched for validity) had settled, and the click sent nothing.
    await waitFor(
      () => {
        if (!put) fireEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
        expect(put).toBeDefined();
      },
      { interval: 500 },
    );
    expect((await screen.findAllByText(INTEGRATION_MESSAGES.updated)).length).toBeGreaterThan(0);
    expect(put).toMatchObject({ token: '', integrationName: 'gh-plain' });
  });

  it("spec 001 §8: delete says 'Successfully deleted'; a failure 'Error while deleting integration'", async () => {
    github = [integration('gh-a'), integration('gh-b')];
    server.use(
      http.delete(apiUrl('integration/gh-a'), () => {
        github = github.filter((g) => g.key !== 'gh-a');
        return new HttpResponse(null, { status: 204 });
      }),
      http.delete(apiUrl('integration/gh-b'), error500),
    );
    renderApp('/integrations/github');
    fireEvent.click(await screen.findByRole('button', { name: 'Delete gh-a' }));
    fireEvent.click(await screen.findByRole('button', { name: 'Delete' }));
    expect(await screen.findByText(INTEGRATION_MESSAGES.deleted)).toBeTruthy();
    fireEvent.click(await screen.findByRole('button', { name: 'Delete gh-b' }));
    const confirm = await screen.findAllByRole('button', { name: 'Delete' });
    fireEvent.click(confirm[confirm.length - 1]!);
    expect(await screen.findByText(INTEGRATION_MESSAGES.deleteFailed)).toBeTruthy();
  });
});

describe('git scanning (spec 001 §2 gitRepoScan.selectRepos)', () => {
  it('spec 001 §2: choose repositories to scan, then see their findings', async () => {
    let selection: unknown;
    let scans: unknown[] = [];
    server.use(
      http.get(apiUrl('integration/gh-1/repositories'), () =>
        HttpResponse.json([
          {
            fullName: 'acme/web',
            name: 'web',
            owner: 'acme',
            defaultBranch: 'main',
            private: false,
            url: 'https://github.com/acme/web',
            selected: false,
          },
          {
            fullName: 'acme/api',
            name: 'api',
            owner: 'acme',
            defaultBranch: 'main',
            private: true,
            url: 'https://github.com/acme/api',
            selected: false,
          },
        ]),
      ),
      http.put(apiUrl('integration/gh-1/repositories'), async ({ request }) => {
        selection = await request.json();
        scans = [
          {
            repository: 'acme/web',
            status: 'done',
            scannedAt: '2026-03-04T05:06:07Z',
            error: null,
            manifests: ['package-lock.json'],
            components: 12,
            findings: [
              {
                manifest: 'package-lock.json',
                ecosystem: 'npm',
                package: 'lodash',
                version: '4.17.20',
                advisoryId: 'GHSA-35jh-r3h4-6jhm',
                severity: 'HIGH',
                summary: 'Command injection',
                fixedVersions: ['4.17.21'],
              },
            ],
            licenses: [{ package: 'lodash', version: '4.17.20', license: 'MIT' }],
          },
        ];
        return HttpResponse.json([]);
      }),
      http.get(apiUrl('integration/gh-1/scans'), () => HttpResponse.json(scans)),
    );
    renderApp('/integrations/gitRepoScan/selectRepos?vcsType=github&integrationId=gh-1');
    fireEvent.click(await screen.findByRole('checkbox', { name: 'Select acme/web' }));
    fireEvent.click(screen.getByRole('button', { name: /Scan selected \(1\)/ }));
    await waitFor(() => expect(selection).toEqual({ repositories: ['acme/web'] }));
    expect(await screen.findByText('GHSA-35jh-r3h4-6jhm')).toBeTruthy();
    expect(screen.getByText('4.17.21')).toBeTruthy();
    expect(screen.getByText('MIT')).toBeTruthy();
  });
});

describe('application integrations (spec 001 §2 configuration/integrations, §5, §8)', () => {
  const app: Application = {
    id: 'app-1',
    name: 'ci_bot',
    type: 'web',
    description: 'The CI',
    callbackUrl: 'https://ci.example.com/cb',
    platformBaseUrl: 'https://ci.example.com',
    clientId: 'client-abc',
    createdOn: '2026-03-04T05:06:07Z',
  };

  it("spec 001 §5: 'This field is mandatory' and 'Name cannot contain spaces or special characters'; §8 the secret is shown once with the notice and 'Successfully created integration {name}'", async () => {
    let body: Record<string, unknown> | undefined;
    server.use(
      http.post(apiUrl('integrations/applications'), async ({ request }) => {
        body = (await request.json()) as Record<string, unknown>;
        return HttpResponse.json({ ...app, clientSecret: 'shh-secret-once' });
      }),
    );
    renderApp('/admin/configuration/integrations/new');
    fireEvent.click(await screen.findByRole('button', { name: 'Create Integration' }));
    // antd validates the three fields one after another: wait for all three messages, not the first
    await waitFor(() => expect(screen.getAllByText(APPLICATION_MESSAGES.mandatory)).toHaveLength(3));
    fireEvent.change(screen.getByLabelText('Application Name'), { target: { value: 'ci bot!' } });
    expect(await screen.findByText(APPLICATION_MESSAGES.name)).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Application Name'), { target: { value: 'ci_bot' } });
    fireEvent.change(screen.getByLabelText('Callback URL'), {
      target: { value: 'https://ci.example.com/cb' },
    });
    fireEvent.change(screen.getByLabelText('Platform Base Url'), {
      target: { value: 'https://ci.example.com' },
    });
    fireEvent.click(screen.getByRole('button', { name: 'Create Integration' }));
    expect(await screen.findByText(APPLICATION_MESSAGES.created('ci_bot'))).toBeTruthy();
    expect(screen.getByText(APPLICATION_MESSAGES.secretNotice)).toBeTruthy();
    expect(screen.getByText('shh-secret-once')).toBeTruthy();
    expect(body).toMatchObject({ name: 'ci_bot', type: 'web', callbackUrl: 'https://ci.example.com/cb' });
  });

  it("spec 001 §8: delete confirms 'This will permanently delete the Integration {name}. Continue?' and says 'Successfully deleted integration {name}'", async () => {
    let list = [app];
    let deleted = '';
    server.use(
      http.get(apiUrl('integrations/applications'), () => HttpResponse.json(list)),
      http.delete(apiUrl('integrations/applications/:id'), ({ params }) => {
        deleted = String(params.id);
        list = [];
        return new HttpResponse(null, { status: 204 });
      }),
    );
    renderApp('/admin/configuration/integrations');
    fireEvent.click(await screen.findByRole('button', { name: 'Delete ci_bot' }));
    expect(await screen.findByText(APPLICATION_MESSAGES.deleteConfirm('ci_bot'))).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Delete' }));
    expect(await screen.findByText(APPLICATION_MESSAGES.deleted('ci_bot'))).toBeTruthy();
    expect(deleted).toBe('app-1');
  });

  it('issue 18: the user sees the applications they authorized and revokes one', async () => {
    let revoked = '';
    let list = [
      {
        username: 'admin',
        client_id: 'client-abc',
        application_id: 'app-1',
        application_name: 'ci_bot',
        scopes: ['applied-permissions/user'],
        created: '2026-03-04T05:06:07Z',
        last_used: null,
      },
    ];
    server.use(
      http.get(apiUrl('integrations/applications/user-integrations/admin'), () => HttpResponse.json(list)),
      http.delete(apiUrl('integrations/applications/user-integrations/:client/:user'), ({ params }) => {
        revoked = `${params.client}/${params.user}`;
        list = [];
        return new HttpResponse(null, { status: 204 });
      }),
    );
    renderApp('/integrations');
    fireEvent.click(await screen.findByRole('button', { name: 'Revoke ci_bot' }));
    fireEvent.click(await screen.findByRole('button', { name: 'Revoke' }));
    await waitFor(() => expect(revoked).toBe('client-abc/admin'));
    expect(await screen.findByText('You have not authorized any application.')).toBeTruthy();
  });

  it('issue 18: the consent screen names the application and its access; Allow approves the request', async () => {
    let approved: unknown;
    server.use(
      http.get(apiUrl('integrations/applications/consent/req-1'), () =>
        HttpResponse.json({
          requestId: 'req-1',
          clientId: 'client-abc',
          applicationName: 'ci_bot',
          description: 'The CI',
          platformBaseUrl: 'https://ci.example.com',
          redirectUri: 'https://ci.example.com/cb',
          username: 'admin',
          scopes: ['applied-permissions/user'],
          expiresAt: '2099-01-01T00:00:00Z',
        }),
      ),
      http.post(apiUrl('integrations/applications/authorize/client-abc/admin'), async ({ request }) => {
        approved = await request.json();
        return HttpResponse.json({ url: 'https://ci.example.com/cb?code=xyz&state=s' });
      }),
    );
    renderApp('/oauth/consent?request=req-1');
    expect(await screen.findByRole('heading', { level: 1, name: 'Authorize ci_bot' })).toBeTruthy();
    expect(screen.getByText('applied-permissions/user')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Allow' }));
    await waitFor(() => expect(approved).toEqual({ requestId: 'req-1' }));
  });
});
