import os from 'node:os';
import {
  GRANARY_SERVICE,
  GRANARY_SERVICE_ID,
  NODE_MESSAGES,
  NODE_OFFLINE_AFTER_MS,
  NODE_REMOVABLE_AFTER_MS,
  type ServiceStatus,
} from '@granary/contracts';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../config/index.ts';
import { enqueueJob } from '../../platform/jobs/index.ts';
import {
  basicAuth,
  createTestApp,
  TEST_ADMIN_PASSWORD,
  type TestApp,
  testEngine,
} from '../../testing/index.ts';
import { readSystemSetting, upsertNode } from './system.queries.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
const PW = 'Sam-pa55word!';
const SAM = basicAuth('sam', PW);
const V1 = '/ui/api/v1';
const BASE_URL = 'https://repo.example.com';

describe(`issue 15: nodes, service status, HA status, node removal and health detail (${testEngine})`, () => {
  let t: TestApp;
  let selfId: string;
  const call = (method: 'GET' | 'DELETE', url: string, auth?: string) =>
    t.app.inject({ method, url, headers: auth ? { authorization: auth } : {} });
  const node = (id: string, silentMs: number) =>
    upsertNode(t.app.granary.database.db, {
      id,
      hostName: `${id}.internal`,
      url: `http://${id}.internal:8080`,
      version: '0.0.1',
      revision: 'x',
      startedAt: new Date(Date.now() - silentMs - 3_600_000),
      lastHeartbeatAt: new Date(Date.now() - silentMs),
      services: [],
    });

  beforeAll(async () => {
    t = await createTestApp({ baseUrl: BASE_URL });
    await t.app.inject({
      method: 'PUT',
      url: '/api/security/users/sam',
      headers: { authorization: ADMIN },
      payload: { password: PW },
    });
    selfId = t.app.system.nodes.self.id;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('issue 15: a node records its id, host name, internal URL (not the public base URL), version and start time', async () => {
    const nodes = (await call('GET', `${V1}/system/status/nodes`, ADMIN)).json().nodes;
    const self = nodes.find((n: { current: boolean }) => n.current);
    expect(self).toMatchObject({
      node_id: selfId,
      host_name: os.hostname(),
      url: `http://${os.hostname()}:${t.config.port}`,
      status: 'Online',
      version: (await call('GET', '/api/system/version')).json().version,
    });
    expect(self.url).not.toContain('repo.example.com');
    expect(Date.parse(self.start_time)).toBeLessThanOrEqual(Date.now());
  });

  it('issue 15: GRANARY_NODE_URL / nodeUrl sets the internal URL other nodes reach this one at', () => {
    const config = parseConfig({ home: '/tmp/x', nodeUrl: 'http://node-a.internal:8081/' });
    expect(config.nodeUrl).toBe('http://node-a.internal:8081');
    expect(() => parseConfig({ home: '/tmp/x', nodeUrl: 'ftp://node-a' })).toThrow(
      /nodeUrl|GRANARY_NODE_URL/,
    );
  });

  it('spec 001 §3 HA status, issue 15: node group → nodes with node_id and status; silent 14 s is Online, 16 s Offline', async () => {
    await node('node-quiet', NODE_OFFLINE_AFTER_MS - 1_000);
    await node('node-silent', NODE_OFFLINE_AFTER_MS + 1_000);
    const res = await call('GET', `${V1}/system/status/ha`, ADMIN);
    expect(res.statusCode).toBe(200);
    const group = res.json()[GRANARY_SERVICE] as { node_id: string; status: string }[];
    expect(group).toEqual(
      expect.arrayContaining([
        { node_id: selfId, status: 'Online' },
        { node_id: 'node-quiet', status: 'Online' },
        { node_id: 'node-silent', status: 'Offline' },
      ]),
    );
  });

  it('spec 001 §3 service status: services keyed by type with nodes, each part of this process with its own health', async () => {
    // A recurring job whose last run failed shows as its own unhealthy part; the node still serves.
    t.app.granary.jobs.recurring({
      name: 'test.always-fails',
      scope: 'node',
      intervalMs: 3_600_000,
      run: async () => {
        throw new Error('upstream index unreachable');
      },
    });
    await expect(t.app.granary.jobs.runNow('test.always-fails')).rejects.toThrow(
      'upstream index unreachable',
    );
    await t.app.system.nodes.beat();

    const res = await call('GET', `${V1}/system/status/services`, ADMIN);
    expect(res.statusCode).toBe(200);
    const body = res.json() as ServiceStatus;
    const service = body.services[GRANARY_SERVICE]!;
    expect(service.state).toBe('HEALTHY');
    const self = service.nodes.find((n) => n.node_id === selfId)!;
    expect(self).toMatchObject({
      status: 'Online',
      state: 'HEALTHY',
      service_id: GRANARY_SERVICE_ID,
      current: true,
    });
    expect(Object.keys(self.micro_services)).toEqual(
      expect.arrayContaining(['http', 'database', 'blobstore', 'events', 'job:system.node-heartbeat']),
    );
    for (const name of ['http', 'database', 'blobstore', 'events'])
      expect(self.micro_services[name], name).toMatchObject({
        state: 'HEALTHY',
        critical: name !== 'events',
      });
    expect(self.micro_services.database!.detail.latency_ms).toEqual(expect.any(Number));
    expect(self.micro_services.blobstore!.detail.last_probe_at).toEqual(expect.any(String));
    expect(self.micro_services.events!.detail).toMatchObject({ event_lag: expect.any(Number) });
    const failing = self.micro_services['job:test.always-fails']!;
    expect(failing.state).toBe('UNHEALTHY');
    expect(failing.message).toBe('Failed 1 time in a row: upstream index unreachable');
    expect(Date.parse(failing.last_heartbeat)).toBeGreaterThan(Date.now() - 60_000);
    expect(failing.uptime).toBeGreaterThanOrEqual(0);

    const silent = service.nodes.find((n) => n.node_id === 'node-silent')!;
    expect(silent).toMatchObject({
      status: 'Offline',
      state: 'UNHEALTHY',
      host_name: 'node-silent.internal',
    });
  });

  it('issue 15: a node removed while it still runs registers again with its next heartbeat', async () => {
    await t.app.granary.database.db.execute(
      // as if an admin had removed it: the node's own next beat writes it back
      sql`delete from system_nodes where id = ${selfId}`,
    );
    await t.app.system.nodes.beat();
    const ha = (await call('GET', `${V1}/system/status/ha`, ADMIN)).json()[GRANARY_SERVICE];
    expect(ha).toContainEqual({ node_id: selfId, status: 'Online' });
  });

  it('spec 001 §7 DELETE /access/api/v1/topology/{serviceId}/{nodeId}: only a node silent for a day goes; online or recently seen → 409', async () => {
    await node('node-yesterday', NODE_REMOVABLE_AFTER_MS + 60_000);
    const topology = (serviceId: string, nodeId: string, prefix = '') =>
      `${prefix}/access/api/v1/topology/${serviceId}/${nodeId}`;

    expect((await call('DELETE', topology(GRANARY_SERVICE_ID, 'node-yesterday'), SAM)).statusCode).toBe(403);
    expect((await call('DELETE', topology(GRANARY_SERVICE_ID, 'node-yesterday'))).statusCode).toBe(401);

    const self = await call('DELETE', topology(GRANARY_SERVICE_ID, selfId), ADMIN);
    expect(self.statusCode).toBe(409);
    expect(self.json().errors[0].message).toBe(NODE_MESSAGES.stillOnline(selfId));

    const recent = await call('DELETE', topology(GRANARY_SERVICE_ID, 'node-silent'), ADMIN);
    expect(recent.statusCode).toBe(409);
    expect(recent.json().errors[0].message).toMatch(
      /^Node node-silent was last seen at .+: only a node silent for at least a day can be removed$/,
    );

    expect((await call('DELETE', topology(GRANARY_SERVICE_ID, 'node-nobody'), ADMIN)).statusCode).toBe(404);
    expect((await call('DELETE', topology('jfxr', 'node-yesterday'), ADMIN)).statusCode).toBe(404);

    const removed = await call('DELETE', topology(GRANARY_SERVICE_ID, 'node-yesterday', V1), ADMIN);
    expect(removed.statusCode).toBe(204);
    const ids = (await call('GET', `${V1}/system/status/nodes`, ADMIN))
      .json()
      .nodes.map((n: { node_id: string }) => n.node_id);
    expect(ids).not.toContain('node-yesterday');
    expect(ids).toContain('node-silent');
  });

  it('issue 15 health: the public /api/system/health keeps its shape (states only); the detail is for administrators', async () => {
    const pub = await call('GET', '/api/system/health');
    expect(pub.statusCode).toBe(200);
    expect(Object.keys(pub.json()).sort()).toEqual(['checks', 'state']);
    expect(Object.keys(pub.json().checks).sort()).toEqual(['database', 'storage']);

    expect((await call('GET', '/api/v1/system/health/detail')).statusCode).toBe(401);
    expect((await call('GET', '/api/v1/system/health/detail', SAM)).statusCode).toBe(403);
  });

  it('issue 15 health detail: real probes — a database write rolled back, a blob written and deleted, backlogs, disk free', async () => {
    const blobsBefore: string[] = [];
    for await (const sha of t.app.granary.blobs.list()) blobsBefore.push(sha);

    const res = await call('GET', '/api/v1/system/health/detail', ADMIN);
    expect(res.statusCode).toBe(200);
    const detail = res.json();
    expect(detail).toMatchObject({ state: 'HEALTHY', node_id: selfId });
    expect(detail.checks.database_write).toMatchObject({ state: 'HEALTHY', latency_ms: expect.any(Number) });
    expect(detail.checks.blobstore_write).toMatchObject({ state: 'HEALTHY', detail: { kind: 'filesystem' } });
    expect(detail.checks.event_backlog).toMatchObject({
      state: 'HEALTHY',
      detail: { event_lag: expect.any(Number) },
    });
    expect(detail.checks.job_lag).toMatchObject({
      state: 'HEALTHY',
      detail: { oldest_due_ms: expect.any(Number) },
    });
    expect(detail.checks.disk.state).toBe('HEALTHY');
    expect(detail.checks.disk.detail.free_bytes).toBeGreaterThan(0);
    expect(detail.checks.disk.detail.total_bytes).toBeGreaterThanOrEqual(
      detail.checks.disk.detail.free_bytes,
    );

    // The probes leave nothing behind: no probe row, no probe blob.
    expect(await readSystemSetting(t.app.granary.database.db, `health-probe:${selfId}`)).toBeUndefined();
    const blobsAfter: string[] = [];
    for await (const sha of t.app.granary.blobs.list()) blobsAfter.push(sha);
    expect(blobsAfter.sort()).toEqual(blobsBefore.sort());
  });

  it('issue 15 health detail: a due job waiting over 5 minutes is job lag → 503 UNHEALTHY naming its queue', async () => {
    await enqueueJob(
      t.app.granary.database.db,
      'test.no-worker',
      {},
      { runAt: new Date(Date.now() - 10 * 60_000) },
    );
    const res = await call('GET', '/api/v1/system/health/detail', ADMIN);
    expect(res.statusCode).toBe(503);
    expect(res.json().state).toBe('UNHEALTHY');
    expect(res.json().checks.job_lag.state).toBe('UNHEALTHY');
    expect(res.json().checks.job_lag.message).toMatch(
      /^The oldest due job \(queue test\.no-worker\) has waited \d+ s$/,
    );
    expect(res.json().checks.database_write.state).toBe('HEALTHY');
  });

  it('issue 15: a regular user gets 403 on every status and node route', async () => {
    for (const [method, url] of [
      ['GET', `${V1}/system/status/nodes`],
      ['GET', `${V1}/system/status/ha`],
      ['GET', `${V1}/system/status/services`],
      ['GET', '/api/v1/system/health/detail'],
      ['DELETE', `/access/api/v1/topology/${GRANARY_SERVICE_ID}/node-silent`],
      ['DELETE', `${V1}/access/api/v1/topology/${GRANARY_SERVICE_ID}/node-silent`],
    ] as const)
      expect((await call(method, url, SAM)).statusCode, `${method} ${url}`).toBe(403);
  });
});
