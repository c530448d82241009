import type { Page } from '@playwright/test';
import { expect, test } from '../support/fixtures.ts';

const adminPassword = () => {
  const password = process.env.GRANARY_E2E_ADMIN_PASSWORD;
  if (!password) throw new Error('GRANARY_E2E_ADMIN_PASSWORD is not set: the global setup did not run');
  return password;
};

async function signInAsAdmin(page: Page, redirectTo: string) {
  await page.goto(`/ui/login?redirectTo=${encodeURIComponent(redirectTo)}`);
  await page.getByLabel('Username').fill('admin');
  await page.getByLabel('Password').fill(adminPassword());
  await page.getByRole('button', { name: 'Sign in' }).click();
}

const actions = (page: Page) => page.getByRole('toolbar', { name: 'Actions' });

/** Chooses a visible antd Select option (its role=option twins are for screen readers only). */
const pick = (page: Page, label: string) =>
  page
    .locator('.ant-select-item-option')
    .filter({ hasText: new RegExp(`^${label.replace(/[().]/g, '\\$&')}$`) })
    .click();

const suffix = Date.now().toString(36);
const LOCAL = `e2e-local-${suffix}`;
const REMOTE = `e2e-remote-${suffix}`;
const VIRTUAL = `e2e-virtual-${suffix}`;

