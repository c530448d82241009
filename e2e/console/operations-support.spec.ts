import { randomUUID } from 'node:crypto';
import { mainAdminPassword, signIn } from '../support/console.ts';
import { expect, test } from '../support/fixtures.ts';

/**
 * Issue 15 / spec 001 §2 `support-zone`, §4: a support bundle created in the console against the real server —
 * its in-progress placeholder appears at once, then (3000 ms after the creation finished, §9) the list reloads and
 * shows the generated bundle, which downloads as a zip.
 */
test.describe('support zone (issue 15, spec 001 §2 support-zone)', () => {
  test('spec 001 §4: create a bundle, see the placeholder then the success row, download it', async ({
    page,
    baseURL,
    saveScreenshot,
    expectAccessible,
  }) => {
    await signIn(page, baseURL!, 'admin', mainAdminPassword());
    await page.goto('/ui/admin/support-zone');
    await expect(page.getByRole('heading', { level: 1, name: 'Support Zone' })).toBeVisible();

    const name = `e2e-bundle-${randomUUID().slice(0, 8)}`;
    await page.getByRole('button', { name: /Create Support Bundle/ }).click();
    const dialog = page.getByRole('dialog', { name: 'Create Support Bundle' });
    await dialog.getByLabel('Name').fill(name);
    await dialog.getByLabel('Description').fill('made by the browser test');
    await dialog.getByRole('checkbox', { name: 'Thread dump' }).check();
    await dialog.getByLabel('Count').fill('2');
    await dialog.getByLabel('Interval (ms)').fill('100');
    await saveScreenshot('operations-support-form');
    await dialog.getByRole('button', { name: 'Create' }).click();

    // §4: the placeholder, in progress, at once.
    const row = page.getByRole('row').filter({ hasText: name });
    await expect(row.locator('.support-bundle-status--in-progress')).toBeVisible();
    await saveScreenshot('operations-support-placeholder');

    // §4, §9: placeholders go 3000 ms after the creation finished; the reloaded list shows the bundle done.
    await expect(row.locator('.support-bundle-status--success')).toBeVisible({ timeout: 30_000 });
    await expect(row).toHaveCount(1);
    const download = row.getByRole('link', { name: `Download ${name}` });
    const href = await download.getAttribute('href');
    expect(href).toMatch(/^\/ui\/api\/v1\/ui\/userSupport\/downloadBundle\/[0-9a-f-]{36}$/);
    const zip = await page.request.get(href!);
    expect(zip.status()).toBe(200);
    expect(zip.headers()['content-type']).toBe('application/zip');
    expect(zip.headers()['content-disposition']).toContain(`${name}-`);
    const bytes = await zip.body();
    expect(bytes.subarray(0, 2).toString('latin1')).toBe('PK');
    await saveScreenshot('operations-support-done');
    await expectAccessible();
  });
});
