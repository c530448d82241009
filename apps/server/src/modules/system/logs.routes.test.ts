import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { LOG_DEFAULT_REFRESH_MS, type LogData } from '@granary/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  basicAuth,
  createTestApp,
  createTestDatabasePair,
  TEST_ADMIN_PASSWORD,
  type TestApp,
  testEngine,
} from '../../testing/index.ts';
import { freePort } from '../../testing/server-process.ts';
import { upsertNode } from './system.queries.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
const PW = 'Sam-pa55word!';
const SAM = basicAuth('sam', PW);
const V1 = '/ui/api/v1';

async function createUser(t: TestApp): Promise<void> {
  const res = await t.app.inject({
    method: 'PUT',
    url: '/api/security/users/sam',
    headers: { authorization: ADMIN },
    payload: { password: PW },
  });
  expect(res.statusCode).toBeLessThan(300);
}

/** A request whose request.log line carries `marker`. */
async function mark(t: TestApp, marker: string): Promise<void> {
  const res = await t.app.inject({ method: 'GET', url: `/api/system/ping?marker=${marker}` });
  expect(res.statusCode).toBe(200);
}

describe(`issue 15 / spec 001 §7 live log viewer: log config and data (${testEngine})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    await createUser(t);
  });
  afterAll(async () => {
    await t?.close();
  });
  const get = (url: string, auth: string = ADMIN, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url, headers: { ...(auth ? { authorization: auth } : {}), ...headers } });
  const data = async (id: string, fileSize: number, fileId?: string): Promise<LogData> => {
    const q = new URLSearchParams({
      id,
      file_size: String(fileSize),
      ...(fileId ? { file_id: fileId } : {}),
    });
    const res = await get(`${V1}/system/logs/data/granary?${q}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };

  it('spec 001 §3 log config: the server, request and security logs, current files first, refresh every 10000 ms', async () => {
    const res = await get(`${V1}/system/logs/config/granary`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.refresh_rate_millis).toBe(LOG_DEFAULT_REFRESH_MS);
    expect(body.logs.slice(0, 3)).toEqual(['server.log', 'request.log', 'security.log']);
  });

  it('issue 15: new request.log lines appear on the next data call from the previous file_size, and nothing before it', async () => {
    const first = await data('request.log', 0);
    const onDisk = await readFile(path.join(t.home, 'logs', 'request.log'));
    expect(first.file_size).toBeGreaterThan(0);
    expect(first.file_size).toBeLessThanOrEqual(onDisk.length);
    expect(first.last_update_modified).toBeGreaterThan(0);
    expect(Math.abs(first.last_update_label - Date.now())).toBeLessThan(60_000);
    const marker = randomUUID();
    await mark(t, marker);
    expect(first.log_content).not.toContain(marker);
    const next = await data('request.log', first.file_size, first.file_id);
    expect(next.log_content).toContain(marker);
    // From the offset on: the lines of the first answer are not repeated.
    expect(next.log_content.startsWith(first.log_content)).toBe(false);
    expect(next.file_size).toBeGreaterThan(first.file_size);
    const full = (await readFile(path.join(t.home, 'logs', 'request.log'))).toString('utf8');
    expect(full.slice(first.log_content.length, first.log_content.length + next.log_content.length)).toBe(
      next.log_content,
    );
  });

  it('issue 15: a file now smaller than the asked offset restarts from 0', async () => {
    const res = await data('security.log', 10 ** 9);
    const full = (await readFile(path.join(t.home, 'logs', 'security.log'))).toString('utf8');
    expect(res.log_content).toBe(full);
    expect(res.file_size).toBe(Buffer.byteLength(full));
  });

  it('issue 15: only listed files are readable — ../../etc/passwd and an unlisted name are refused with a clear message', async () => {
    for (const id of ['../../etc/passwd', '/etc/passwd', 'logs/../server.log', '..\\server.log']) {
      const res = await get(`${V1}/system/logs/data/granary?id=${encodeURIComponent(id)}&file_size=0`);
      expect(res.statusCode, id).toBe(400);
      expect(res.body).toContain('is not a log file name');
      expect(res.body).not.toContain('root:');
    }
    const unlisted = await get(`${V1}/system/logs/data/granary?id=passwd&file_size=0`);
    expect(unlisted.statusCode).toBe(404);
    expect(unlisted.json().errors[0].message).toBe("No log file 'passwd' on this node");
    const rest = await get('/api/system/logs/data?id=..%2F..%2Fetc%2Fpasswd&file_size=0');
    expect(rest.statusCode).toBe(400);
  });

  it('issue 15: a logType other than a service with logs answers 404', async () => {
    const res = await get(`${V1}/system/logs/config/xray`);
    expect(res.statusCode).toBe(404);
    expect(res.json().errors[0].message).toContain("No service 'xray'");
  });

  it('issue 15: the log calls are for admins — a user gets 403, an anonymous caller 401', async () => {
    for (const url of [
      `${V1}/system/logs/config/granary`,
      `${V1}/system/logs/data/granary?id=server.log&file_size=0`,
      '/api/system/logs/config',
      '/api/system/logs/data?id=server.log&file_size=0',
    ]) {
      expect((await get(url, SAM)).statusCode, url).toBe(403);
      expect((await get(url, '')).statusCode, url).toBe(401);
    }
  });

  it("issue 15 REST twins: GET /api/system/logs/config and /api/system/logs/data?id=&file_size= answer Artifactory's shapes", async () => {
    const config = await get('/api/system/logs/config');
    expect(config.statusCode).toBe(200);
    expect(config.json().logs).toContain('server.log');
    const first = await get('/api/system/logs/data?id=request.log&file_size=0');
    expect(first.statusCode).toBe(200);
    const marker = randomUUID();
    await mark(t, marker);
    const next = await get(`/api/system/logs/data?id=request.log&file_size=${first.json().file_size}`);
    expect(next.json().log_content).toContain(marker);
    expect(Object.keys(next.json()).sort()).toEqual(
      ['file_id', 'file_size', 'last_update_label', 'last_update_modified', 'log_content'].sort(),
    );
  });
});

