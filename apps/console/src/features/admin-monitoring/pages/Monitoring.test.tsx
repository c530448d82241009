import type { MicroService, ServiceNode, ServiceStatus } from '@granary/contracts';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { beforeEach, describe, expect, it } from 'vitest';
import { renderApp } from '../../../shared/test/renderApp.tsx';
import { apiUrl, server } from '../../../shared/test/server.ts';
import { userData } from '../../../shared/test/users.ts';

const part = (name: string, state: MicroService['state'] = 'HEALTHY', message = 'OK'): MicroService => ({
  name,
  kind: name.startsWith('job:') ? 'job' : (name as MicroService['kind']),
  state,
  critical: ['http', 'database', 'blobstore'].includes(name),
  message,
  last_heartbeat: new Date().toISOString(),
  uptime: 125,
  detail: {},
});

const node = (id: string, extra: Partial<ServiceNode> = {}): ServiceNode => ({
  node_id: id,
  service_id: 'granary',
  status: 'Online',
  state: 'HEALTHY',
  host_name: `${id}.internal`,
  url: `http://${id}.internal:8080`,
  version: '1.2.3',
  start_time: new Date(Date.now() - 3_600_000).toISOString(),
  last_heartbeat: new Date().toISOString(),
  uptime: 3_600,
  current: false,
  micro_services: {
    http: part('http'),
    database: part('database'),
    blobstore: part('blobstore'),
    events: part('events'),
    'job:blobs.scrub': part('job:blobs.scrub', 'UNHEALTHY', 'Failed 2 times in a row: disk unreadable'),
  },
  ...extra,
});

let status: ServiceStatus;
let deleted: string | null;

beforeEach(() => {
  deleted = null;
  const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000).toISOString();
  status = {
    services: {
      granary: {
        state: 'HEALTHY',
        nodes: [
          node('node-a', { current: true }),
          node('node-old', { status: 'Offline', state: 'UNHEALTHY', last_heartbeat: twoDaysAgo }),
        ],
      },
      scanner: { state: 'UNHEALTHY', nodes: [node('scan-1', { status: 'Offline', state: 'UNHEALTHY' })] },
    },
  };
  server.use(
    http.get(apiUrl('ui/auth/current'), () => HttpResponse.json(userData())),
    http.get(apiUrl('system/status/services'), () => HttpResponse.json(status)),
    http.get(apiUrl('system/status/ha'), () =>
      HttpResponse.json({
        granary: status.services.granary!.nodes.map((n) => ({ node_id: n.node_id, status: n.status })),
      }),
    ),
    http.delete(apiUrl('access/api/v1/topology/:serviceId/:nodeId'), ({ params }) => {
      deleted = `${params.serviceId}/${params.nodeId}`;
      status.services.granary!.nodes = status.services.granary!.nodes.filter(
        (n) => n.node_id !== params.nodeId,
      );
      return new HttpResponse(null, { status: 204 });
    }),
  );
});

describe('service status (spec 001 §2 monitoring/service-status, §3, §4)', () => {
  it('spec 001 §4: only HEALTHY services count as available and are offered with their nodes; each node shows its parts', async () => {
    renderApp('/admin/monitoring/service-status');
    expect(await screen.findByRole('heading', { level: 1, name: 'Service Status' })).toBeTruthy();
    expect(await screen.findByText(/1 of 2 services available/)).toBeTruthy();
    expect(screen.getByText(/High availability: 1 of 2 nodes Online/)).toBeTruthy();
    expect(screen.getByText('Unavailable (not HEALTHY): scanner')).toBeTruthy();

    const nodes = screen
      .getByRole('heading', { name: 'Nodes of granary' })
      .closest('.ant-card')! as HTMLElement;
    const current = within(nodes).getByRole('button', { name: 'node-a' }).closest('tr')!;
    expect(within(current).getByText('this node')).toBeTruthy();
    expect(within(current).getByText('Online')).toBeTruthy();
    expect(within(current).getByText('1h 0m')).toBeTruthy();
    const old = within(nodes).getByRole('button', { name: 'node-old' }).closest('tr')!;
    expect(within(old).getByText('Offline')).toBeTruthy();
    expect(within(nodes).queryByText('scan-1')).toBeNull();

    // The product selector offers only the available service.
    fireEvent.mouseDown(screen.getByRole('combobox', { name: 'Service' }));
    await waitFor(() =>
      expect(document.querySelectorAll('.ant-select-item-option').length).toBeGreaterThan(0),
    );
    const offered = [...document.querySelectorAll('.ant-select-item-option')].map((o) => o.textContent);
    expect(offered).toEqual(['granary']);

    const parts = screen
      .getByRole('heading', { name: 'Services on node-a' })
      .closest('.ant-card')! as HTMLElement;
    const scrub = within(parts).getByText('job:blobs.scrub').closest('tr')!;
    expect(within(scrub).getByText('UNHEALTHY')).toBeTruthy();
    expect(within(scrub).getByText('Failed 2 times in a row: disk unreadable')).toBeTruthy();
  });

  it('spec 001 §7 DELETE /access/api/v1/topology/{serviceId}/{nodeId}: a node silent for a day can be removed, an online one cannot', async () => {
    renderApp('/admin/monitoring/service-status');
    expect(await screen.findByRole('button', { name: 'node-old' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Remove node-a' })).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Remove node-old' }));
    expect(await screen.findByText('Remove node node-old?')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'OK' }));
    await waitFor(() => expect(deleted).toBe('granary/node-old'));
    await waitFor(() => expect(screen.queryByRole('button', { name: 'node-old' })).toBeNull());
  });
});

describe('topology (spec 000 §2 /admin/mission_control/topology, issue 15)', () => {
  it('issue 15: draws each node with its parts and health, and lines to the shared database and blob store', async () => {
    renderApp('/admin/mission_control/topology');
    expect(await screen.findByRole('heading', { level: 1, name: 'Topology' })).toBeTruthy();
    expect(await screen.findByText('2 nodes, 1 Online')).toBeTruthy();
    const svg = screen.getByTestId('topology-diagram');
    expect(svg.querySelectorAll('[data-node]')).toHaveLength(2);
    expect(within(svg as unknown as HTMLElement).getByText('Database')).toBeTruthy();
    expect(within(svg as unknown as HTMLElement).getByText('Blob store')).toBeTruthy();
    // One line from each node to each shared store; the offline node's lines are dashed.
    expect(svg.querySelectorAll('line[data-link]')).toHaveLength(4);
    expect(svg.querySelector('line[data-link="node-old-database"]')?.getAttribute('stroke-dasharray')).toBe(
      '6 5',
    );
    expect(
      svg.querySelector('line[data-link="node-a-database"]')?.getAttribute('stroke-dasharray'),
    ).toBeNull();
    const a = svg.querySelector('[data-node="node-a"]')! as unknown as HTMLElement;
    expect(within(a).getByText('FAILING')).toBeTruthy();
    expect(within(a).getAllByText('OK')).toHaveLength(4);
  });

  it('spec 001 §2 monitoring/pdn: explains peer distribution and that it arrives with release-bundle distribution', async () => {
    renderApp('/admin/monitoring/pdn');
    expect(await screen.findByRole('heading', { level: 1, name: 'Peer Distribution' })).toBeTruthy();
    expect(screen.getByText(/arrives with release-bundle distribution/)).toBeTruthy();
  });
});
