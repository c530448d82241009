import { createHash, randomBytes } from 'node:crypto';
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
const BIG = randomBytes(2 * 1024 * 1024);

/** A plain upstream on loopback: counts requests, can answer slowly, truncate, or be down. */
function startUpstream() {
  const hits = new Map<string, number>();
  const auth: (string | undefined)[] = [];
  /** Answers a test sets for a path: [content type, body]. */
  const answers = new Map<string, [string, Buffer | string]>();
  const server = http.createServer((req, res) => {
    const path = req.url ?? '';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    auth.push(req.headers.authorization);
    const answer = answers.get(path);
    if (answer) {
      res.writeHead(200, { 'content-type': answer[0] });
      res.end(answer[1]);
      return;
    }
    if (path === '/files/big.bin') {
      res.writeHead(200, {
        'content-length': BIG.length,
        'x-checksum-sha1': createHash('sha1').update(BIG).digest('hex'),
      });
      // Slow enough that every concurrent miss arrives while the first is in flight.
      setTimeout(() => res.end(BIG), 300);
      return;
    }
    if (path === '/files/truncated.bin') {
      res.writeHead(200, { 'content-length': 1000 });
      res.write(Buffer.alloc(500, 1));
      setTimeout(() => res.socket?.destroy(), 50);
      return;
    }
    if (path === '/files/hello.txt') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('hello from upstream');
      return;
    }
    res.writeHead(404).end();
  });
  return { server, hits, auth, answers };
}

