import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { mainAdminPassword, signIn } from '../support/console.ts';
import { expect, test } from '../support/fixtures.ts';
import { ROOT, type RunningServer, startServer } from '../support/server.ts';

/**
 * Issue 18 / spec 001 §2, §4, §5, §8: the integrations screens against a real server allowed to reach loopback
 * (`GRANARY_OUTBOUND_ALLOWLIST=127.0.0.1`) and a small GitHub REST API this test starts on 127.0.0.1 (docs.github.com:
 * `GET /user` with `X-OAuth-Scopes`, `GET /user/repos`, the contents API). Connect GitHub, test it, choose a
 * repository to scan, see it listed; open a CI card; create an application and see its secret notice.
 */
const TOKEN = 'ghp_e2eTokenAbcd1234';
const LOCKFILE = JSON.stringify({
  name: 'web',
  lockfileVersion: 3,
  packages: {
    '': { name: 'web', dependencies: { lodash: '4.17.20' } },
    'node_modules/lodash': { version: '4.17.20', license: 'MIT' },
  },
});

let granary: RunningServer;
let vendor: Server;
let vendorUrl = '';

function startVendor(): Promise<void> {
  vendor = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    };
    if (req.headers.authorization !== `Bearer ${TOKEN}`)
      return send(401, { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest' });
    const scopes = { 'x-oauth-scopes': 'repo, read:org' };
    if (url.pathname === '/user') return send(200, { login: 'octocat', id: 1, name: 'The Octocat' }, scopes);
    if (url.pathname === '/user/repos')
      return send(
        200,
        ['web', 'api'].map((name) => ({
          full_name: `acme/${name}`,
          name,
          owner: { login: 'acme' },
          default_branch: 'main',
          private: name === 'api',
          html_url: `https://github.example/acme/${name}`,
        })),
        scopes,
      );
    if (url.pathname === '/repos/acme/web/contents/')
      return send(200, [{ name: 'package-lock.json', path: 'package-lock.json', type: 'file' }]);
    if (url.pathname === '/repos/acme/web/contents/package-lock.json') return send(200, LOCKFILE);
    if (url.pathname.startsWith('/repos/acme/api/contents')) return send(200, []);
    return send(404, { message: 'Not Found' });
  });
  return new Promise((resolve) => {
    vendor.listen(0, '127.0.0.1', () => {
      const address = vendor.address();
      vendorUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
      resolve();
    });
  });
}

