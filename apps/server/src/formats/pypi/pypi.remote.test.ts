import { createHash } from 'node:crypto';
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
import { makeWheel } from './test-dists.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

interface Listed {
  filename: string;
  /** the bytes the page's `#sha256=` describes */
  described: Buffer;
  /** what is sent for the file */
  sent: Buffer | string;
  /** served by the second server (another origin, as files.pythonhosted.org) */
  foreign?: boolean;
}

/** A hostile index on loopback: pages list files with one digest, the files served may be others; requests counted. */
function startIndex() {
  const projects = new Map<string, Listed[]>();
  const hits: string[] = [];
  const serveFile = (req: http.IncomingMessage, res: http.ServerResponse) => {
    hits.push(req.url ?? '');
    for (const files of projects.values())
      for (const f of files)
        if (req.url?.endsWith(`/${f.filename}`)) {
          res.writeHead(200, {
            'content-type': typeof f.sent === 'string' ? 'text/html' : 'application/octet-stream',
          });
          return res.end(f.sent);
        }
    res.writeHead(404).end();
  };
  const files = http.createServer(serveFile);
  const index = http.createServer((req, res) => {
    const page = /^\/simple\/([^/]+)\/$/.exec(req.url ?? '');
    if (!page) return serveFile(req, res);
    hits.push(req.url ?? '');
    const listed = projects.get(page[1]!);
    if (!listed) return res.writeHead(404).end();
    const filesPort = (files.address() as AddressInfo).port;
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(
      `<!DOCTYPE html><html><body>\n${listed
        .map((f) => {
          const href = f.foreign
            ? `http://127.0.0.1:${filesPort}/files/${f.filename}`
            : `/packages/${f.filename}`;
          return `<a href="${href}#sha256=${sha256(f.described)}">${f.filename}</a>`;
        })
        .join('\n')}\n</body></html>`,
    );
  });
  return { index, files, projects, hits };
}

describe(`pypi remote: files are verified against the simple page before they are cached (${testEngine})`, () => {
  let t: TestApp;
  let upstream: ReturnType<typeof startIndex>;
  const get = (url: string) => t.app.inject({ url, headers: { authorization: ADMIN } });
  const cached = async (path: string) => (await get(`/api/storage/py-remote-cache/${path}`)).statusCode;
  /** The link the rewritten page gives for a file, as a path on this server. */
  const linkOf = async (project: string, filename: string) => {
    const page = await get(`/repository/py-remote/simple/${project}/`);
    expect(page.statusCode, page.body).toBe(200);
    const href = new RegExp(`href="([^"#]*${filename.replace(/\./g, '\\.')})`).exec(page.body)?.[1];
    expect(href, page.body).toBeDefined();
    return new URL(href!, `http://localhost/repository/py-remote/simple/${project}/`).pathname;
  };

  beforeAll(async () => {
    upstream = startIndex();
    await new Promise<void>((r) => upstream.index.listen(0, '127.0.0.1', r));
    await new Promise<void>((r) => upstream.files.listen(0, '127.0.0.1', r));
    t = await createTestApp({ outboundAllowlist: '127.0.0.1' });
    const res = await t.app.inject({
      method: 'PUT',
      url: '/api/repositories/py-remote',
      headers: { authorization: ADMIN },
      payload: {
        rclass: 'remote',
        packageType: 'pypi',
        url: `http://127.0.0.1:${(upstream.index.address() as AddressInfo).port}/`,
        // Pages are revalidated on every read: a fixed upstream is seen at once.
        retrievalCachePeriodSecs: 0,
      },
    });
    expect(res.statusCode, res.body).toBe(201);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await new Promise((r) => upstream?.index.close(r));
    await new Promise((r) => upstream?.files.close(r));
  });

  it("issue 12 §4: a wheel whose sha256 is not the page's #sha256 fragment answers 502 and is not cached; fixed upstream → served", async () => {
    const listed = await makeWheel({ name: 'swapped', version: '1.0' });
    const other = await makeWheel({ name: 'swapped', version: '1.0', summary: 'not the one the page lists' });
    upstream.projects.set('swapped', [
      { filename: listed.filename, described: listed.bytes, sent: other.bytes },
    ]);
    const path = await linkOf('swapped', listed.filename);
    const res = await get(path);
    expect(res.statusCode, res.body).toBe(502);
    expect(res.body).toContain(`is not its index's ${sha256(listed.bytes)}`);
    const stored = path.split('/repository/py-remote/')[1]!;
    expect(await cached(stored)).toBe(404);

    upstream.projects.set('swapped', [
      { filename: listed.filename, described: listed.bytes, sent: listed.bytes },
    ]);
    const fixed = await get(path);
    expect(fixed.statusCode, fixed.body).toBe(200);
    expect(fixed.rawPayload.equals(listed.bytes)).toBe(true);
    expect(await cached(stored)).toBe(200);
  });

  it('issue 12 §5: an HTML page where a wheel is expected answers 502, is not cached, and the next request asks again', async () => {
    const wheel = await makeWheel({ name: 'walled', version: '1.0' });
    const login = '<!DOCTYPE html><html><body>Please sign in</body></html>';
    upstream.projects.set('walled', [{ filename: wheel.filename, described: wheel.bytes, sent: login }]);
    const path = await linkOf('walled', wheel.filename);
    const res = await get(path);
    expect(res.statusCode, res.body).toBe(502);
    expect(res.body).toContain('an HTML page where a zip archive was expected');
    expect(await cached(path.split('/repository/py-remote/')[1]!)).toBe(404);

    upstream.projects.set('walled', [
      { filename: wheel.filename, described: wheel.bytes, sent: wheel.bytes },
    ]);
    expect((await get(path)).statusCode).toBe(200);
    expect(upstream.hits.filter((h) => h.endsWith(wheel.filename))).toHaveLength(2);
  });

  it('issue 12 §4: a file on another host whose bytes are not the page’s answers 502 (not a 500) and is not cached', async () => {
    const listed = await makeWheel({ name: 'far-off', version: '1.0' });
    const other = await makeWheel({ name: 'far-off', version: '1.0', summary: 'swapped' });
    upstream.projects.set('far-off', [
      { filename: listed.filename, described: listed.bytes, sent: other.bytes, foreign: true },
    ]);
    const path = await linkOf('far-off', listed.filename);
    expect(path).toContain('/.pypi-external/');
    const res = await get(path);
    expect(res.statusCode, res.body).toBe(502);
    expect(await cached(path.split('/repository/py-remote/')[1]!)).toBe(404);
  });

  it('issue 12 §4: a distribution its project page does not list is never asked of the upstream', async () => {
    const wheel = await makeWheel({ name: 'listed', version: '1.0' });
    upstream.projects.set('listed', [
      { filename: wheel.filename, described: wheel.bytes, sent: wheel.bytes },
    ]);
    const res = await get('/repository/py-remote/packages/listed-6.6.6-py3-none-any.whl');
    expect(res.statusCode).toBe(404);
    expect(upstream.hits.some((h) => h.includes('6.6.6'))).toBe(false);
  });
});