test.describe
  .serial('repositories: admin screens and the tree browser', () => {
    test('spec 000 §2 user menu targets: an admin creates a local, a remote and a virtual repository', async ({
      page,
      saveScreenshot,
      expectAccessible,
    }) => {
      // Three repositories, each form screenshotted and checked for accessibility: 45 s on an idle
      // 2-core machine, past the minute when the machine is busy.
      test.slow();
      await signInAsAdmin(page, '/admin/repositories');
      await expect(page.getByRole('heading', { level: 1, name: 'Repositories' })).toBeVisible();
      await expect(page.getByRole('link', { name: 'generic-local' })).toBeVisible();

      // Local, from the user menu: kind → package type grid → form.
      await page.getByRole('banner').getByRole('button', { name: /admin/ }).click();
      await page.getByRole('menuitem', { name: 'New Local Repository' }).click();
      await expect(page).toHaveURL(/\/ui\/admin\/repositories\/local\/new$/);
      await expect(page.getByRole('heading', { level: 1, name: 'New Local Repository' })).toBeVisible();
      await saveScreenshot('admin-repository-package-types');
      await expectAccessible();
      await page.getByRole('button', { name: 'Generic' }).click();
      await page.getByLabel('Repository Key').fill('bad..key');
      await page.getByRole('button', { name: 'Create Repository' }).click();
      await expect(page.getByText('Repository key must not contain ".."')).toBeVisible();
      await page.getByLabel('Repository Key').fill(LOCAL);
      await page.getByLabel('Description').fill('Built by the browser test');
      await saveScreenshot('admin-repository-new-local');
      await expectAccessible();
      await page.getByRole('button', { name: 'Create Repository' }).click();
      await expect(page).toHaveURL(/\/ui\/admin\/repositories$/);
      await expect(page.getByRole('link', { name: LOCAL })).toBeVisible();

      // Remote: an http URL; the configuration round-trips (nothing is fetched from it).
      await page.goto('/ui/admin/repositories/new');
      await expect(page.getByRole('heading', { level: 1, name: 'New Repository' })).toBeVisible();
      await saveScreenshot('admin-repository-kinds');
      await page.getByRole('link', { name: /Remote/ }).click();
      await page.getByRole('button', { name: 'Generic' }).click();
      await page.getByLabel('Repository Key').fill(REMOTE);
      await page.getByLabel('URL').fill('ftp://example.com/files');
      await page.getByRole('button', { name: 'Create Repository' }).click();
      await expect(page.getByText('url: only http and https upstreams are supported')).toBeVisible();
      await page.getByLabel('URL').fill('http://upstream.example.com/files');
      await page.getByLabel('User Name').fill('mirror');
      await page.getByLabel('Missed Retrieval Cache Period (seconds)').fill('60');
      await saveScreenshot('admin-repository-new-remote');
      await expectAccessible();
      await page.getByRole('button', { name: 'Create Repository' }).click();
      await expect(page.getByRole('link', { name: REMOTE })).toBeVisible();
      await page.getByRole('link', { name: REMOTE }).click();
      await expect(page.getByRole('heading', { level: 1, name: `Edit ${REMOTE}` })).toBeVisible();
      await expect(page.getByLabel('URL')).toHaveValue('http://upstream.example.com/files');
      await expect(page.getByLabel('User Name')).toHaveValue('mirror');
      await expect(page.getByLabel('Missed Retrieval Cache Period (seconds)')).toHaveValue('60');

      // Virtual over the local one, deploying to it.
      await page.goto('/ui/admin/repositories/virtual/new');
      await page.getByRole('button', { name: 'Generic' }).click();
      await page.getByLabel('Repository Key').fill(VIRTUAL);
      await page.getByRole('combobox', { name: 'Repositories' }).click();
      await pick(page, `${LOCAL} (local)`);
      await page.keyboard.press('Escape');
      await page.getByRole('combobox', { name: 'Default Deployment Repository' }).click();
      await pick(page, LOCAL);
      await saveScreenshot('admin-repository-new-virtual');
      await expectAccessible();
      await page.getByRole('button', { name: 'Create Repository' }).click();
      await expect(page.getByRole('link', { name: VIRTUAL })).toBeVisible();

      // Filters by type.
      await page.getByRole('combobox', { name: 'Repository type' }).click();
      await pick(page, 'Remote');
      await expect(page.getByRole('link', { name: REMOTE })).toBeVisible();
      await expect(page.getByRole('link', { name: LOCAL })).toHaveCount(0);
      await page.getByRole('combobox', { name: 'Repository type' }).click();
      await pick(page, 'All types');
      await saveScreenshot('admin-repositories');
      await expectAccessible();
    });

    test('the tree browser: deploy with a progress bar, browse, copy, move, delete', async ({
      page,
      saveScreenshot,
      expectAccessible,
    }) => {
      await signInAsAdmin(page, `/repos/tree/General/${LOCAL}`);
      await expect(page.getByRole('heading', { level: 1, name: 'Artifacts' })).toBeVisible();
      await expect(page.getByRole('heading', { level: 2, name: LOCAL })).toBeVisible();
      // spec 000 §2: the shell titles every page "{route title} - {server name}", this one too.
      await expect(page).toHaveTitle('Artifacts - Granary');

      // Deploy: a 3 MiB file dropped into the dragger, uploaded with XHR progress.
      await actions(page).getByRole('button', { name: 'Deploy' }).click();
      const dialog = page.getByRole('dialog');
      const bytes = Buffer.alloc(3 * 1024 * 1024, 7);
      await dialog
        .locator('input[type=file]')
        .setInputFiles({ name: 'app.bin', mimeType: 'application/octet-stream', buffer: bytes });
      await expect(dialog.getByText('app.bin (3,145,728 bytes)')).toBeVisible();
      await dialog.getByLabel('Target path').fill('releases/1.0/app.bin');
      // Loopback uploads 3 MiB in milliseconds: throttle the upload (Chromium's own network emulation,
      // ~1 MiB/s) so the progress bar is on screen long enough for a person, and this test, to see it.
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('Network.enable');
      await cdp.send('Network.emulateNetworkConditions', {
        offline: false,
        latency: 0,
        downloadThroughput: -1,
        uploadThroughput: 1024 * 1024,
      });
      await dialog.getByRole('button', { name: 'Deploy' }).click();
      await expect(page.getByRole('progressbar')).toBeVisible();
      await cdp.send('Network.emulateNetworkConditions', {
        offline: false,
        latency: 0,
        downloadThroughput: -1,
        uploadThroughput: -1,
      });
      await expect(page).toHaveURL(new RegExp(`/repos/tree/General/${LOCAL}/releases/1\\.0/app\\.bin$`));
      await expect(page.getByRole('heading', { level: 2, name: 'app.bin' })).toBeVisible();
      await expect(page.getByText('3.00 MB')).toBeVisible();
      await expect(page.getByRole('treeitem', { name: 'app.bin' })).toBeVisible();
      await saveScreenshot('tree-file');
      await expectAccessible();

      // Its permissions and Set Me Up.
      await page.getByRole('tab', { name: 'Effective Permissions' }).click();
      await expect(page.getByRole('cell', { name: 'Deploy / Cache' })).toBeVisible();
      await page.getByRole('tab', { name: 'Set Me Up' }).click();
      await expect(page.getByText(`/repository/${LOCAL}`).first()).toBeVisible();
      await saveScreenshot('tree-set-me-up');

      // Properties.
      await page.getByRole('tab', { name: 'Properties' }).click();
      await page.getByLabel('Name').fill('release');
      await page.getByLabel('Values').fill('stable,lts');
      await page.getByRole('button', { name: 'Set Properties' }).click();
      await expect(page.getByRole('cell', { name: 'stable, lts' })).toBeVisible();

      // Copy to another folder.
      await actions(page).getByRole('button', { name: 'Copy' }).click();
      await page.getByRole('dialog').getByLabel('Target path').fill('copies/app.bin');
      await page.getByRole('dialog').getByRole('button', { name: 'Dry Run' }).click();
      await expect(page.getByText(/dry run: copying/)).toBeVisible();
      await page.getByRole('dialog').getByRole('button', { name: 'Copy' }).click();
      await expect(page).toHaveURL(new RegExp(`/${LOCAL}/copies/app\\.bin$`));
      await expect(page.getByRole('heading', { level: 2, name: 'app.bin' })).toBeVisible();

      // Move the copy.
      await actions(page).getByRole('button', { name: 'Move' }).click();
      await page.getByRole('dialog').getByLabel('Target path').fill('moved/renamed.bin');
      await page.getByRole('dialog').getByRole('button', { name: 'Move' }).click();
      await expect(page).toHaveURL(new RegExp(`/${LOCAL}/moved/renamed\\.bin$`));
      await expect(page.getByRole('heading', { level: 2, name: 'renamed.bin' })).toBeVisible();
      await expect(page.getByRole('treeitem', { name: 'copies' })).toHaveCount(0);

      // The bytes are there through the virtual repository too.
      const got = await page.request.get(`/repository/${VIRTUAL}/moved/renamed.bin`);
      expect(got.status()).toBe(200);
      expect((await got.body()).equals(bytes)).toBe(true);

      // Delete, confirmed.
      await actions(page).getByRole('button', { name: 'Delete' }).click();
      await page.getByRole('tooltip').getByRole('button', { name: 'Delete' }).click();
      await expect(page.getByText('moved/renamed.bin deleted')).toBeVisible();
      await expect(page).toHaveURL(new RegExp(`/${LOCAL}/moved$`));
      expect((await page.request.get(`/repository/${LOCAL}/moved/renamed.bin`)).status()).toBe(404);

      // A folder: the native browser link.
      await page.getByRole('treeitem', { name: 'releases' }).click();
      await expect(page.getByRole('link', { name: 'Native Browser' })).toHaveAttribute(
        'href',
        `/repository/${LOCAL}/releases/`,
      );
      // Download folder: the folder as a zip streamed by the server, holding the deployed bytes.
      const link = actions(page).getByRole('link', { name: 'Download folder' });
      await expect(link).toHaveAttribute('href', `/api/archive/download/${LOCAL}/releases?archiveType=zip`);
      const zip = await page.request.get(`/api/archive/download/${LOCAL}/releases?archiveType=zip`);
      expect(zip.status()).toBe(200);
      expect(zip.headers()['content-type']).toBe('application/zip');
      expect((await zip.body()).includes(Buffer.from('1.0/app.bin'))).toBe(true);
      await saveScreenshot('tree-folder');
      await expectAccessible();
    });

    test('an admin deletes a repository after confirming', async ({ page }) => {
      await signInAsAdmin(page, '/admin/repositories');
      await page.getByRole('button', { name: `Delete ${VIRTUAL}` }).click();
      await page.getByRole('tooltip').getByRole('button', { name: 'Delete' }).click();
      await expect(page.getByText(`Repository ${VIRTUAL} deleted`)).toBeVisible();
      await expect(page.getByRole('link', { name: VIRTUAL })).toHaveCount(0);
    });
  });
