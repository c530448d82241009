import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  basicAuth,
  createTestApp,
  createTestDatabasePair,
  TEST_ADMIN_PASSWORD,
  type TestApp,
  testEngine,
} from '../../testing/index.ts';
import { TTL_MS } from './response-cache.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
const PW = 'Cached-pa55word!';

const listen = async (t: TestApp) => {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
};

/** Every header of an answer but those that differ per answer anyway. */
const headersOf = (res: Response) =>
  Object.fromEntries([...res.headers].filter(([name]) => name !== 'x-request-id' && name !== 'date'));

describe(`issue 24 response cache: repeated repository reads answered before routing (${testEngine})`, () => {
  let t: TestApp;
  let base: string;
  /** The app's clock runs ahead by this much (the kept answers' lifetime). */
  let ahead = 0;
  let seq = 0;
  const hits = () => t.app.granary.responseCache.hits;
  const call = (method: string, url: string, headers: Record<string, string> = {}, body?: string) =>
    fetch(`${base}${url}`, { method, headers: { authorization: ADMIN, ...headers }, body });
  const deploy = async (url: string, body: string) => {
    const res = await call('PUT', url, {}, body);
    expect(res.status, await res.text()).toBe(201);
  };
  /**
   * Reads until an answer comes from the cache. The first read after a change is answered the whole
   * way and kept; background work (the deploy's own events, job schedules) may move the change count
   * meanwhile, which voids it, so a few reads may be needed.
   */
  const readUntilKept = async (method: string, url: string, headers: Record<string, string> = {}) => {
    const reads: Response[] = [];
    for (let i = 0; i < 40; i++) {
      const before = hits();
      const res = await call(method, url, { 'x-request-id': `read-${++seq}`, ...headers });
      reads.push(res);
      if (hits() === before + 1) return { kept: res, first: reads[0]!, reads };
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`${method} ${url} was never answered from the cache`);
  };

  beforeAll(async () => {
    t = await createTestApp({}, { now: () => Date.now() + ahead });
    base = await listen(t);
    for (const [url, payload] of [
      ['/api/repositories/files', { rclass: 'local', packageType: 'generic' }],
      ['/api/repositories/py', { rclass: 'local', packageType: 'pypi' }],
      ['/api/security/users/reader', { password: PW, email: 'reader@example.com' }],
      [
        '/api/security/permissions/readers',
        { repo: { repositories: ['files'], actions: { users: { reader: ['read'] } } } },
      ],
    ] as const) {
      const res = await call('PUT', url, { 'content-type': 'application/json' }, JSON.stringify(payload));
      expect(res.status, await res.text()).toBeLessThan(300);
    }
  });
  afterAll(async () => {
    await t?.close();
  });

  it('issue 24 response cache: a repeated GET is answered from memory with the same status, headers and bytes, its own request id, a request.log line and the download counted', async () => {
    await deploy('/repository/files/docs/a.txt', 'first bytes');
    const { kept, first, reads } = await readUntilKept('GET', '/repository/files/docs/a.txt');
    expect(kept.status).toBe(200);
    const body = await first.text();
    expect(body).toBe('first bytes');
    expect(await kept.text()).toBe(body);
    expect(headersOf(kept)).toEqual(headersOf(first));
    expect(headersOf(kept)).toMatchObject({ 'content-length': '11', etag: expect.any(String) });
    const keptId = kept.headers.get('x-request-id')!;
    expect(keptId).toBe(`read-${seq}`);

    // HEAD and a conditional GET are answers of their own, kept and given again as such.
    const heads = await readUntilKept('HEAD', '/repository/files/docs/a.txt');
    expect(heads.kept.status).toBe(200);
    expect(heads.kept.headers.get('content-length')).toBe('11');
    expect(headersOf(heads.kept)).toEqual(headersOf(heads.first));
    const etag = first.headers.get('etag')!;
    const conditional = await readUntilKept('GET', '/repository/files/docs/a.txt', { 'if-none-match': etag });
    expect(conditional.kept.status).toBe(304);
    expect(await conditional.kept.text()).toBe('');

    t.app.granary.logging.flush();
    const lines = readFileSync(path.join(t.app.granary.logging.dir, 'request.log'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.find((l) => l.reqId === keptId)).toMatchObject({
      method: 'GET',
      url: '/repository/files/docs/a.txt',
      status: 200,
      user: 'admin',
    });

    await t.app.granary.jobs.runNow('retention.download-stats');
    const stats = await call('GET', '/api/storage/files/docs/a.txt?stats');
    // Every GET of the whole file, answered from the cache or not (the 304s and HEADs send no bytes).
    expect(await stats.json()).toMatchObject({ downloadCount: reads.length, lastDownloadedBy: 'admin' });
  });

  it('issue 24 response cache: a change on this node is seen by the very next read — a file deployed again, a file deleted, a file added to a folder', async () => {
    await deploy('/repository/files/docs/b.txt', 'version one');
    expect(await (await readUntilKept('GET', '/repository/files/docs/b.txt')).kept.text()).toBe(
      'version one',
    );
    await deploy('/repository/files/docs/b.txt', 'version two, longer');
    const again = await call('GET', '/repository/files/docs/b.txt');
    expect(await again.text()).toBe('version two, longer');
    expect(again.headers.get('content-length')).toBe('19');
    await readUntilKept('GET', '/repository/files/docs/b.txt');
    expect((await call('DELETE', '/repository/files/docs/b.txt')).status).toBe(204);
    expect((await call('GET', '/repository/files/docs/b.txt')).status).toBe(404);
    // A folder listing, built from the database, is kept too and changes with it.
    expect(await (await readUntilKept('GET', '/repository/files/docs/')).kept.text()).not.toContain('c.txt');
    await deploy('/repository/files/docs/c.txt', 'new');
    expect(await (await call('GET', '/repository/files/docs/')).text()).toContain('c.txt');
  });

  it('issue 24 response cache: a token revoked or a permission taken away ends the cached answers at once; each caller has answers of its own', async () => {
    await deploy('/repository/files/private.txt', 'for readers');
    const reader = basicAuth('reader', PW);
    await readUntilKept('GET', '/repository/files/private.txt', { authorization: reader });
    const tokenRes = await call(
      'POST',
      '/api/security/tokens',
      { authorization: reader, 'content-type': 'application/json' },
      JSON.stringify({ expires_in: 3600 }),
    );
    expect(tokenRes.status).toBe(200);
    const token = (await tokenRes.json()) as { access_token: string; token_id: string };
    const bearer = `Bearer ${token.access_token}`;
    expect(
      (await readUntilKept('GET', '/repository/files/private.txt', { authorization: bearer })).kept.status,
    ).toBe(200);
    const revoked = await call('DELETE', `/api/security/tokens/${token.token_id}`, { authorization: reader });
    expect(revoked.status).toBe(204);
    expect((await call('GET', '/repository/files/private.txt', { authorization: bearer })).status).toBe(401);

    // The same URL for another caller is not the reader's answer.
    expect((await fetch(`${base}/repository/files/private.txt`)).status).toBe(401);
    await readUntilKept('GET', '/repository/files/private.txt', { authorization: reader });
    const taken = await call('DELETE', '/api/security/permissions/readers');
    expect(taken.status).toBeLessThan(300);
    // Without read permission the file is not there for the reader (404, as without the cache).
    expect((await call('GET', '/repository/files/private.txt', { authorization: reader })).status).toBe(404);
    expect((await call('GET', '/repository/files/private.txt')).status).toBe(200);
  });

  it('issue 24 response cache: an answer that depends on a header is kept per value (PyPI simple index as HTML or JSON by Accept)', async () => {
    const html = await readUntilKept('GET', '/repository/py/simple/', { accept: 'text/html' });
    expect(html.kept.headers.get('content-type')).toMatch(/text\/html/);
    const json = await call('GET', '/repository/py/simple/', {
      accept: 'application/vnd.pypi.simple.v1+json',
    });
    expect(json.headers.get('content-type')).toMatch(/application\/vnd\.pypi\.simple\.v1\+json/);
    expect(((await json.json()) as { meta: unknown }).meta).toMatchObject({
      'api-version': expect.any(String),
    });
  });

  it('issue 24 response cache: ranges, cookies and files over 256 KiB always go the whole way', async () => {
    await deploy('/repository/files/big.bin', 'x'.repeat(300 * 1024));
    await deploy('/repository/files/small.txt', '0123456789');
    const before = hits();
    for (let i = 0; i < 3; i++) {
      const ranged = await call('GET', '/repository/files/small.txt', { range: 'bytes=2-4' });
      expect(ranged.status).toBe(206);
      expect(await ranged.text()).toBe('234');
      expect((await call('GET', '/repository/files/big.bin')).status).toBe(200);
      expect((await call('GET', '/repository/files/small.txt', { cookie: 'theme=dark' })).status).toBe(200);
    }
    expect(hits()).toBe(before);
  });

  it(`issue 24 response cache: a kept answer is given again for at most ${TTL_MS} ms (the bound for another node's change)`, async () => {
    await deploy('/repository/files/ttl.txt', 'ttl');
    // A trial counts only when nothing changed in the database meanwhile (background work may):
    // then the answer was not given again because its time was up, not because it was voided.
    for (let trial = 0; ; trial++) {
      expect(trial, 'a trial without a change in the database').toBeLessThan(20);
      ahead = 0;
      await readUntilKept('GET', '/repository/files/ttl.txt');
      const changes = t.app.granary.database.changes.value;
      const before = hits();
      ahead = TTL_MS;
      await call('GET', '/repository/files/ttl.txt');
      if (t.app.granary.database.changes.value !== changes) continue;
      expect(hits()).toBe(before);
      break;
    }
    ahead = 0;
  });
});

describe(`issue 24 response cache: a change on another node (${testEngine})`, () => {
  let a: TestApp;
  let b: TestApp;
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it('issue 24 response cache: a file deployed on node A shows in node B’s kept folder listing within the stated bound (1.5 s)', async () => {
    const [first, second] = await createTestDatabasePair();
    a = await createTestApp({}, { database: first });
    b = await createTestApp({}, { database: second });
    const created = await a.app.inject({
      method: 'PUT',
      url: '/api/repositories/shared',
      headers: { authorization: ADMIN },
      payload: { rclass: 'local', packageType: 'generic' },
    });
    expect(created.statusCode).toBe(201);
    const onB = await listen(b);
    const listing = async () =>
      (await fetch(`${onB}/repository/shared/`, { headers: { authorization: ADMIN } })).text();
    expect(await listing()).not.toContain('later.txt');
    expect(await listing()).not.toContain('later.txt');
    const put = await a.app.inject({
      method: 'PUT',
      url: '/repository/shared/later.txt',
      headers: { authorization: ADMIN, 'content-type': 'application/octet-stream' },
      payload: Buffer.from('later'),
    });
    expect(put.statusCode).toBe(201);
    const deployed = Date.now();
    while (!(await listing()).includes('later.txt')) {
      expect(Date.now() - deployed).toBeLessThan(1500);
      await new Promise((r) => setTimeout(r, 20));
    }
  });
});
