import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  basicAuth,
  createTestApp,
  TEST_ADMIN_PASSWORD,
  type TestApp,
  testEngine,
} from '../../testing/index.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
const READER = basicAuth('vreader', 'Vreader-pa55word!');

/** An upstream with ETags and conditional GETs; it can be made to fail. */
function startUpstream() {
  const state = {
    version: 1,
    failing: false,
    requests: [] as { path: string; ifNoneMatch?: string; ifModifiedSince?: string }[],
  };
  const server = http.createServer((req, res) => {
    const path = req.url ?? '';
    state.requests.push({
      path,
      ifNoneMatch: req.headers['if-none-match'],
      ifModifiedSince: req.headers['if-modified-since'],
    });
    if (state.failing) {
      res.writeHead(503).end('down');
      return;
    }
    if (path === '/up/fresh.txt') {
      const etag = `"v${state.version}"`;
      if (req.headers['if-none-match'] === etag) {
        res.writeHead(304, { etag }).end();
        return;
      }
      res.writeHead(200, { etag, 'content-type': 'text/plain' }).end(`version ${state.version}`);
      return;
    }
    if (path.startsWith('/up/')) {
      res.writeHead(200, { 'content-type': 'text/plain' }).end(`upstream ${path.slice(4)}`);
      return;
    }
    res.writeHead(404).end();
  });
  const hits = (p: string) => state.requests.filter((r) => r.path === p).length;
  return { server, state, hits };
}