describe(`remote and virtual repositories (${testEngine})`, () => {
  let t: TestApp;
  let upstream: ReturnType<typeof startUpstream>;
  let base: string;
  beforeAll(async () => {
    upstream = startUpstream();
    await new Promise<void>((r) => upstream.server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(upstream.server.address() as AddressInfo).port}`;
    t = await createTestApp({ outboundAllowlist: '127.0.0.1', bodyLimitBytes: 1024 });
    const put = (key: string, payload: object) =>
      t.app.inject({
        method: 'PUT',
        url: `/api/repositories/${key}`,
        headers: { authorization: ADMIN },
        payload,
      });
    expect(
      (
        await put('up-remote', {
          rclass: 'remote',
          url: `${base}/files`,
          username: 'mirror',
          password: 'Upstream-pw1',
          missedRetrievalCachePeriodSecs: 60,
        })
      ).statusCode,
    ).toBe(201);
    expect((await put('local-two', { rclass: 'local', excludesPattern: 'private/**' })).statusCode).toBe(201);
    expect(
      (
        await put('all', {
          rclass: 'virtual',
          repositories: ['local-two', 'up-remote'],
          defaultDeploymentRepo: 'local-two',
        })
      ).statusCode,
    ).toBe(201);
    expect((await put('nodeploy', { rclass: 'virtual', repositories: ['local-two'] })).statusCode).toBe(201);
  });
  afterAll(async () => {
    await t?.close();
    await new Promise((r) => upstream?.server.close(r));
  });
  const get = (url: string) => t.app.inject({ url, headers: { authorization: ADMIN } });

  it('a deploy streams past the JSON body limit (the artifact route reads the body as a raw stream)', async () => {
    const body = randomBytes(64 * 1024);
    const res = await t.app.inject({
      method: 'PUT',
      url: '/repository/local-two/big/file.json',
      headers: { authorization: ADMIN, 'content-type': 'application/json' },
      payload: body,
    });
    expect(res.statusCode, res.body).toBe(201);
    expect((await get('/repository/local-two/big/file.json')).rawPayload.equals(body)).toBe(true);
  });

  it('50 concurrent misses for one path → one upstream request; every client gets the whole file; it is cached as {key}-cache', async () => {
    const answers = await Promise.all(Array.from({ length: 50 }, () => get('/repository/up-remote/big.bin')));
    for (const a of answers) {
      expect(a.statusCode).toBe(200);
      expect(a.rawPayload.equals(BIG)).toBe(true);
    }
    expect(upstream.hits.get('/files/big.bin')).toBe(1);
    // Upstream credentials went to the upstream.
    expect(upstream.auth[0]).toBe(basicAuth('mirror', 'Upstream-pw1'));
    const cached = await get('/api/storage/up-remote-cache/big.bin');
    expect(cached.statusCode).toBe(200);
    expect(cached.json().checksums.sha1).toBe(createHash('sha1').update(BIG).digest('hex'));
    expect((await get('/repository/up-remote-cache/big.bin')).rawPayload.equals(BIG)).toBe(true);
  });

  it('a truncated upstream answer is never cached', async () => {
    const res = await get('/repository/up-remote/truncated.bin').catch((e) => e);
    if (!(res instanceof Error)) expect(res.rawPayload.length).toBeLessThan(1000);
    expect((await get('/api/storage/up-remote-cache/truncated.bin')).statusCode).toBe(404);
  });

  it('a 404 upstream is remembered for the missed-retrieval period', async () => {
    expect((await get('/repository/up-remote/absent.txt')).statusCode).toBe(404);
    expect((await get('/repository/up-remote/absent.txt')).statusCode).toBe(404);
    expect(upstream.hits.get('/files/absent.txt')).toBe(1);
  });

  it('virtual: resolves through members in order, PUT lands in the default deployment repository, patterns apply', async () => {
    expect((await get('/repository/all/hello.txt')).body).toBe('hello from upstream');
    const put = await t.app.inject({
      method: 'PUT',
      url: '/repository/all/hello.txt',
      headers: { authorization: ADMIN },
      payload: 'local wins',
    });
    expect(put.statusCode, put.body).toBe(201);
    expect(put.json().repo).toBe('local-two');
    expect((await get('/repository/all/hello.txt')).body).toBe('local wins');
    const excluded = await t.app.inject({
      method: 'PUT',
      url: '/repository/all/private/x.txt',
      headers: { authorization: ADMIN },
      payload: 'x',
    });
    expect(excluded.statusCode).toBe(403);
    const none = await t.app.inject({
      method: 'PUT',
      url: '/repository/nodeploy/a.txt',
      headers: { authorization: ADMIN },
      payload: 'x',
    });
    expect(none.statusCode).toBe(400);
  });

  it('issue 12 §5: an HTML page where a jar is expected, or a .tgz that is not gzip, answers 502, is not cached, and the next request asks the upstream again', async () => {
    const zip = Buffer.concat([Buffer.from('PK\x03\x04'), randomBytes(600)]);
    upstream.answers.set('/files/lib/tool.jar', [
      'text/html; charset=utf-8',
      '<!doctype html><html><body>Log in</body></html>',
    ]);
    upstream.answers.set('/files/lib/tool.tgz', [
      'application/octet-stream',
      'just some text, not gzip at all',
    ]);
    const jar = await get('/repository/up-remote/lib/tool.jar');
    expect(jar.statusCode, jar.body).toBe(502);
    expect(jar.json().errors[0].message).toBe(
      "The upstream of 'up-remote' answered 'lib/tool.jar' with an HTML page where a zip archive was expected: not cached",
    );
    const tgz = await get('/repository/up-remote/lib/tool.tgz');
    expect(tgz.statusCode, tgz.body).toBe(502);
    expect(tgz.json().errors[0].message).toContain(
      'content that is not a gzip archive (application/octet-stream)',
    );
    expect((await get('/api/storage/up-remote-cache/lib')).statusCode).toBe(404);

    upstream.answers.set('/files/lib/tool.jar', ['application/java-archive', zip]);
    const fixed = await get('/repository/up-remote/lib/tool.jar');
    expect(fixed.statusCode).toBe(200);
    expect(fixed.rawPayload.equals(zip)).toBe(true);
    expect(upstream.hits.get('/files/lib/tool.jar')).toBe(2);
    expect((await get('/api/storage/up-remote-cache/lib/tool.jar')).statusCode).toBe(200);
  });

  it('issue 12 §6: a path parameter (;x=1) on a read is refused with 400 and never reaches the upstream; deploys keep them as properties', async () => {
    const before = upstream.hits.get('/files/hello.txt') ?? 0;
    for (const url of [
      '/repository/up-remote/hello.txt;x=1',
      '/repository/all/hello.txt;x=1',
      '/repository/up-remote/hello.txt%3Bx=1',
    ]) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(400);
      expect(res.json().errors[0].message).toBe(
        'Path parameters (;name=value) are only accepted when deploying',
      );
    }
    expect(upstream.hits.get('/files/hello.txt') ?? 0).toBe(before);
    const put = await t.app.inject({
      method: 'PUT',
      url: '/repository/local-two/props/a.txt;team=core',
      headers: { authorization: ADMIN },
      payload: 'a',
    });
    expect(put.statusCode, put.body).toBe(201);
    const props = await get('/api/storage/local-two/props/a.txt?properties');
    expect(props.json().properties).toEqual({ team: ['core'] });
  });

  it('cached files are served when the upstream is down; offline mode never asks the upstream', async () => {
    await new Promise((r) => upstream.server.close(r));
    upstream.server.closeAllConnections();
    expect((await get('/repository/up-remote/big.bin')).rawPayload.equals(BIG)).toBe(true);
    const down = await get('/repository/up-remote/never-fetched.txt');
    expect(down.statusCode).toBe(502);
    await t.app.inject({
      method: 'POST',
      url: '/api/repositories/up-remote',
      headers: { authorization: ADMIN },
      payload: { offline: true },
    });
    expect((await get('/repository/up-remote/other.txt')).statusCode).toBe(404);
  });
});
