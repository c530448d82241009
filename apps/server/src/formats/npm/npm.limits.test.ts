import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect, tarGzBomb } from '../../platform/archives/archive-bombs.ts';
import { basicAuth, createTestApp, TEST_ADMIN_PASSWORD, type TestApp } from '../../testing/index.ts';
import { readTarball, TARBALL_LIMITS, TarballError } from './metadata.ts';
import { integrityOf, makeTarball, publishDocument, shasumOf } from './test-support.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
/** The configured publish limit of this suite (GRANARY_NPM_PUBLISH_MAX_BYTES). */
const PUBLISH_LIMIT = 8 * MiB;

/** The bomb of the report: a package tarball whose first entry declares 3 GiB of zeros (~3 MB gzipped). */
const bombTarball = () => collect(tarGzBomb([{ name: 'package/package.json', zeros: 3 * GiB }]));

describe('npm archive and body limits (issue 12 §1, §16)', () => {
  let t: TestApp;
  const R = '/repository/npm-local';

  const children = async (key: string) => {
    const res = await t.app.inject({ url: `/api/storage/${key}`, headers: { authorization: ADMIN } });
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as { children: { uri: string }[] }).children.map((c) => c.uri);
  };

  beforeAll(async () => {
    t = await createTestApp({ npmPublishMaxBytes: PUBLISH_LIMIT, outboundAllowlist: '127.0.0.1' });
    for (const [key, body] of [['npm-local', { rclass: 'local', packageType: 'npm' }]] as const) {
      const res = await t.app.inject({
        method: 'PUT',
        url: `/api/repositories/${key}`,
        headers: { authorization: ADMIN },
        payload: body,
      });
      expect(res.statusCode, res.body).toBe(201);
    }
  });
  afterAll(() => t?.close());

  it('issue 12 §1: readTarball refuses the 3 GiB bomb with an error naming the limit (it used to throw on an entry stream nobody listened to, ending the process)', async () => {
    const err = await readTarball(await bombTarball()).then(
      () => null,
      (e: Error) => e,
    );
    expect(err).toBeInstanceOf(TarballError);
    expect(err?.message).toBe(`the archive unpacks to more than ${TARBALL_LIMITS.totalBytes} bytes`);
  });

  it('issue 12 §1: publishing the bomb answers npm {error} 400 naming the limit and stores nothing', async () => {
    const tgz = await bombTarball();
    const manifest = { name: 'bomb', version: '1.0.0' };
    const res = await t.app.inject({
      method: 'PUT',
      url: `${R}/bomb`,
      headers: { authorization: ADMIN, 'content-type': 'application/json' },
      payload: JSON.stringify(publishDocument(manifest, tgz)),
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toEqual({
      error: `The tarball is not a package: the archive unpacks to more than ${TARBALL_LIMITS.totalBytes} bytes`,
    });
    expect((await t.app.inject({ url: `${R}/bomb`, headers: { authorization: ADMIN } })).statusCode).toBe(
      404,
    );
    expect(await children('npm-local')).toEqual([]);
  });

  it('issue 12 §1: a bomb hidden behind a small package.json (zeros past the compression ratio) is refused too', async () => {
    const tgz = await collect(
      tarGzBomb([
        { name: 'package/package.json', content: JSON.stringify({ name: 'hidden', version: '1.0.0' }) },
        { name: 'package/blank.bin', zeros: 400 * MiB },
      ]),
    );
    const res = await t.app.inject({
      method: 'PUT',
      url: `${R}/hidden`,
      headers: { authorization: ADMIN, 'content-type': 'application/json' },
      payload: JSON.stringify(publishDocument({ name: 'hidden', version: '1.0.0' }, tgz)),
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().error).toMatch(/the archive's compression ratio is over 100 \(a decompression bomb\)$/);
    expect(await children('npm-local')).toEqual([]);
  });

  it("issue 12 §1: the bomb served by an npm remote's upstream answers 502 naming the limit and is not cached; the server still answers", async () => {
    const tgz = await bombTarball();
    const upstream = http.createServer((req, res) => {
      if (req.url === '/bomb') {
        res.setHeader('content-type', 'application/json');
        res.end(
          JSON.stringify({
            name: 'bomb',
            'dist-tags': { latest: '1.0.0' },
            versions: {
              '1.0.0': {
                name: 'bomb',
                version: '1.0.0',
                dist: {
                  tarball: `http://${req.headers.host}/bomb/-/bomb-1.0.0.tgz`,
                  integrity: integrityOf(tgz),
                  shasum: shasumOf(tgz),
                },
              },
            },
          }),
        );
      } else if (req.url === '/bomb/-/bomb-1.0.0.tgz') {
        res.setHeader('content-type', 'application/octet-stream');
        res.end(tgz);
      } else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = upstream.address() as AddressInfo;
      const created = await t.app.inject({
        method: 'PUT',
        url: '/api/repositories/npm-remote',
        headers: { authorization: ADMIN },
        payload: { rclass: 'remote', packageType: 'npm', url: `http://127.0.0.1:${port}` },
      });
      expect(created.statusCode, created.body).toBe(201);
      const tarball = '/repository/npm-remote/bomb/-/bomb-1.0.0.tgz';
      const head = await t.app.inject({ method: 'HEAD', url: tarball, headers: { authorization: ADMIN } });
      expect(head.statusCode).toBe(502);
      const get = await t.app.inject({ url: tarball, headers: { authorization: ADMIN } });
      expect(get.statusCode).toBe(502);
      expect(get.json().error).toContain(
        `the archive unpacks to more than ${TARBALL_LIMITS.totalBytes} bytes`,
      );
      const stored = await t.app.inject({
        url: '/api/storage/npm-remote-cache/bomb/-/bomb-1.0.0.tgz',
        headers: { authorization: ADMIN },
      });
      expect(stored.statusCode).toBe(404);
      expect((await t.app.inject({ url: '/api/system/ping' })).body).toBe('OK');
    } finally {
      upstream.close();
    }
  });

  it('issue 12 §16: a publish body announcing more than the configured limit is refused with 413 naming the limit, before it is read', async () => {
    const res = await t.app.inject({
      method: 'PUT',
      url: `${R}/too-big`,
      headers: { authorization: ADMIN, 'content-type': 'application/json' },
      payload: Buffer.alloc(PUBLISH_LIMIT + 1, 0x20),
    });
    expect(res.statusCode, res.body).toBe(413);
    expect(res.json()).toEqual({
      error: `The request body is larger than the limit of ${PUBLISH_LIMIT} bytes (GRANARY_NPM_PUBLISH_MAX_BYTES)`,
    });
    expect(res.headers.connection).toBe('close');
  });

  it('issue 12 §16: a publish body of unannounced length is cut off at the limit: 413, and the rest is never read', async () => {
    let produced = 0;
    // 1 GiB of spaces, made only as it is read: the server must stop asking long before the end.
    const body = Readable.from(
      (function* () {
        for (; produced < GiB; produced += MiB) yield Buffer.alloc(MiB, 0x20);
      })(),
    );
    const res = await t.app.inject({
      method: 'PUT',
      url: `${R}/too-big`,
      headers: { authorization: ADMIN, 'content-type': 'application/json' },
      payload: body,
    });
    expect(res.statusCode, res.body).toBe(413);
    expect(res.json().error).toBe(
      `The request body is larger than the limit of ${PUBLISH_LIMIT} bytes (GRANARY_NPM_PUBLISH_MAX_BYTES)`,
    );
    expect(await children('npm-local')).toEqual([]);
  });

  it('issue 12 §16: a publish under the limit still works', async () => {
    const manifest = { name: 'fits', version: '1.0.0' };
    const tgz = await makeTarball(manifest, { 'README.md': '# fits\n' });
    const res = await t.app.inject({
      method: 'PUT',
      url: `${R}/fits`,
      headers: { authorization: ADMIN, 'content-type': 'application/json' },
      payload: JSON.stringify(publishDocument(manifest, tgz)),
    });
    expect(res.statusCode, res.body).toBe(201);
  });
});
