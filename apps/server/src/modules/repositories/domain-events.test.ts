import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listEvents, type StoredEvent } from '../../platform/events/index.ts';
import {
  basicAuth,
  createTestApp,
  TEST_ADMIN_PASSWORD,
  type TestApp,
  testEngine,
} from '../../testing/index.ts';
import { formatEvents } from './artifact-events.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

/** The facts every artifact event's `data` carries (issue 14 §Events). */
const artifact = (repoKey: string, path: string, bytes: string) => ({
  repo_key: repoKey,
  path,
  name: path.slice(path.lastIndexOf('/') + 1),
  sha256: sha256(bytes),
  size: Buffer.byteLength(bytes),
});

describe(`issue 14 §Events: what a change in a repository publishes to the outbox (${testEngine})`, () => {
  let t: TestApp;
  let upstream: http.Server;
  beforeAll(async () => {
    upstream = http.createServer((req, res) => {
      if (req.url?.startsWith('/files/pub/')) {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end(`upstream ${req.url.slice('/files/pub/'.length)}`);
        return;
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    t = await createTestApp({ outboundAllowlist: '127.0.0.1' });
    const repos: [string, object][] = [
      ['ev-local', { rclass: 'local' }],
      ['ev-other', { rclass: 'local' }],
      ['ev-remote', { rclass: 'remote', url: `${base}/files` }],
      [
        'ev-virtual',
        { rclass: 'virtual', repositories: ['ev-local', 'ev-remote'], defaultDeploymentRepo: 'ev-local' },
      ],
    ];
    for (const [key, payload] of repos) {
      const res = await call('PUT', `/api/repositories/${key}`, JSON.stringify(payload), {
        'content-type': 'application/json',
      });
      expect(res.statusCode, res.body).toBe(201);
    }
  });
  afterAll(async () => {
    await t?.close();
    await new Promise((r) => upstream?.close(r));
  });

  function call(method: string, url: string, payload?: string, headers: Record<string, string> = {}) {
    return t.app.inject({
      method: method as 'GET',
      url,
      headers: { authorization: ADMIN, ...headers },
      ...(payload !== undefined ? { payload } : {}),
    });
  }
  const deploy = async (repoKey: string, path: string, body: string) => {
    const res = await call('PUT', `/repository/${repoKey}/${path}`, body, {
      'content-type': 'application/octet-stream',
    });
    expect(res.statusCode, res.body).toBe(201);
  };
  /** The events `action` adds to the outbox, oldest first (repository configuration changes left out). */
  async function eventsOf(action: () => Promise<unknown>): Promise<StoredEvent[]> {
    const before = Math.max(0, ...(await listEvents(t.app.granary.database.db)).map((e) => e.id));
    await action();
    return (await listEvents(t.app.granary.database.db)).filter(
      (e) => e.id > before && !e.type.startsWith('repository.'),
    );
  }
  const shape = (events: StoredEvent[]) => events.map((e) => ({ type: e.type, data: e.payload }));

  it('issue 14 §Events: a file deployed is one artifact.deployed naming repository, path, file name, sha256 and size; the same bytes again publish nothing', async () => {
    const events = await eventsOf(() => deploy('ev-local', 'app/1.0/app.bin', 'app one'));
    expect(shape(events)).toEqual([
      {
        type: 'artifact.deployed',
        data: { ...artifact('ev-local', 'app/1.0/app.bin', 'app one'), by: 'admin' },
      },
    ]);
    expect(await eventsOf(() => deploy('ev-local', 'app/1.0/app.bin', 'app one'))).toEqual([]);
  });

  it('issue 14 §Events: a deploy to a virtual repository lands in its default deployment repository, and its event names both', async () => {
    const events = await eventsOf(() => deploy('ev-virtual', 'via/thing.txt', 'through the virtual'));
    expect(shape(events)).toEqual([
      {
        type: 'artifact.deployed',
        data: {
          ...artifact('ev-local', 'via/thing.txt', 'through the virtual'),
          virtual_repo_key: 'ev-virtual',
          by: 'admin',
        },
      },
    ]);
  });

  it('issue 14 §Events: deleting a folder is one artifact.deleted per file it held', async () => {
    await deploy('ev-local', 'gone/a.txt', 'aaa');
    await deploy('ev-local', 'gone/sub/b.txt', 'bbbb');
    const events = await eventsOf(async () =>
      expect((await call('DELETE', '/repository/ev-local/gone')).statusCode).toBe(204),
    );
    expect(shape(events).sort((x, y) => String(x.data.path).localeCompare(String(y.data.path)))).toEqual([
      { type: 'artifact.deleted', data: { ...artifact('ev-local', 'gone/a.txt', 'aaa'), by: 'admin' } },
      { type: 'artifact.deleted', data: { ...artifact('ev-local', 'gone/sub/b.txt', 'bbbb'), by: 'admin' } },
    ]);
  });

  it('issue 14 §Events: copy and move are one event per file, repo_key/path the target, the source and target named', async () => {
    await deploy('ev-local', 'tree/x.txt', 'xx');
    await deploy('ev-local', 'tree/y.txt', 'yyy');
    const copied = await eventsOf(async () =>
      expect((await call('POST', '/api/copy/ev-local/tree?to=/ev-other/copied')).statusCode).toBe(200),
    );
    expect(shape(copied).sort((x, y) => String(x.data.path).localeCompare(String(y.data.path)))).toEqual(
      ['x.txt', 'y.txt'].map((file, i) => ({
        type: 'artifact.copied',
        data: {
          ...artifact('ev-other', `copied/${file}`, ['xx', 'yyy'][i]!),
          source_repo_key: 'ev-local',
          source_path: `tree/${file}`,
          target_repo_key: 'ev-other',
          target_path: `copied/${file}`,
          by: 'admin',
        },
      })),
    );
    const moved = await eventsOf(async () =>
      expect((await call('POST', '/api/move/ev-local/tree/x.txt?to=/ev-local/moved/x2.txt')).statusCode).toBe(
        200,
      ),
    );
    expect(shape(moved)).toEqual([
      {
        type: 'artifact.moved',
        data: {
          ...artifact('ev-local', 'moved/x2.txt', 'xx'),
          source_repo_key: 'ev-local',
          source_path: 'tree/x.txt',
          target_repo_key: 'ev-local',
          target_path: 'moved/x2.txt',
          by: 'admin',
        },
      },
    ]);
  });

  it('issue 14 §Events: one artifact_property.added per key set to a new value and one artifact_property.deleted per key removed, on each file', async () => {
    await deploy('ev-local', 'props/one.txt', '1');
    await deploy('ev-local', 'props/two.txt', '2');
    const prop = (type: string, path: string, key: string, values: string[]) => ({
      type: `artifact_property.${type}`,
      data: {
        repo_key: 'ev-local',
        path,
        name: path.slice(path.lastIndexOf('/') + 1),
        property_key: key,
        property_values: values,
        by: 'admin',
      },
    });
    const set = await eventsOf(async () =>
      expect(
        (await call('PUT', '/api/storage/ev-local/props/one.txt?properties=qa=passed;build=42,43'))
          .statusCode,
      ).toBe(204),
    );
    expect(shape(set)).toEqual([
      prop('added', 'props/one.txt', 'qa', ['passed']),
      prop('added', 'props/one.txt', 'build', ['42', '43']),
    ]);
    // The value a key already has changes nothing; another value is added again.
    const changed = await eventsOf(async () =>
      expect(
        (await call('PUT', '/api/storage/ev-local/props/one.txt?properties=qa=passed;build=44')).statusCode,
      ).toBe(204),
    );
    expect(shape(changed)).toEqual([prop('added', 'props/one.txt', 'build', ['44'])]);
    const removed = await eventsOf(async () =>
      expect(
        (await call('DELETE', '/api/storage/ev-local/props/one.txt?properties=qa,absent')).statusCode,
      ).toBe(204),
    );
    expect(shape(removed)).toEqual([prop('deleted', 'props/one.txt', 'qa', ['passed'])]);
    // A folder's properties are each file's.
    const folder = await eventsOf(async () =>
      expect((await call('PUT', '/api/storage/ev-local/props?properties=team=core')).statusCode).toBe(204),
    );
    expect(shape(folder).sort((x, y) => String(x.data.path).localeCompare(String(y.data.path)))).toEqual([
      prop('added', 'props/one.txt', 'team', ['core']),
      prop('added', 'props/two.txt', 'team', ['core']),
    ]);
  });

  it('issue 14 §Events: a remote caching an upstream file is one artifact.cached (repo_key the remote); through a virtual repository it names the virtual too', async () => {
    const direct = await eventsOf(async () =>
      expect((await call('GET', '/repository/ev-remote/pub/a.txt')).body).toBe('upstream a.txt'),
    );
    expect(shape(direct)).toEqual([
      { type: 'artifact.cached', data: artifact('ev-remote', 'pub/a.txt', 'upstream a.txt') },
    ]);
    // Served from the cache: nothing happened.
    expect(await eventsOf(() => call('GET', '/repository/ev-remote/pub/a.txt'))).toEqual([]);
    const through = await eventsOf(async () =>
      expect((await call('GET', '/repository/ev-virtual/pub/b.txt')).body).toBe('upstream b.txt'),
    );
    expect(shape(through)).toEqual([
      {
        type: 'artifact.cached',
        data: { ...artifact('ev-remote', 'pub/b.txt', 'upstream b.txt'), virtual_repo_key: 'ev-virtual' },
      },
    ]);
  });
});

describe('issue 14 §Events: the events a format publishes through its repository handle', () => {
  it("issue 14 §Events: the core names the repository, the virtual one and the user; a format cannot publish the core's own events or types outside the catalogue", () => {
    const [event] = formatEvents(
      [{ type: 'docker.pushed', data: { image_name: 'app', tag: '1', repo_key: 'forged', by: 'forged' } }],
      'dk-local',
      { by: 'admin', via: 'dk' },
    );
    expect(event).toEqual({
      type: 'docker.pushed',
      payload: { image_name: 'app', tag: '1', repo_key: 'dk-local', virtual_repo_key: 'dk', by: 'admin' },
    });
    for (const type of [
      'artifact.deployed',
      'artifact_property.added',
      'user.created',
      'docker.exploded',
      'x',
    ])
      expect(() => formatEvents([{ type, data: {} }], 'dk-local', {}), type).toThrow(/cannot publish/);
  });
});
