import { createHash } from 'node:crypto';
import { apiCall, mainAdminPassword, mainBaseURL, signIn } from '../support/console.ts';
import { expect, test } from '../support/fixtures.ts';

/** Issue 8: /artifactSearchResults (quick and checksum search, results linking to the tree) and the toolbar syntax. */

const suffix = Date.now().toString(36);
const REPO = `e2e-generic-${suffix}`;
const FILE = `e2e-search-${suffix}.bin`;
const PATH = `tools/${FILE}`;
const CONTENT = Buffer.from(`the file the search browser test looks for (${suffix})\n`);
const SHA256 = createHash('sha256').update(CONTENT).digest('hex');
const SHA1 = createHash('sha1').update(CONTENT).digest('hex');

test.describe
  .serial('search: artifact search results and the toolbar search syntax (issue 8)', () => {
    test.beforeAll(async () => {
      const admin = { user: 'admin', password: mainAdminPassword() };
      await apiCall(mainBaseURL(), admin, 'PUT', `/api/repositories/${REPO}`, {
        rclass: 'local',
        packageType: 'generic',
      });
      const response = await fetch(`${mainBaseURL()}/repository/${REPO}/${PATH}`, {
        method: 'PUT',
        headers: {
          authorization: `Basic ${Buffer.from(`admin:${admin.password}`).toString('base64')}`,
        },
        body: CONTENT,
      });
      expect(response.status).toBe(201);
    });

    test('/artifactSearchResults: quick search by name with wildcards, checksum search finds the deployed file, a result links to the tree browser', async ({
      page,
      saveScreenshot,
      expectAccessible,
    }) => {
      await signIn(page, mainBaseURL(), 'admin', mainAdminPassword());
      await page.goto('/ui/artifactSearchResults');
      await expect(page.getByRole('heading', { level: 1, name: 'Artifact search' })).toBeVisible();
      await page.getByRole('textbox', { name: 'File name' }).fill(`e2e-search-${suffix}.*`);
      await page.getByRole('button', { name: 'Search' }).last().click();
      const hit = page.getByRole('row', { name: new RegExp(FILE) });
      await expect(hit).toContainText(`${REPO}/${PATH}`);
      await saveScreenshot('search-artifacts-quick');
      await expectAccessible();

      await page.getByRole('tab', { name: 'Checksum' }).click();
      await page.getByRole('textbox', { name: 'Checksum' }).fill(SHA256);
      await page.getByRole('button', { name: 'Search' }).last().click();
      await expect(page.getByRole('row', { name: new RegExp(FILE) })).toBeVisible();
      await expect(page.getByRole('row')).toHaveCount(2);
      await saveScreenshot('search-artifacts-checksum');

      await page.getByRole('link', { name: FILE }).click();
      await expect(page).toHaveURL(new RegExp(`/ui/repos/tree/General/${REPO}/tools/${FILE}$`));
      await expect(page.getByText(SHA256).first()).toBeVisible();
    });

    test('spec 001 §5 toolbar syntax: artifacts search with repo: and checksum:; switching the type keeps only the name (spec 001 §4); recent searches', async ({
      page,
      saveScreenshot,
    }) => {
      await signIn(page, mainBaseURL(), 'admin', mainAdminPassword());
      const box = page.getByRole('textbox', { name: 'Search' });
      const chooseType = async (label: string) => {
        await page.getByRole('combobox', { name: 'Search type' }).click();
        await page.locator(`.ant-select-item-option[title="${label}"]`).click();
      };
      await chooseType('Artifacts');
      await box.fill(`e2e-search-${suffix}* repo:${REPO}`);
      await box.press('Enter');
      await expect(page).toHaveURL(/\/ui\/artifactSearchResults\?q=/);
      await expect(page.getByRole('tab', { name: 'Quick', selected: true })).toBeVisible();
      await expect(page.getByRole('textbox', { name: 'Repositories' })).toHaveValue(REPO);
      await expect(page.getByRole('row', { name: new RegExp(FILE) })).toBeVisible();

      // checksum: (SHA-1 here) makes it a checksum search.
      await box.fill(`checksum:${SHA1}`);
      await box.press('Enter');
      await expect(page.getByRole('tab', { name: 'Checksum', selected: true })).toBeVisible();
      await expect(page.getByRole('textbox', { name: 'Checksum' })).toHaveValue(SHA1);
      await expect(page.getByRole('row', { name: new RegExp(FILE) })).toBeVisible();
      await saveScreenshot('search-toolbar-checksum');

      // spec 001 §4: the model resets except the name when the type is switched.
      await box.fill(`widget pkg:npm repo:${REPO} after:2024-01-01`);
      await chooseType('Packages');
      await expect(box).toHaveValue('widget');

      await page.getByRole('button', { name: 'Recent searches' }).click();
      const recent = page.locator('.ant-dropdown:visible').getByRole('menuitem');
      await expect(recent.first()).toContainText(`checksum:${SHA1} — Artifacts`);
      await expect(recent.nth(1)).toContainText(`e2e-search-${suffix}* repo:${REPO} — Artifacts`);
    });
  });
