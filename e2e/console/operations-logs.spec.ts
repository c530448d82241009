import { randomUUID } from 'node:crypto';
import { mainAdminPassword, signIn } from '../support/console.ts';
import { expect, test } from '../support/fixtures.ts';

/**
 * Issue 15 / spec 001 §2 `monitoring/system_logs`: the live log viewer against the real server and its
 * real log files. A request made meanwhile appears after Refresh now; Pause stops the countdown.
 */
test.describe('live log viewer (issue 15, spec 001 §2 monitoring/system_logs)', () => {
  test('spec 001 §4: a new request.log line appears after Refresh now; Pause stops the countdown', async ({
    page,
    baseURL,
    saveScreenshot,
    expectAccessible,
  }) => {
    await signIn(page, baseURL!, 'admin', mainAdminPassword());
    await page.goto('/ui/admin/monitoring/system_logs');
    await expect(page.getByRole('heading', { level: 1, name: 'System Logs' })).toBeVisible();
    const text = page.getByRole('textbox', { name: 'Log content' });
    // The server log of this node opens first.
    await expect(text).toHaveValue(/"area":"server"/);
    await expect(page.getByRole('link', { name: /Download logs from Support Zone/ })).toBeVisible();

    await page.getByRole('combobox', { name: 'Log file' }).click();
    await page.getByTitle('request.log', { exact: true }).click();
    await expect(text).toHaveValue(/"area":"request"/);
    const marker = `e2e-logs-${randomUUID()}`;
    const ping = await fetch(`${baseURL}/api/system/ping?marker=${marker}`);
    expect(ping.status).toBe(200);
    await expect(text).not.toHaveValue(new RegExp(marker));
    await page.getByRole('button', { name: 'Refresh now' }).click();
    await expect(text).toHaveValue(new RegExp(marker));
    // Kept scrolled to the end.
    expect(await text.evaluate((el) => Math.abs(el.scrollHeight - el.clientHeight - el.scrollTop) <= 2)).toBe(
      true,
    );
    await expect(page.getByTestId('log-countdown')).toHaveText(/^Next refresh in \d+ s$/);
    await saveScreenshot('operations-logs');

    await page.getByRole('button', { name: 'Pause' }).click();
    const countdown = page.getByTestId('log-countdown');
    await expect(countdown).toHaveText(/^Paused — next refresh in \d+ s$/);
    const paused = await countdown.textContent();
    await page.waitForTimeout(2_500);
    await expect(countdown).toHaveText(paused!);
    await expect(page.getByRole('button', { name: 'Resume' })).toBeVisible();
    await saveScreenshot('operations-logs-paused');
    await expectAccessible();
  });
});
