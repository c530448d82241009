import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  GRANARY_SERVICE,
  type HaStatus,
  NODE_OFFLINE_AFTER_MS,
  type ServiceStatus,
} from '@granary/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicAuth } from '../../testing/index.ts';
import {
  freePort,
  type ServerProcess,
  startServerProcess,
  waitForPing,
} from '../../testing/server-process.ts';

/**
 * Issue 15 acceptance: two real server processes (`main.ts`) on one real PostgreSQL server (started for
 * this test by scripts/postgres.sh, as CI does) see each other Online; one is killed with SIGKILL (no
 * goodbye) and the other shows it Offline within 15 s, through the API the console reads.
 */

const SCRIPT = path.resolve(import.meta.dirname, '../../../../../scripts/postgres.sh');
const PASSWORD = 'Cluster-admin-Pa55!';
const ADMIN = basicAuth('admin', PASSWORD);

interface Node {
  home: string;
  port: number;
  url: string;
  proc: ServerProcess;
  id?: string;
}

describe('issue 15: two nodes on one PostgreSQL see each other; a killed node is Offline within 15 s', () => {
  let pgDir: string;
  let databaseUrl: string;
  const nodes: Node[] = [];
  const masterKey = randomBytes(32).toString('base64');

  const get = async <T>(node: Node, url: string): Promise<T> => {
    const res = await fetch(`${node.url}${url}`, {
      headers: { authorization: ADMIN },
      signal: AbortSignal.timeout(10_000),
    });
    if (res.status !== 200) throw new Error(`${url}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
  const ha = async (node: Node) =>
    new Map(
      ((await get<HaStatus>(node, '/ui/api/v1/system/status/ha'))[GRANARY_SERVICE] ?? []).map((n) => [
        n.node_id,
        n.status,
      ]),
    );

  const start = async (): Promise<Node> => {
    const home = await mkdtemp(path.join(os.tmpdir(), 'granary-cluster-node-'));
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const proc = startServerProcess(home, port, {
      GRANARY_DATABASE_URL: databaseUrl,
      GRANARY_ADMIN_PASSWORD: PASSWORD,
      GRANARY_MASTER_KEY: masterKey,
      GRANARY_NODE_URL: url,
      GRANARY_LOG_LEVEL: 'warn',
    });
    const node = { home, port, url, proc };
    nodes.push(node);
    await waitForPing(port, proc, 180_000);
    return node;
  };

  beforeAll(async () => {
    pgDir = await mkdtemp(path.join(os.tmpdir(), 'granary-cluster-pg-'));
    databaseUrl = execFileSync('bash', [SCRIPT, 'start', pgDir], { encoding: 'utf8' }).trim();
    // One after the other, as an operator adds a node (both would also start together: migrations lock).
    await start();
    await start();
  }, 400_000);

  afterAll(async () => {
    for (const node of nodes) {
      if (node.proc.child.exitCode === null && node.proc.child.signalCode === null) {
        node.proc.child.kill('SIGTERM');
        await node.proc.exited;
      }
      await rm(node.home, { recursive: true, force: true });
    }
    if (pgDir) execFileSync('bash', [SCRIPT, 'stop', pgDir]);
  }, 120_000);

  it('each node sees the other Online, with its internal URL and its own services', async () => {
    const [a, b] = nodes as [Node, Node];
    for (const node of [a, b]) {
      const self = (
        await get<{ nodes: { node_id: string; current: boolean }[] }>(node, '/ui/api/v1/system/status/nodes')
      ).nodes.find((n) => n.current);
      node.id = self?.node_id;
      expect(node.id).toMatch(/^node-/);
    }
    expect(a.id).not.toBe(b.id);
    for (const [viewer, other] of [
      [a, b],
      [b, a],
    ] as const) {
      const status = await ha(viewer);
      expect(status.get(viewer.id!)).toBe('Online');
      expect(status.get(other.id!)).toBe('Online');
      const services = await get<ServiceStatus>(viewer, '/ui/api/v1/system/status/services');
      const seen = services.services[GRANARY_SERVICE]!.nodes.find((n) => n.node_id === other.id)!;
      expect(seen).toMatchObject({ status: 'Online', state: 'HEALTHY', url: other.url, current: false });
      // The other node's parts, as it wrote them with its heartbeat.
      expect(seen.micro_services.database?.state).toBe('HEALTHY');
      expect(seen.micro_services.http?.message).toBe(`Listening at ${other.url}`);
    }
  });

  it('SIGKILL one node: the other shows it Offline within 15 s (API: HA status and service status)', async () => {
    const [a, b] = nodes as [Node, Node];
    b.proc.child.kill('SIGKILL');
    const killedAt = Date.now();
    await b.proc.exited;
    let offlineAfter = -1;
    while (Date.now() - killedAt < NODE_OFFLINE_AFTER_MS + 10_000) {
      if ((await ha(a)).get(b.id!) === 'Offline') {
        offlineAfter = Date.now() - killedAt;
        break;
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(offlineAfter, 'the killed node never turned Offline').toBeGreaterThan(0);
    // The last heartbeat was at most one interval before the kill; a poll adds at most 250 ms and its answer a little more.
    expect(offlineAfter).toBeLessThanOrEqual(NODE_OFFLINE_AFTER_MS + 1_000);
    // Not early either: the killed node was still counted Online for most of its 15 s.
    expect(offlineAfter).toBeGreaterThan(NODE_OFFLINE_AFTER_MS - 8_000);

    const services = await get<ServiceStatus>(a, '/ui/api/v1/system/status/services');
    const service = services.services[GRANARY_SERVICE]!;
    expect(service.nodes.find((n) => n.node_id === b.id)).toMatchObject({
      status: 'Offline',
      state: 'UNHEALTHY',
    });
    expect(service.nodes.find((n) => n.node_id === a.id)).toMatchObject({
      status: 'Online',
      state: 'HEALTHY',
    });
    expect(service.state).toBe('HEALTHY');
  }, 60_000);
});
