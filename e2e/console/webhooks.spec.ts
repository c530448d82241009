import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import path from 'node:path';
import { apiCall, mainAdminPassword, signIn } from '../support/console.ts';
import { expect, test } from '../support/fixtures.ts';
import { ROOT, type RunningServer, startServer } from '../support/server.ts';

/**
 * Issue 14 / spec 001 §2, §5, §8: the webhooks screens against a real server that may reach loopback
 * (`GRANARY_OUTBOUND_ALLOWLIST=127.0.0.1`, so it has its own server) and a real receiver this test starts on
 * 127.0.0.1. Create, test, edit, disable, read the delivery log, delete; every spec message is seen.
 */
const M = {
  name: 'Name cannot contain special characters',
  secretName: 'A secret name cannot contain special characters',
  mandatory: 'This field is mandatory',
  duplicate: 'This name already exist',
  url: 'Enter a valid URL',
  header: 'Header must contain name and value',
  secret: 'A Secret must contain name',
  testSuccess: 'A dummy hook was executed and sent to the configured URL',
  testFailure: 'Sending a dummy Webhook failed',
  testUnreachable: 'Request failed, unable to test Webhook.',
};
const HOOK = 'e2e-hook';
const REPO = 'e2e-hooks-local';

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let granary: RunningServer;
let receiver: Server;
let receiverBase = '';
const received: Received[] = [];

/** A receiver on loopback: `/hook` answers 200, `/fail` answers 500. */
function startReceiver(): Promise<void> {
  receiver = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      body += chunk;
    });
    request.on('end', () => {
      received.push({ path: request.url ?? '', headers: request.headers, body });
      const ok = !(request.url ?? '').startsWith('/fail');
      response.writeHead(ok ? 200 : 500, { 'content-type': 'text/plain' });
      response.end(ok ? 'received' : 'receiver failure');
    });
  });
  return new Promise((resolve) => {
    receiver.listen(0, '127.0.0.1', () => {
      const address = receiver.address();
      receiverBase = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
      resolve();
    });
  });
}

const admin = () => ({ user: 'admin', password: mainAdminPassword() });