describe(`virtual resolution and remote freshness (${testEngine})`, () => {
  let t: TestApp;
  let upstream: ReturnType<typeof startUpstream>;
  let base: string;
  const put = (key: string, payload: object) =>
    t.app.inject({
      method: 'PUT',
      url: `/api/repositories/${key}`,
      headers: { authorization: ADMIN },
      payload,
    });
  const update = (key: string, payload: object) =>
    t.app.inject({
      method: 'POST',
      url: `/api/repositories/${key}`,
      headers: { authorization: ADMIN },
      payload,
    });
  const get = (url: string, authorization = ADMIN) => t.app.inject({ url, headers: { authorization } });
  const deploy = (url: string, body: string) =>
    t.app.inject({ method: 'PUT', url, headers: { authorization: ADMIN }, payload: body });

  beforeAll(async () => {
    upstream = startUpstream();
    await new Promise<void>((r) => upstream.server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(upstream.server.address() as AddressInfo).port}/up`;
    t = await createTestApp({ outboundAllowlist: '127.0.0.1' });
    for (const [key, body] of [
      ['conf-local', { rclass: 'local' }],
      ['conf-remote', { rclass: 'remote', url: base, excludesPattern: 'blocked/**' }],
      // The remote member first: without protection it would answer for every path.
      ['conf-virtual', { rclass: 'virtual', repositories: ['conf-remote', 'conf-local'] }],
      [
        'conf-open',
        { rclass: 'virtual', repositories: ['conf-remote', 'conf-local'], allowRemoteOverride: true },
      ],
      ['conf-outer', { rclass: 'virtual', repositories: ['conf-remote', 'conf-virtual'] }],
      ['fresh-remote', { rclass: 'remote', url: base, retrievalCachePeriodSecs: 3600 }],
      ['thru-remote', { rclass: 'remote', url: base, storeArtifactsLocally: false }],
    ] as const)
      expect((await put(key, body)).statusCode, key).toBe(201);
    await t.app.inject({
      method: 'PUT',
      url: '/api/security/users/vreader',
      headers: { authorization: ADMIN },
      payload: { password: 'Vreader-pa55word!' },
    });
    // The reader may read the virtual and remote repositories, not the local one.
    await t.app.inject({
      method: 'PUT',
      url: '/api/security/permissions/vread',
      headers: { authorization: ADMIN },
      payload: {
        repo: {
          repositories: ['conf-virtual', 'conf-remote'],
          include_patterns: ['**'],
          exclude_patterns: [],
          actions: { users: { vreader: ['read'] } },
        },
      },
    });
    expect((await deploy('/repository/conf-local/com/acme/lib.txt', 'internal lib')).statusCode).toBe(201);
  });
  afterAll(async () => {
    await t?.close();
    await new Promise((r) => upstream?.server.close(r));
  });

  it('dependency confusion: a path a local member holds is never resolved from a remote member, even listed first', async () => {
    const res = await get('/repository/conf-virtual/com/acme/lib.txt');
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('internal lib');
    expect(upstream.hits('/up/com/acme/lib.txt')).toBe(0);
    // Through a nested virtual repository too.
    expect((await get('/repository/conf-outer/com/acme/lib.txt')).body).toBe('internal lib');
    expect(upstream.hits('/up/com/acme/lib.txt')).toBe(0);
    // A caller who may not read the local member gets nothing rather than the upstream's file.
    expect((await get('/repository/conf-virtual/com/acme/lib.txt', READER)).statusCode).toBe(404);
    expect(upstream.hits('/up/com/acme/lib.txt')).toBe(0);
    // Paths no local member holds still come from the remote member.
    expect((await get('/repository/conf-virtual/com/other/x.txt')).body).toBe('upstream com/other/x.txt');
  });

  it('dependency confusion: allowRemoteOverride (off by default, shown in the configuration) lets the remote member answer', async () => {
    expect((await get('/api/repositories/conf-virtual')).json().allowRemoteOverride).toBe(false);
    expect((await get('/api/repositories/conf-open')).json().allowRemoteOverride).toBe(true);
    expect((await get('/repository/conf-open/com/acme/lib.txt')).body).toBe('upstream com/acme/lib.txt');
    const refused = await put('plain-local', { rclass: 'local', allowRemoteOverride: true });
    expect(refused.statusCode).toBe(400);
  });

  it('virtual resolution applies each member’s include/exclude patterns', async () => {
    expect((await get('/repository/conf-virtual/blocked/a.txt')).statusCode).toBe(404);
    expect(upstream.hits('/up/blocked/a.txt')).toBe(0);
    expect((await deploy('/repository/conf-local/old/x.txt', 'old')).statusCode).toBe(201);
    expect((await get('/repository/conf-virtual/old/x.txt')).body).toBe('old');
    expect((await update('conf-local', { includesPattern: 'com/**' })).statusCode).toBe(200);
    // The local member no longer admits the path: it is not served from it (nor, it being held locally, from upstream).
    expect((await get('/repository/conf-virtual/old/x.txt')).statusCode).toBe(404);
    expect((await update('conf-local', { includesPattern: '**/*' })).statusCode).toBe(200);
  });

  it('retrievalCachePeriodSecs: a fresh cached file is served without asking the upstream; zap makes the next read revalidate (304 keeps it)', async () => {
    expect((await get('/repository/fresh-remote/fresh.txt')).body).toBe('version 1');
    const cached = await get('/repository/fresh-remote/fresh.txt');
    expect(cached.body).toBe('version 1');
    expect(upstream.hits('/up/fresh.txt')).toBe(1);
    const zap = await t.app.inject({
      method: 'POST',
      url: '/api/repositories/fresh-remote/zap',
      headers: { authorization: ADMIN },
    });
    expect(zap.json().expired).toBe(1);
    expect((await get('/repository/fresh-remote/fresh.txt')).body).toBe('version 1');
    const revalidation = upstream.state.requests.filter((r) => r.path === '/up/fresh.txt').at(-1)!;
    expect(revalidation.ifNoneMatch).toBe('"v1"');
    // the upstream sent no Last-Modified: the cached copy's own date, as Granary serves it
    expect(revalidation.ifModifiedSince).toBe(cached.headers['last-modified']);
    // 304: fresh again, so the next read does not ask.
    expect((await get('/repository/fresh-remote/fresh.txt')).body).toBe('version 1');
    expect(upstream.hits('/up/fresh.txt')).toBe(2);
  });

  it('retrievalCachePeriodSecs: a cached file older than the period is revalidated and replaced when the upstream changed; a failing upstream leaves the cached copy served', async () => {
    expect((await update('fresh-remote', { retrievalCachePeriodSecs: 0 })).statusCode).toBe(200);
    upstream.state.version = 2;
    const changed = await get('/repository/fresh-remote/fresh.txt');
    expect(changed.body).toBe('version 2');
    expect((await get('/api/storage/fresh-remote-cache/fresh.txt')).json().size).toBe('9');
    upstream.state.failing = true;
    try {
      const before = upstream.hits('/up/fresh.txt');
      const served = await get('/repository/fresh-remote/fresh.txt');
      expect(served.statusCode).toBe(200);
      expect(served.body).toBe('version 2');
      expect(upstream.hits('/up/fresh.txt')).toBe(before + 1);
    } finally {
      upstream.state.failing = false;
    }
  });

  it('storeArtifactsLocally=false streams the upstream’s answer through and caches nothing', async () => {
    expect((await get('/api/repositories/thru-remote')).json().storeArtifactsLocally).toBe(false);
    const first = await get('/repository/thru-remote/pass/a.txt');
    expect(first.statusCode).toBe(200);
    expect(first.body).toBe('upstream pass/a.txt');
    expect((await get('/repository/thru-remote/pass/a.txt')).body).toBe('upstream pass/a.txt');
    expect(upstream.hits('/up/pass/a.txt')).toBe(2);
    expect((await get('/api/storage/thru-remote-cache/pass/a.txt')).statusCode).toBe(404);
  });
});
