import { mkdirSync } from 'node:fs';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { test as base, expect, type Page } from '@playwright/test';
import { ROOT } from './server.ts';
import { selectWorkerServer } from './workers.ts';

selectWorkerServer();

const SCREENSHOTS = path.join(ROOT, 'e2e/screenshots');

export interface ConsoleFixtures {
  /** Saves a full-page screenshot to e2e/screenshots/{name}.png (git-ignored). */
  saveScreenshot(name: string, page?: Page): Promise<void>;
  /** Runs axe (WCAG 2.x A and AA) on the page and fails on serious or critical violations. */
  expectAccessible(page?: Page): Promise<void>;
}

export const test = base.extend<ConsoleFixtures>({
  baseURL: async ({ baseURL }, use) => {
    const url = process.env.GRANARY_E2E_BASE_URL ?? baseURL;
    if (!url) throw new Error('GRANARY_E2E_BASE_URL is not set: the global setup did not start the server');
    await use(url);
  },
  saveScreenshot: async ({ page }, use) => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    await use(async (name, target = page) => {
      // A full-page shot of a scrolled page draws the sticky header mid-page: start from the top.
      await target.evaluate(() => window.scrollTo(0, 0));
      await target.screenshot({
        path: path.join(SCREENSHOTS, `${name}.png`),
        fullPage: true,
        animations: 'disabled',
      });
    });
  },
  expectAccessible: async ({ page }, use, testInfo) => {
    await use(async (target = page) => {
      const results = await new AxeBuilder({ page: target })
        .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'])
        .analyze();
      await testInfo.attach(`axe-${target.url()}`, {
        body: JSON.stringify(results.violations, null, 2),
        contentType: 'application/json',
      });
      const serious = results.violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
      expect(serious, `axe violations on ${target.url()}`).toEqual([]);
    });
  },
});

export { expect };