test.describe
  .serial('webhooks (issue 14, spec 001 §2 configuration/webhooks)', () => {
    test.beforeAll(async () => {
      test.setTimeout(120_000);
      await startReceiver();
      granary = await startServer({
        adminPassword: mainAdminPassword(),
        logFile: path.join(ROOT, 'e2e/test-results/server-webhooks.log'),
        env: { GRANARY_OUTBOUND_ALLOWLIST: '127.0.0.1' },
      });
      await apiCall(granary.baseURL, admin(), 'PUT', `/api/repositories/${REPO}`, {
        rclass: 'local',
        packageType: 'generic',
      });
    });
    test.afterAll(async () => {
      await granary?.stop();
      await new Promise((resolve) => receiver?.close(resolve));
    });

    test('issue 14: create a webhook (every spec 001 §5 message on the way), test it (every §8 message), see its delivery', async ({
      page,
      saveScreenshot,
      expectAccessible,
    }) => {
      test.setTimeout(180_000);
      await signIn(page, granary.baseURL, 'admin', mainAdminPassword());

      // Reachable from the admin catalogue card.
      await page.goto(`${granary.baseURL}/ui/admin/artifactory/list`);
      await page.getByRole('link', { name: 'Webhooks' }).click();
      await expect(page).toHaveURL(/\/ui\/admin\/configuration\/webhooks$/);
      await expect(page.getByRole('heading', { level: 1, name: 'Webhooks' })).toBeVisible();
      await expect(page.getByText(/No webhooks yet/)).toBeVisible();
      await saveScreenshot('webhooks-empty');
      await expectAccessible();

      await page.getByRole('button', { name: /Create a webhook/ }).click();
      await expect(page).toHaveURL(/\/ui\/admin\/configuration\/webhooks\/new$/);
      await expect(page.getByRole('heading', { level: 1, name: 'New Webhook' })).toBeVisible();

      // spec 001 §5: mandatory, name rule, URL rule.
      await page.getByRole('button', { name: 'Create Webhook' }).click();
      await expect(page.getByText(M.mandatory)).toHaveCount(3);
      await page.getByLabel('Name', { exact: true }).fill('1 bad name!');
      await expect(page.getByText(M.name)).toBeVisible();
      await page.getByLabel('URL').fill('gopher://example.com/hook');
      await expect(page.getByText(M.url)).toBeVisible();

      // A domain with no producer yet is listed, disabled, with its note.
      await page.getByRole('combobox', { name: 'Event domain' }).click();
      await expect(
        page
          .locator('.ant-select-item-option-disabled')
          .filter({ hasText: 'Granary has no v1 bundles' })
          .first(),
      ).toBeVisible();
      await page
        .locator('.ant-select-item-option')
        .filter({ hasText: /^Artifacts$/ })
        .click();
      await page.getByRole('checkbox', { name: 'Artifact was deployed' }).check();
      await page.getByRole('checkbox', { name: 'Any local repository' }).check();

      // Headers and (custom handler) secrets.
      await page.getByRole('button', { name: /Add Header/ }).click();
      await page.getByLabel('Header 1 name').fill('X-Team');
      await page
        .locator('label')
        .filter({ hasText: /^Custom$/ })
        .click();
      await page.getByRole('button', { name: /Add Secret/ }).click();
      await page.getByRole('button', { name: 'Create Webhook' }).click();
      await expect(page.getByText(M.header)).toBeVisible();
      await expect(page.getByText(M.secret)).toBeVisible();
      await page.getByLabel('Secret 1 name').fill('bad name');
      await expect(page.getByText(M.secretName)).toBeVisible();
      await saveScreenshot('webhooks-form-validation');
      await page.getByRole('button', { name: 'Remove secret 1' }).click();
      await page
        .locator('label')
        .filter({ hasText: /^Predefined$/ })
        .click();
      await page.getByLabel('Header 1 value').fill('platform');
      await expect(page.getByText(M.header)).toHaveCount(0);

      // Valid values; the Test button sends the unsaved form to the receiver.
      await page.getByLabel('Name', { exact: true }).fill(HOOK);
      await page.getByLabel('Description').fill('Tells the loopback receiver about deploys');
      await page.getByLabel('URL').fill(`${receiverBase}/hook`);
      await page.getByLabel('Authentication secret').fill('e2e-webhook-secret');
      await page.getByRole('checkbox', { name: 'Sign payload with secret' }).check();
      await expect(page.getByText(M.name)).toHaveCount(0);
      await expect(page.getByText(M.url)).toHaveCount(0);
      const before = received.length;
      await page.getByRole('button', { name: /Test/ }).click();
      await expect(page.getByText(M.testSuccess)).toBeVisible();
      expect(received.length).toBe(before + 1);
      const testDelivery = received.at(-1)!;
      expect(testDelivery.path).toBe('/hook');
      expect(testDelivery.headers['x-team']).toBe('platform');
      expect(testDelivery.headers['webhook-signature']).toMatch(/^v1,/);
      await saveScreenshot('webhooks-form-test-success');
      await expectAccessible();

      // The receiver fails: 502 from the server, its reason shown.
      await page.getByLabel('URL').fill(`${receiverBase}/fail`);
      await page.getByRole('button', { name: /Test/ }).click();
      await expect(page.getByText(M.testFailure, { exact: true })).toBeVisible();
      await expect(page.getByText(/500/).first()).toBeVisible();
      await saveScreenshot('webhooks-form-test-failure');

      // The request itself cannot be made (the browser's connection is cut).
      await page.route('**/event/api/v1/subscriptions/test', (route) => route.abort('connectionrefused'));
      await page.getByRole('button', { name: /Test/ }).click();
      await expect(page.getByText(M.testUnreachable)).toBeVisible();
      await page.unroute('**/event/api/v1/subscriptions/test');

      await page.getByLabel('URL').fill(`${receiverBase}/hook`);
      await page.getByRole('button', { name: 'Create Webhook' }).click();
      await expect(page).toHaveURL(/\/ui\/admin\/configuration\/webhooks$/);
      const row = page.getByRole('row', { name: new RegExp(HOOK) });
      await expect(row.getByRole('link', { name: HOOK })).toBeVisible();
      await expect(row.getByText(`${receiverBase}/hook`)).toBeVisible();
      await expect(row.getByText('artifact: deployed')).toBeVisible();

      // 'This name already exist': a second webhook under the same name.
      await page.getByRole('button', { name: 'New Webhook' }).click();
      await expect(page.getByRole('heading', { level: 1, name: 'New Webhook' })).toBeVisible();
      await page.getByLabel('Name', { exact: true }).fill(HOOK);
      await expect(page.getByText(M.duplicate)).toBeVisible();
      await page.getByRole('button', { name: 'Cancel' }).click();

      // A real deploy reaches the receiver, and the list shows the last delivery.
      const deliveredBefore = received.length;
      const put = await fetch(`${granary.baseURL}/repository/${REPO}/docs/readme.txt`, {
        method: 'PUT',
        headers: { authorization: `Basic ${Buffer.from(`admin:${mainAdminPassword()}`).toString('base64')}` },
        body: 'hello webhooks',
      });
      expect(put.ok).toBe(true);
      await expect.poll(() => received.length, { timeout: 20_000 }).toBeGreaterThan(deliveredBefore);
      const event = JSON.parse(received.at(-1)!.body) as {
        domain: string;
        event_type: string;
        data: { path: string };
      };
      expect(event).toMatchObject({ domain: 'artifact', event_type: 'deployed' });
      expect(event.data.path).toContain('docs/readme.txt');
      await expect
        .poll(
          async () => {
            await page.reload();
            const current = page.getByRole('row', { name: new RegExp(HOOK) });
            await expect(current.getByRole('link', { name: HOOK })).toBeVisible();
            return current.getByText(/delivered \(200\)/).count();
          },
          { timeout: 20_000 },
        )
        .toBe(1);
      await saveScreenshot('webhooks-list');
      await expectAccessible();

      // The delivery log: the attempt with its request and response; redeliver it.
      await page.getByRole('button', { name: `Delivery log of ${HOOK}` }).click();
      const drawer = page.getByRole('dialog', { name: `Delivery log: ${HOOK}` });
      await expect(drawer.getByText('artifact: deployed')).toBeVisible();
      await drawer
        .getByRole('button', { name: /Expand row/i })
        .first()
        .click();
      await expect(drawer.getByText(/docs\/readme\.txt/).first()).toBeVisible();
      await expect(drawer.getByText('received').first()).toBeVisible();
      await saveScreenshot('webhooks-delivery-log');
      const beforeRedeliver = received.length;
      await drawer
        .getByRole('button', { name: /^Redeliver/ })
        .first()
        .click();
      await expect.poll(() => received.length, { timeout: 20_000 }).toBeGreaterThan(beforeRedeliver);
      await expect
        .poll(
          async () => {
            await drawer.getByRole('button', { name: /Refresh/ }).click();
            return drawer.getByText('artifact: deployed').count();
          },
          { timeout: 20_000 },
        )
        .toBeGreaterThanOrEqual(2);
      await saveScreenshot('webhooks-delivery-log-redelivered');
      await page.keyboard.press('Escape');
    });

    test('issue 14: edit keeps the stored secret, disable from the list, delete with a confirmation naming it', async ({
      page,
      saveScreenshot,
      expectAccessible,
    }) => {
      await signIn(page, granary.baseURL, 'admin', mainAdminPassword());
      await page.goto(`${granary.baseURL}/ui/admin/configuration/webhooks`);
      await page.getByRole('link', { name: HOOK }).click();
      await expect(page).toHaveURL(new RegExp(`/ui/admin/configuration/webhooks/edit/${HOOK}$`));
      await expect(page.getByRole('heading', { level: 1, name: `Edit ${HOOK}` })).toBeVisible();
      const secret = page.getByLabel('Authentication secret');
      await expect(secret).toHaveValue('');
      await expect(secret).toHaveAttribute('placeholder', 'A secret is stored; leave empty to keep it');
      await expect(page.getByLabel('Name', { exact: true })).toBeDisabled();
      await saveScreenshot('webhooks-form-edit');
      await expectAccessible();
      await page.getByLabel('Description').fill('Edited by the browser test');
      await page.getByRole('button', { name: 'Save' }).click();
      await expect(page).toHaveURL(/\/ui\/admin\/configuration\/webhooks$/);
      const row = page.getByRole('row', { name: new RegExp(HOOK) });
      await expect(row.getByText('Edited by the browser test')).toBeVisible();

      // The stored secret is kept, and stays write-only: the answer carries "" for it.
      const stored = (await apiCall(
        granary.baseURL,
        admin(),
        'GET',
        `/event/api/v1/subscriptions/${HOOK}`,
      )) as { handlers: { secret?: string }[] };
      expect(stored.handlers[0]?.secret).toBe('');

      // Disable.
      await row.getByRole('switch', { name: `Enable ${HOOK}` }).click();
      await expect(page.getByText(`Webhook ${HOOK} disabled`)).toBeVisible();
      await expect(row.getByRole('switch', { name: `Enable ${HOOK}` })).toHaveAttribute(
        'aria-checked',
        'false',
      );
      const afterDisable = (await apiCall(
        granary.baseURL,
        admin(),
        'GET',
        `/event/api/v1/subscriptions/${HOOK}`,
      )) as { enabled: boolean };
      expect(afterDisable.enabled).toBe(false);
      await saveScreenshot('webhooks-list-disabled');

      // Delete, confirming.
      await row.getByRole('button', { name: `Delete ${HOOK}` }).click();
      await expect(page.getByText(`Delete webhook ${HOOK}?`)).toBeVisible();
      await saveScreenshot('webhooks-delete-confirm');
      await page.getByRole('button', { name: 'Delete', exact: true }).click();
      await expect(page.getByText(`Webhook ${HOOK} deleted`)).toBeVisible();
      await expect(page.getByText(/No webhooks yet/)).toBeVisible();
    });
  });
