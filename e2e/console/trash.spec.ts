import type { Page } from '@playwright/test';
import { apiCall, mainAdminPassword, mainBaseURL, signInByApi } from '../support/console.ts';
import { expect, test } from '../support/fixtures.ts';

/** Opens the `docs` folder in the repository tree (a deep link selects the file without unfolding it). */
const openDocs = (page: Page) =>
  page.getByRole('treeitem', { name: /docs/ }).getByRole('img', { name: 'caret-down' }).click();

const suffix = Date.now().toString(36);
const REPO = `e2e-trash-${suffix}`;
const FILE = `note-${suffix}.txt`;
const BYTES = `kept by the trash can ${suffix}\n`;

test.describe('issue 21: the trash can in the console', () => {
  test.beforeAll(async () => {
    const admin = { user: 'admin', password: mainAdminPassword() };
    await apiCall(mainBaseURL(), admin, 'PUT', `/api/repositories/${REPO}`, {
      rclass: 'local',
      packageType: 'generic',
    });
    const put = await fetch(`${mainBaseURL()}/repository/${REPO}/docs/${FILE}`, {
      method: 'PUT',
      headers: { authorization: `Basic ${Buffer.from(`admin:${admin.password}`).toString('base64')}` },
      body: BYTES,
    });
    expect(put.status).toBe(201);
  });

  test('spec 001 §3 Search Trash Can and Restore: a file deleted in the tree is found in the trash, restored, and back in the tree', async ({
    page,
    saveScreenshot,
    expectAccessible,
  }) => {
    // One page load: signed in by the login call, then the tree, the trash and back by the console's links.
    await signInByApi(page, mainBaseURL(), 'admin', mainAdminPassword());
    await page.goto(`/ui/repos/tree/General/${REPO}/docs/${FILE}`);
    await expect(page.getByRole('heading', { level: 2, name: FILE })).toBeVisible();
    await openDocs(page);
    await expect(page.getByRole('treeitem', { name: FILE })).toBeVisible();
    await page.getByRole('toolbar', { name: 'Actions' }).getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('tooltip').getByRole('button', { name: 'Delete' }).click();
    await expect(page.getByRole('treeitem', { name: FILE })).toHaveCount(0);
    expect((await page.request.get(`/repository/${REPO}/docs/${FILE}`)).status()).toBe(404);

    await page.getByRole('link', { name: 'Trash Can' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Trash Can' })).toBeVisible();
    await page.getByRole('searchbox', { name: 'Search Trash Can' }).fill(FILE);
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const row = page.getByRole('row').filter({ hasText: FILE });
    await expect(row).toHaveCount(1);
    await expect(row).toContainText(REPO);
    await expect(row).toContainText('admin');
    await saveScreenshot('trash-search');
    await expectAccessible();

    await row.getByRole('button', { name: `Restore docs/${FILE}` }).click();
    await expect(page.getByText(`Nothing in the trash matches "${FILE}"`)).toBeVisible();
    // the success message links to the restored file in the tree
    await page.getByRole('link', { name: `${REPO}/docs/${FILE}` }).click();
    await expect(page.getByRole('heading', { level: 2, name: FILE })).toBeVisible();
    await openDocs(page);
    await expect(page.getByRole('treeitem', { name: FILE })).toBeVisible();
    const restored = await page.request.get(`/repository/${REPO}/docs/${FILE}`);
    expect(await restored.text()).toBe(BYTES);
    await saveScreenshot('trash-restored-in-tree');
  });
});