describe(`issue 15 live log viewer: reading goes on across rotation (${testEngine})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ logMaxBytes: 1024, logMaxFiles: 10 });
  });
  afterAll(async () => {
    await t?.close();
  });
  const data = async (id: string, fileSize: number, fileId?: string): Promise<LogData> => {
    const q = new URLSearchParams({
      id,
      file_size: String(fileSize),
      ...(fileId ? { file_id: fileId } : {}),
    });
    const res = await t.app.inject({
      method: 'GET',
      url: `${V1}/system/logs/data/granary?${q}`,
      headers: { authorization: ADMIN },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };

  it('issue 15: after request.log rotates (GRANARY_LOG_MAX_BYTES), the next reads give every new line once, in order, then continue in the new file', async () => {
    let view = await data('request.log', 0);
    const markers = Array.from({ length: 12 }, (_, i) => `rot-${i}-${randomUUID()}`);
    for (const m of markers) await mark(t, m);
    const config = await t.app.inject({
      method: 'GET',
      url: `${V1}/system/logs/config/granary`,
      headers: { authorization: ADMIN },
    });
    // The requests rotated the file more than once.
    expect(config.json().logs).toEqual(expect.arrayContaining(['request.1.log', 'request.2.log']));
    let seen = '';
    for (let i = 0; i < 5; i++) {
      view = await data('request.log', view.file_size, view.file_id);
      seen += view.log_content;
    }
    const positions = markers.map((m) => seen.indexOf(m));
    for (const [i, m] of markers.entries()) {
      expect(positions[i], m).toBeGreaterThanOrEqual(0);
      expect(seen.lastIndexOf(m)).toBe(positions[i]);
      if (i > 0) expect(positions[i]).toBeGreaterThan(positions[i - 1]!);
    }
    // And it goes on in the current file.
    const after = `after-${randomUUID()}`;
    await mark(t, after);
    let more = '';
    for (let i = 0; i < 3 && !more.includes(after); i++) {
      view = await data('request.log', view.file_size, view.file_id);
      more += view.log_content;
    }
    expect(more).toContain(after);
    for (const m of markers) expect(more).not.toContain(m);
  });
});

describe(`issue 15 live log viewer: two nodes on one database, each reads the other's logs (${testEngine})`, () => {
  let a: TestApp;
  let b: TestApp;
  let bUrl: string;
  beforeAll(async () => {
    const [dbA, dbB] = await createTestDatabasePair();
    a = await createTestApp({}, { database: dbA });
    const port = await freePort();
    bUrl = `http://127.0.0.1:${port}`;
    b = await createTestApp({ port, nodeUrl: bUrl, baseUrl: bUrl }, { database: dbB });
    await b.app.listen({ port, host: '127.0.0.1' });
    await createUser(a);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });
  const nodeIds = async () => {
    const res = await a.app.inject({
      method: 'GET',
      url: `${V1}/system/status/nodes`,
      headers: { authorization: ADMIN },
    });
    const nodes = res.json().nodes as { node_id: string; current: boolean }[];
    return { a: nodes.find((n) => n.current)!.node_id, b: nodes.find((n) => !n.current)!.node_id };
  };

  it("issue 15: node A asked for node B's request.log answers B's file, read by B (its lines, not A's)", async () => {
    const ids = await nodeIds();
    expect(ids.b).toBeTruthy();
    const onB = `on-b-${randomUUID()}`;
    const res0 = await fetch(`${bUrl}/api/system/ping?marker=${onB}`);
    expect(res0.status).toBe(200);
    const onA = `on-a-${randomUUID()}`;
    await mark(a, onA);
    const res = await a.app.inject({
      method: 'GET',
      url: `${V1}/system/logs/data/granary?nodeId=${ids.b}&id=request.log&file_size=0`,
      headers: { authorization: ADMIN },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().log_content).toContain(onB);
    expect(res.json().log_content).not.toContain(onA);
    // The REST twin chooses the node with the X-Granary-Node-Id header.
    const rest = await a.app.inject({
      method: 'GET',
      url: '/api/system/logs/data?id=request.log&file_size=0',
      headers: { authorization: ADMIN, 'x-granary-node-id': ids.b },
    });
    expect(rest.statusCode).toBe(200);
    expect(rest.json().log_content).toContain(onB);
    // B checks admin itself: a user's credentials, forwarded, are refused there too.
    const asUser = await a.app.inject({
      method: 'GET',
      url: `${V1}/system/logs/config/granary?nodeId=${ids.b}`,
      headers: { authorization: SAM },
    });
    expect(asUser.statusCode).toBe(403);
  });

  it('issue 15: a forwarded request is never forwarded again; an unknown node is 404', async () => {
    const ids = await nodeIds();
    const res = await fetch(`${bUrl}${V1}/system/logs/config/granary?nodeId=${ids.a}`, {
      headers: { authorization: ADMIN, 'x-granary-log-forwarded': '1' },
    });
    expect(res.status).toBe(502);
    expect(((await res.json()) as { errors: { message: string }[] }).errors[0]!.message).toContain(ids.a);
    const unknown = await a.app.inject({
      method: 'GET',
      url: `${V1}/system/logs/config/granary?nodeId=node-nope`,
      headers: { authorization: ADMIN },
    });
    expect(unknown.statusCode).toBe(404);
  });

  it('issue 15: a node that is Offline or unreachable answers 502 naming the node', async () => {
    const db = a.app.granary.database.db;
    const deadPort = await freePort();
    await upsertNode(db, {
      id: 'node-offline',
      url: `http://127.0.0.1:${deadPort}`,
      version: '0.0.1',
      revision: 'x',
      startedAt: new Date(Date.now() - 3_600_000),
      lastHeartbeatAt: new Date(Date.now() - 3_600_000),
    });
    await upsertNode(db, {
      id: 'node-unreachable',
      url: `http://127.0.0.1:${deadPort}`,
      version: '0.0.1',
      revision: 'x',
      startedAt: new Date(),
      lastHeartbeatAt: new Date(),
    });
    for (const [id, why] of [
      ['node-offline', 'Offline'],
      ['node-unreachable', 'could not be reached'],
    ] as const) {
      const res = await a.app.inject({
        method: 'GET',
        url: `${V1}/system/logs/config/granary?nodeId=${id}`,
        headers: { authorization: ADMIN },
      });
      expect(res.statusCode, res.body).toBe(502);
      const message = res.json().errors[0].message as string;
      expect(message).toContain(id);
      expect(message).toContain(why);
    }
  });
});
