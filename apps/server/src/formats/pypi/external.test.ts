import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_AUTH } from '../../testing/format-protocol-conformance.ts';
import { createTestApp, type TestApp, testEngine } from '../../testing/index.ts';
import { makeWheel } from './test-dists.ts';

/**
 * A remote whose upstream index links its files on another host (PyPI's pages point at
 * files.pythonhosted.org): the links are rewritten to this server, the file is fetched once,
 * verified against the page's sha256 and cached; a file whose bytes do not match is never cached.
 * The upstream here is a real HTTP server on loopback: its page at 127.0.0.1, its files at localhost.
 */
describe(`pypi remote with files on another host (${testEngine})`, () => {
  let t: TestApp;
  let upstream: http.Server;
  const fileHits = new Map<string, number>();
  let good: { filename: string; bytes: Buffer };
  let bad: { filename: string; bytes: Buffer };

  beforeAll(async () => {
    good = await makeWheel({ name: 'far-away', version: '1.0.0' });
    bad = await makeWheel({ name: 'far-away', version: '2.0.0' });
    const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
    upstream = http.createServer((req, res) => {
      const port = (upstream.address() as AddressInfo).port;
      if (req.url === '/simple/far-away/') {
        res.setHeader('content-type', 'text/html');
        res.end(`<!DOCTYPE html><html><body>
<a href="http://localhost:${port}/files/${good.filename}#sha256=${sha(good.bytes)}">${good.filename}</a>
<a href="http://localhost:${port}/files/${bad.filename}#sha256=${'0'.repeat(64)}">${bad.filename}</a>
</body></html>`);
        return;
      }
      const name = req.url?.replace('/files/', '') ?? '';
      fileHits.set(name, (fileHits.get(name) ?? 0) + 1);
      if (name === good.filename) return res.end(good.bytes);
      if (name === bad.filename) return res.end(bad.bytes);
      res.statusCode = 404;
      res.end();
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    t = await createTestApp({ outboundAllowlist: '127.0.0.1' });
    const port = (upstream.address() as AddressInfo).port;
    const res = await t.app.inject({
      method: 'PUT',
      url: '/api/repositories/py-far',
      headers: { authorization: ADMIN_AUTH },
      payload: { rclass: 'remote', packageType: 'pypi', url: `http://127.0.0.1:${port}/` },
    });
    expect(res.statusCode, res.body).toBe(201);
  });
  afterAll(async () => {
    await t?.close();
    await new Promise((r) => upstream?.close(r));
  });

  const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { authorization: ADMIN_AUTH } });

  it('rewrites the foreign links to this server, fetches the file once and serves it byte-identical', async () => {
    const page = await get('/repository/py-far/simple/far-away/');
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toContain(`:${(upstream.address() as AddressInfo).port}/files/`);
    const href = /href="([^"#]*far_away-1\.0\.0[^"#]*)/.exec(page.body)?.[1];
    const url = new URL(href ?? '', 'http://localhost/repository/py-far/simple/far-away/');
    // a file on another host is served at `.pypi-external/{project}/{file}`
    expect(url.pathname).toBe(`/repository/py-far/.pypi-external/far-away/${good.filename}`);
    const first = await get(url.pathname);
    expect(first.statusCode).toBe(200);
    expect(first.rawPayload.equals(good.bytes)).toBe(true);
    const again = await get(url.pathname);
    expect(again.rawPayload.equals(good.bytes)).toBe(true);
    expect(fileHits.get(good.filename)).toBe(1);
  });

  it('a foreign file whose bytes do not match the page sha256 is refused and never cached', async () => {
    const page = await get('/repository/py-far/simple/far-away/');
    const href = /href="([^"#]*far_away-2\.0\.0[^"#]*)/.exec(page.body)?.[1];
    const url = new URL(href!, 'http://localhost/repository/py-far/simple/far-away/');
    expect((await get(url.pathname)).statusCode).toBeGreaterThanOrEqual(500);
    const listing = await get(`/api/storage/py-far-cache/${url.pathname.split('/py-far/')[1]}`);
    expect(listing.statusCode).toBe(404);
  });
});
