import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { integrityOf, publishDocument, shasumOf } from '../../formats/npm/test-support.ts';
import { uploadForm } from '../../formats/pypi/test-dists.ts';
import { startTestServer, type TestServer } from '../../testing/server-process.ts';
import { collect, tarGzBomb, zipBomb } from './archive-bombs.ts';

/**
 * Issue 12 §1 and §16 against the real server process: hostile archives (decompression bombs made
 * on the fly: 3 GiB of zeros in ~3 MB) by every way in — npm publish, PyPI upload, Maven deploy, an
 * npm remote's upstream — and an oversized npm publish body. After each the process still answers
 * and nothing was stored. (It used to exit on the first npm bomb.)
 */
const PASSWORD = 'Hostile-archives-Pa55!';
const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
const PUBLISH_LIMIT = 16 * MiB;

describe('hostile archives against the server process (issue 12 §1, §16)', () => {
  let server: TestServer;
  let upstream: http.Server;
  let npmBomb: Buffer;

  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${server.url}${path}`, {
      ...init,
      headers: { authorization: server.auth, ...(init.headers as Record<string, string>) },
    });
  const alive = async () => {
    expect(server.proc.child.exitCode, server.proc.out()).toBe(null);
    expect(await (await fetch(`${server.url}/api/system/ping`)).text()).toBe('OK');
  };
  const children = async (key: string, path = '') => {
    const res = await api(`/api/storage/${key}${path}`);
    if (res.status === 404) return [];
    expect(res.status).toBe(200);
    return ((await res.json()) as { children: { uri: string }[] }).children.map((c) => c.uri);
  };

  beforeAll(async () => {
    npmBomb = await collect(tarGzBomb([{ name: 'package/package.json', zeros: 3 * GiB }]));
    upstream = http.createServer((req, res) => {
      if (req.url === '/bomb') {
        res.setHeader('content-type', 'application/json');
        return res.end(
          JSON.stringify({
            name: 'bomb',
            'dist-tags': { latest: '1.0.0' },
            versions: {
              '1.0.0': {
                name: 'bomb',
                version: '1.0.0',
                dist: {
                  tarball: `http://${req.headers.host}/bomb/-/bomb-1.0.0.tgz`,
                  integrity: integrityOf(npmBomb),
                  shasum: shasumOf(npmBomb),
                },
              },
            },
          }),
        );
      }
      if (req.url === '/bomb/-/bomb-1.0.0.tgz') {
        res.setHeader('content-type', 'application/octet-stream');
        return res.end(npmBomb);
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    server = await startTestServer(PASSWORD, {
      GRANARY_OUTBOUND_ALLOWLIST: '127.0.0.1',
      GRANARY_NPM_PUBLISH_MAX_BYTES: String(PUBLISH_LIMIT),
    });
    const { port } = upstream.address() as AddressInfo;
    await server.createRepository('npm-local', { rclass: 'local', packageType: 'npm' });
    await server.createRepository('npm-remote', {
      rclass: 'remote',
      packageType: 'npm',
      url: `http://127.0.0.1:${port}`,
    });
    await server.createRepository('py-local', { rclass: 'local', packageType: 'pypi' });
    await server.createRepository('mvn-local', { rclass: 'local', packageType: 'maven' });
  }, 300_000);
  afterAll(async () => {
    await server?.stop();
    upstream?.close();
  });

  it('issue 12 §1: npm publish of a tarball whose first entry declares 3 GiB of zeros: npm {error} 400, the process lives, nothing stored', async () => {
    const res = await api('/repository/npm-local/bomb', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(publishDocument({ name: 'bomb', version: '1.0.0' }, npmBomb)),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toMatch(
      /^The tarball is not a package: the archive unpacks to more than \d+ bytes$/,
    );
    await alive();
    expect((await api('/repository/npm-local/bomb')).status).toBe(404);
    expect(await children('npm-local')).toEqual([]);
  });

  it('issue 12 §1: the bomb fetched through an npm remote whose upstream serves it: 502, the process lives, nothing cached', async () => {
    const res = await api('/repository/npm-remote/bomb/-/bomb-1.0.0.tgz');
    expect(res.status).toBe(502);
    expect(((await res.json()) as { error: string }).error).toMatch(
      /the archive unpacks to more than \d+ bytes/,
    );
    const head = await api('/repository/npm-remote/bomb/-/bomb-1.0.0.tgz', { method: 'HEAD' });
    expect(head.status).toBe(502);
    await alive();
    expect((await api('/api/storage/npm-remote-cache/bomb/-/bomb-1.0.0.tgz')).status).toBe(404);
  });

  it('issue 12 §1: PyPI uploads of a bomb wheel (METADATA of 3 GiB zeros) and a bomb sdist: 400, the process lives, nothing stored', async () => {
    const wheel = {
      filename: 'bomb-1.0-py3-none-any.whl',
      bytes: zipBomb([
        { name: 'bomb-1.0.dist-info/METADATA', zeros: 3 * GiB },
        { name: 'bomb-1.0.dist-info/WHEEL', content: 'Wheel-Version: 1.0\n' },
      ]),
    };
    const sdist = {
      filename: 'bomb-1.0.tar.gz',
      bytes: await collect(
        tarGzBomb([
          { name: 'bomb-1.0/setup.py', zeros: 900 * MiB },
          { name: 'bomb-1.0/PKG-INFO', content: 'Metadata-Version: 2.1\nName: bomb\nVersion: 1.0\n' },
        ]),
      ),
    };
    for (const file of [wheel, sdist]) {
      expect(file.bytes.length).toBeLessThan(4 * MiB);
      const form = await uploadForm(file, { name: 'bomb', version: '1.0' });
      const res = await api('/repository/py-local/', {
        method: 'POST',
        headers: { 'content-type': form.contentType },
        body: form.body,
      });
      const text = await res.text();
      expect(res.status, text).toBe(400);
      expect(text).toMatch(/unpacks to more than|compression ratio is over/);
      await alive();
    }
    expect(await children('py-local')).toEqual([]);
  });

  it('issue 12 §1: a Maven deploy of a bomb jar: jars are only ever read by their directory (never inflated), so it is stored as sent and its entries indexed; the process lives', async () => {
    const jar = zipBomb([
      { name: 'META-INF/MANIFEST.MF', content: 'Manifest-Version: 1.0\n' },
      { name: 'org/acme/Bomb.class', content: 'not really a class' },
      { name: 'org/acme/zeros.bin', zeros: 3 * GiB },
    ]);
    const path = '/repository/mvn-local/org/acme/bomb/1.0/bomb-1.0.jar';
    const res = await api(path, { method: 'PUT', body: jar });
    expect(res.status, await res.text()).toBe(201);
    await alive();
    const deadline = Date.now() + 30_000;
    let found: { entry: string }[] = [];
    while (Date.now() < deadline && found.length === 0) {
      found = (
        (await (await api('/api/search/archive?name=Bomb.class')).json()) as { results: { entry: string }[] }
      ).results;
      if (found.length === 0) await new Promise((r) => setTimeout(r, 200));
    }
    expect(found.map((r) => r.entry)).toEqual(['org/acme/Bomb.class']);
    expect(Buffer.from(await (await api(path)).arrayBuffer()).equals(jar)).toBe(true);
    await alive();
  });

  /** A PUT written slowly until the server answers; how much of the body had been sent by then. */
  function putUntilAnswered(
    path: string,
    headers: Record<string, string>,
    total: number,
  ): Promise<{ status: number; body: string; sent: number }> {
    return new Promise((resolve, reject) => {
      let sent = 0;
      let answered = false;
      const req = http.request(
        { host: '127.0.0.1', port: server.port, method: 'PUT', path, headers },
        (res) => {
          answered = true;
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => {
            body += d;
          });
          res.on('end', () => {
            resolve({ status: res.statusCode ?? 0, body, sent });
            req.destroy();
          });
        },
      );
      req.on('error', (err) => {
        if (!answered) reject(err);
      });
      const chunk = Buffer.alloc(256 * 1024, 0x20);
      const pump = () => {
        while (!answered && sent < total) {
          sent += chunk.length;
          if (!req.write(chunk)) return void req.once('drain', pump);
        }
        if (!answered && sent >= total) req.end();
      };
      req.write('{"x":"');
      pump();
    });
  }

  it('issue 12 §16: an npm publish body over the limit is refused with 413 naming the limit before it was sent (announced length) or soon after the limit (chunked); the process lives', async () => {
    const announced = await putUntilAnswered(
      '/repository/npm-local/too-big',
      { authorization: server.auth, 'content-type': 'application/json', 'content-length': String(400 * MiB) },
      400 * MiB,
    );
    expect(announced.status).toBe(413);
    expect(JSON.parse(announced.body)).toEqual({
      error: `The request body is larger than the limit of ${PUBLISH_LIMIT} bytes (GRANARY_NPM_PUBLISH_MAX_BYTES)`,
    });
    expect(announced.sent).toBeLessThan(PUBLISH_LIMIT);

    const chunked = await putUntilAnswered(
      '/repository/npm-local/too-big',
      { authorization: server.auth, 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      400 * MiB,
    );
    expect(chunked.status).toBe(413);
    expect(chunked.sent).toBeLessThan(PUBLISH_LIMIT + 64 * MiB);

    // Anonymous: 401 before the body is read at all.
    const anonymous = await putUntilAnswered(
      '/repository/npm-local/too-big',
      { 'content-type': 'application/json', 'content-length': String(PUBLISH_LIMIT - 1) },
      PUBLISH_LIMIT - 1,
    );
    expect(anonymous.status).toBe(401);
    expect(anonymous.sent).toBeLessThan(PUBLISH_LIMIT - 1);
    await alive();
    expect(await children('npm-local')).toEqual([]);
  });
});