test.describe
  .serial('integrations (issue 18, spec 001 §2 /integrations)', () => {
    test.beforeAll(async () => {
      test.setTimeout(120_000);
      await startVendor();
      granary = await startServer({
        adminPassword: mainAdminPassword(),
        logFile: path.join(ROOT, 'e2e/test-results/server-integrations.log'),
        env: { GRANARY_OUTBOUND_ALLOWLIST: '127.0.0.1' },
      });
    });
    test.afterAll(async () => {
      await granary?.stop();
      await new Promise((resolve) => vendor?.close(resolve));
    });

    test('issue 18: connect GitHub — §5 messages, test (identity and scopes), §8 created, select service, choose a repository to scan, listed', async ({
      page,
      saveScreenshot,
      expectAccessible,
    }) => {
      test.setTimeout(180_000);
      await signIn(page, granary.baseURL, 'admin', mainAdminPassword());
      await page.goto(`${granary.baseURL}/ui/integrations`);
      await expect(page.getByRole('heading', { level: 1, name: 'Integrations' })).toBeVisible();
      const card = page.getByRole('article', { name: 'GitHub', exact: true });
      await expect(card.getByText('DISCONNECTED')).toBeVisible();
      const box = await card.boundingBox();
      expect([box?.width, box?.height]).toEqual([204, 218]);
      await saveScreenshot('integrations-cards');
      await expectAccessible();

      await page.getByRole('button', { name: 'Connect GitHub' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByRole('button', { name: 'Test Connection' }).click();
      await expect(dialog.getByText('Integration name is required')).toBeVisible();
      await expect(dialog.getByText('User name is required')).toBeVisible();
      await expect(dialog.getByText('Token is required')).toBeVisible();
      await dialog.getByLabel('Integration Name').fill('acme-github');
      await dialog.getByLabel('URL').fill(vendorUrl);
      await dialog.getByLabel('User Name').fill('octocat');
      await dialog.getByLabel('Token').fill('ghp_wrong');
      await dialog.getByRole('button', { name: 'Test Connection' }).click();
      await expect(page.getByText('Connection test failed, please check your credentials')).toBeVisible();
      await dialog.getByLabel('Token').fill(TOKEN);
      await dialog.getByRole('button', { name: 'Test Connection' }).click();
      const popover = page.locator('.ant-popover');
      await expect(popover.getByText('octocat', { exact: true })).toBeVisible();
      await expect(popover.getByText('read:org')).toBeVisible();
      await saveScreenshot('integrations-github-tested');
      await dialog.getByRole('button', { name: 'Create' }).click();
      await expect(page.getByText('Successfully created')).toBeVisible();
      await expect(dialog.getByText(/Choose what Granary does with it/)).toBeVisible();
      await dialog.getByRole('button', { name: 'Continue' }).click();

      await expect(page).toHaveURL(
        /\/ui\/integrations\/gitRepoScan\/selectRepos\?vcsType=github&integrationId=/,
      );
      await page.getByRole('checkbox', { name: 'Select acme/web' }).check();
      await page.getByRole('button', { name: /Scan selected \(1\)/ }).click();
      await expect(page.getByText('package-lock.json', { exact: false }).first()).toBeVisible({
        timeout: 30_000,
      });
      await saveScreenshot('integrations-select-repos');

      await page.getByRole('link', { name: 'GitHub Instances' }).click();
      await expect(page.getByRole('heading', { level: 1, name: 'GitHub Instances (1)' })).toBeVisible();
      const row = page.getByRole('row', { name: /acme-github/ });
      await expect(row.getByText('xray')).toBeVisible();
      await expect(row.getByRole('button', { name: 'Manage Repositories of acme-github' })).toBeVisible();
      await saveScreenshot('integrations-github-instances');
      // The token is never answered: the edit form shows only its last four characters.
      await row.getByRole('button', { name: 'Edit Integration acme-github' }).click();
      await expect(page.getByRole('dialog').getByText(/ends with …1234/)).toBeVisible();
      await expect(page.getByRole('dialog').getByLabel('Token')).toHaveValue('');
    });

    test('issue 18: a CI card shows the steps with Granary URLs; an application shows its secret once with the §8 notice', async ({
      page,
      saveScreenshot,
    }) => {
      await signIn(page, granary.baseURL, 'admin', mainAdminPassword());
      await page.goto(`${granary.baseURL}/ui/integrations`);
      await page.getByRole('button', { name: 'Set up GitHub Actions' }).click();
      const dialog = page.getByRole('dialog');
      await expect(dialog.getByText(`${granary.baseURL}/`, { exact: true })).toBeVisible();
      await expect(dialog.getByText(`registry-url: ${granary.baseURL}/repository/`).first()).toBeVisible();
      await dialog.getByRole('tab', { name: 'Windows' }).click();
      await expect(dialog.getByText(/Set-Content -Encoding utf8/).first()).toBeVisible();
      await saveScreenshot('integrations-github-actions');
      await page.keyboard.press('Escape');

      await page.goto(`${granary.baseURL}/ui/admin/artifactory/list`);
      await page.getByRole('link', { name: 'Integrations' }).click();
      await expect(page).toHaveURL(/\/ui\/admin\/configuration\/integrations$/);
      await page.getByRole('button', { name: 'New Integration' }).click();
      await page.getByLabel('Application Name').fill('ci bot');
      await expect(page.getByText('Name cannot contain spaces or special characters')).toBeVisible();
      await page.getByLabel('Application Name').fill('ci_bot');
      await page.getByLabel('Callback URL').fill('http://127.0.0.1:9/callback');
      await page.getByLabel('Platform Base Url').fill('http://127.0.0.1:9');
      await page.getByRole('button', { name: 'Create Integration' }).click();
      await expect(page.getByText('Successfully created integration ci_bot')).toBeVisible();
      await expect(
        page.getByText(
          'The secret is currently visible and will not be retrievable at a later stage as it is not saved in the system.',
        ),
      ).toBeVisible();
      await saveScreenshot('integrations-application-secret');
      await page.getByRole('button', { name: 'Done' }).click();
      await page.getByRole('button', { name: 'Delete ci_bot' }).click();
      await expect(
        page.getByText('This will permanently delete the Integration ci_bot. Continue?'),
      ).toBeVisible();
      await page.getByRole('button', { name: 'Delete', exact: true }).click();
      await expect(page.getByText('Successfully deleted integration ci_bot')).toBeVisible();
    });
  });
