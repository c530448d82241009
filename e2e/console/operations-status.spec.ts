import { apiCall, mainAdminPassword, mainBaseURL, signIn } from '../support/console.ts';
import { expect, test } from '../support/fixtures.ts';

interface Nodes {
  nodes: { node_id: string; current: boolean }[];
}

/**
 * Issue 15 / spec 001 §2 monitoring/service-status and monitoring/pdn, spec 000 §2 /admin/mission_control/topology:
 * the real server's own node with the health of its parts, the topology drawn, the peer distribution page.
 */
test.describe('operations: service status and topology (issue 15)', () => {
  test('spec 001 §4: the service status lists the available service, its node and the health of each part; the topology draws it', async ({
    page,
    saveScreenshot,
    expectAccessible,
  }) => {
    const admin = { user: 'admin', password: mainAdminPassword() };
    const self = (
      (await apiCall(mainBaseURL(), admin, 'GET', '/ui/api/v1/system/status/nodes')) as Nodes
    ).nodes.find((n) => n.current)!;
    await signIn(page, mainBaseURL(), admin.user, admin.password);

    await page.goto('/ui/admin/monitoring/service-status');
    await expect(page.getByRole('heading', { level: 1, name: 'Service Status' })).toBeVisible();
    await expect(page).toHaveTitle('Service Status - Granary');
    await expect(page.getByText(/1 of 1 service available/)).toBeVisible();
    await expect(page.getByRole('combobox', { name: 'Service' })).toBeVisible();
    const row = page.getByRole('row').filter({ has: page.getByRole('button', { name: self.node_id }) });
    await expect(row.getByText('this node')).toBeVisible();
    await expect(row.getByText('Online')).toBeVisible();
    const parts = page
      .locator('.ant-card')
      .filter({ has: page.getByRole('heading', { name: `Services on ${self.node_id}` }) });
    for (const name of ['http', 'database', 'blobstore', 'events']) {
      const part = parts.getByRole('row').filter({ has: page.getByText(name, { exact: true }) });
      await expect(part.getByText('HEALTHY'), name).toBeVisible();
    }
    await expect(parts.getByText('job:system.node-heartbeat', { exact: true })).toBeVisible();
    await saveScreenshot('operations-status-services');
    await expectAccessible();

    // The administration sidebar's Topology item now opens the real topology.
    await page.getByRole('link', { name: 'Topology' }).first().click();
    await expect(page).toHaveURL(/\/ui\/admin\/mission_control\/topology$/);
    await expect(page.getByRole('heading', { level: 1, name: 'Topology' })).toBeVisible();
    await expect(page.getByText('1 node, 1 Online')).toBeVisible();
    const drawing = page.getByTestId('topology-diagram');
    await expect(drawing.locator(`[data-node="${self.node_id}"]`)).toBeVisible();
    await expect(drawing.getByText('Embedded PostgreSQL (PGlite)')).toBeVisible();
    await expect(drawing.getByText('Filesystem ($GRANARY_HOME/blobs)')).toBeVisible();
    await expect(drawing.locator('line[data-link]')).toHaveCount(2);
    await saveScreenshot('operations-status-topology');
    await expectAccessible();

    await page.goto('/ui/admin/monitoring/pdn');
    await expect(page.getByRole('heading', { level: 1, name: 'Peer Distribution' })).toBeVisible();
    await expect(page.getByText(/arrives with release-bundle distribution/)).toBeVisible();
    await saveScreenshot('operations-status-pdn');
  });
});
