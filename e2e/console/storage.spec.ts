import { apiCall, mainAdminPassword, mainBaseURL, signInByApi } from '../support/console.ts';
import { expect, test } from '../support/fixtures.ts';

const suffix = Date.now().toString(36);
const REPO = `e2e-storage-${suffix}`;
const KB = 1024;

test.describe('issue 21: the storage page and repository quotas in the console', () => {
  test.beforeAll(async () => {
    const admin = { user: 'admin', password: mainAdminPassword() };
    await apiCall(mainBaseURL(), admin, 'PUT', `/api/repositories/${REPO}`, {
      rclass: 'local',
      packageType: 'generic',
    });
    const auth = `Basic ${Buffer.from(`admin:${admin.password}`).toString('base64')}`;
    // Two paths with the same 40 KB and one of 10 KB: 90 KB of artifacts in 50 KB of blobs.
    for (const [file, bytes] of [
      ['a/same.bin', Buffer.alloc(40 * KB, suffix)],
      ['b/same.bin', Buffer.alloc(40 * KB, suffix)],
      ['c/other.bin', Buffer.alloc(10 * KB, `${suffix}-other`)],
    ] as const) {
      const put = await fetch(`${mainBaseURL()}/repository/${REPO}/${file}`, {
        method: 'PUT',
        headers: { authorization: auth },
        body: bytes,
      });
      expect(put.status).toBe(201);
    }
    // 90 KB of a 100 KB quota: over 80 %.
    await apiCall(mainBaseURL(), admin, 'PUT', `/ui/api/v1/storage/quotas/repositories/${REPO}`, {
      quotaBytes: 100 * KB,
    });
  });

  test('issue 21: the storage page shows use, deduplication, charts and the GC dry run; the repository form shows the quota warning and sets the quota', async ({
    page,
    saveScreenshot,
    expectAccessible,
  }) => {
    const scripts: string[] = [];
    page.on('response', (r) => {
      if (r.request().resourceType() === 'script') scripts.push(new URL(r.url()).pathname);
    });
    // One page load: signed in by the login call, straight to the page (the catalogue's link and the charts'
    // content are component tests: AdminCataloguePage, StoragePage.test.tsx).
    await signInByApi(page, mainBaseURL(), 'admin', mainAdminPassword());
    await page.goto('/ui/admin/storage');
    await expect(page.getByRole('heading', { level: 1, name: 'Storage' })).toBeVisible();
    await expect(page.getByText('Deduplication saving')).toBeVisible();
    await page.getByRole('searchbox', { name: 'Filter repositories' }).fill(REPO);
    // (the charts' data tables, for screen readers, have rows naming the repository too)
    const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: REPO }) });
    await expect(row).toContainText('90 KB');
    await expect(row.getByLabel('90 KB of 100 KB (90 %)')).toBeVisible();
    await expect(page.getByText(/quotas? (is|are) over 80 %/)).toBeVisible();
    // The charts (SVG), loaded with this page only, are drawn in a real browser.
    await expect(
      page.getByRole('img', { name: 'Usage by repository over time' }).locator('svg circle').first(),
    ).toBeVisible();
    await expect(
      page.getByRole('img', { name: 'Usage by package type' }).locator('svg path').first(),
    ).toBeVisible();

    await page.getByRole('button', { name: 'Dry run' }).click();
    await expect(page.getByText(/^Dry run: .* in \d+ blobs can be reclaimed$/)).toBeVisible();
    await saveScreenshot('storage-page');
    await expectAccessible();

    await row.getByRole('link', { name: REPO }).click();
    await expect(page.getByRole('heading', { level: 1, name: `Edit ${REPO}` })).toBeVisible();
    await expect(page.getByText(`${REPO} uses over 80 % of its quota`)).toBeVisible();
    await page.getByRole('spinbutton', { name: 'Quota' }).fill('1');
    await page.getByRole('button', { name: 'Save quota' }).click();
    await expect(page.getByText('Quota set to 1.0 MB')).toBeVisible();
    await expect(page.getByText(`${REPO} uses over 80 % of its quota`)).toHaveCount(0);
    await saveScreenshot('storage-repository-quota');
    // The chart chunk came with the storage page, not with the shell or the repository form.
    expect(scripts.filter((s) => /StorageCharts/.test(s))).toHaveLength(1);
  });
});
