import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { makeTarball, publishDocument } from '../../apps/server/src/formats/npm/test-support.ts';
import { apiCall, mainAdminPassword, signInByApi } from '../support/console.ts';
import { expect, test } from '../support/fixtures.ts';
import { ROOT, type RunningServer, startServer } from '../support/server.ts';

const REPO = 'npm-cold';
const TARBALL = 'frozen/-/frozen-1.0.0.tgz';

let granary: RunningServer;
let archiveDir: string;
let oldTarball: Buffer;

test.describe
  .serial('issue 21: cleanup policies and the Archive (cold storage) in the console', () => {
    test.beforeAll(async () => {
      test.setTimeout(120_000);
      // A server of its own: the archive store is a setting (GRANARY_ARCHIVE_STORE) the main server lacks.
      archiveDir = await mkdtemp(path.join(tmpdir(), 'granary-e2e-archive-'));
      granary = await startServer({
        adminPassword: mainAdminPassword(),
        logFile: path.join(ROOT, 'e2e/test-results/server-retention.log'),
        env: { GRANARY_ARCHIVE_STORE: archiveDir },
      });
      const admin = { user: 'admin', password: mainAdminPassword() };
      await apiCall(granary.baseURL, admin, 'PUT', `/api/repositories/${REPO}`, {
        rclass: 'local',
        packageType: 'npm',
      });
      for (const version of ['1.0.0', '2.0.0']) {
        const manifest = { name: 'frozen', version, description: 'frozen package' };
        const tgz = await makeTarball(manifest);
        if (version === '1.0.0') oldTarball = tgz;
        await apiCall(
          granary.baseURL,
          admin,
          'PUT',
          `/repository/${REPO}/frozen`,
          publishDocument(manifest, tgz),
        );
      }
    });
    test.afterAll(async () => {
      await granary?.stop();
      if (archiveDir) await rm(archiveDir, { recursive: true, force: true });
    });

    test('issue 21: an admin creates an archiving policy, previews it with Dry run, runs it; the Archive search finds the version and restores it', async ({
      page,
      saveScreenshot,
    }) => {
      test.setTimeout(120_000);
      // One page load: signed in by the login call, then only the console's own navigation.
      await signInByApi(page, granary.baseURL, 'admin', mainAdminPassword());
      await page.goto(`${granary.baseURL}/ui/admin/repositories/cleanup-policies`);
      await expect(page.getByRole('heading', { level: 1, name: 'Cleanup Policies' })).toBeVisible();
      await page.getByRole('button', { name: 'New Policy' }).click();
      await page.getByLabel('Name').fill('archiveOld');
      await page.getByLabel('Repositories', { exact: true }).click();
      await page.getByTitle(`${REPO} (npm)`).click();
      await page.keyboard.press('Escape');
      await page.getByRole('radio', { name: /Archive \(cold storage\)/ }).check();
      await page.getByLabel('Keep the last versions per package').fill('1');
      await saveScreenshot('retention-policy-form');
      await page.getByRole('button', { name: 'Create' }).click();

      const row = page.getByRole('row').filter({ hasText: 'archiveOld' });
      await expect(row).toContainText('Archive');
      await row.getByRole('button', { name: 'Dry run' }).click();
      const preview = page.getByRole('dialog');
      await expect(preview.getByText(/^1 item would go/)).toBeVisible();
      await expect(preview.getByRole('row').filter({ hasText: 'frozen' })).toContainText('1.0.0');
      await saveScreenshot('retention-dry-run');
      await preview.getByRole('button', { name: 'Close' }).last().click();

      await row.getByRole('button', { name: 'Run now' }).click();
      await page.getByRole('tooltip').getByRole('button', { name: 'Run now' }).click();
      // the list follows the run by itself (no reload)
      await expect(row).toContainText('1 removed', { timeout: 30_000 });

      // spec 001 §8: a client asking for the archived file hears why it is not there.
      const gone = await page.request.get(`${granary.baseURL}/repository/${REPO}/${TARBALL}`);
      expect(gone.status()).toBe(404);
      expect(await gone.text()).toContain('Cannot download expired artifact');

      // spec 001 §2: the toolbar's Archive search
      // The choice is checked before the search runs: a click that lands while the list is still opening
      // leaves the type as it was (CI once searched packages here), so the choice is made again until it shows.
      await expect(async () => {
        if (!(await page.locator('.ant-select-dropdown:visible').count()))
          await page.getByRole('combobox', { name: 'Search type' }).click();
        await page.locator('.ant-select-item-option[title="Archive"]').click({ timeout: 2000 });
        await expect(page.locator('.toolbar-search-type')).toContainText('Archive', { timeout: 1000 });
      }).toPass();
      const box = page.getByRole('textbox', { name: 'Search' });
      await box.fill('frozen');
      await box.press('Enter');
      await expect(page).toHaveURL(/\/ui\/artifactoryRetention\/search\?q=frozen/);
      const hit = page.getByRole('row').filter({ hasText: TARBALL });
      await expect(hit).toContainText(REPO);
      await saveScreenshot('retention-archive-search');
      await hit.getByRole('checkbox').check();
      await page.getByRole('button', { name: /Restore/ }).click();
      await expect(page.getByText('Restored 1 file')).toBeVisible();
      const back = await page.request.get(`${granary.baseURL}/repository/${REPO}/${TARBALL}`);
      expect(back.status()).toBe(200);
      expect(Buffer.from(await back.body()).equals(oldTarball)).toBe(true);
    });
  });
