import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect, tarGzBomb, zipBomb } from '../../platform/archives/archive-bombs.ts';
import { basicAuth, createTestApp, TEST_ADMIN_PASSWORD, type TestApp } from '../../testing/index.ts';
import { LIMITS } from './archive.ts';
import { uploadForm } from './test-dists.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** A wheel whose METADATA is 3 GiB of zeros (~3 MB), and one whose METADATA is fine beside 3 GiB of zeros. */
const bombWheels = (version: string) => [
  {
    filename: `bomb-${version}-py3-none-any.whl`,
    bytes: zipBomb([{ name: `bomb-${version}.dist-info/METADATA`, zeros: 3 * GiB }]),
  },
  {
    filename: `bomb-${version}.1-py3-none-any.whl`,
    bytes: zipBomb([
      {
        name: `bomb-${version}.1.dist-info/METADATA`,
        content: `Metadata-Version: 2.1\nName: bomb\nVersion: ${version}.1\n`,
      },
      { name: 'bomb/zeros.bin', zeros: 3 * GiB },
    ]),
  },
];

describe('PyPI archive limits (issue 12 §1)', () => {
  let t: TestApp;
  let upstream: http.Server;
  let served: { filename: string; bytes: Buffer }[];

  const get = (url: string, method: 'GET' | 'HEAD' = 'GET') =>
    t.app.inject({ method, url, headers: { authorization: ADMIN } });
  const upload = async (file: { filename: string; bytes: Buffer }) => {
    const form = await uploadForm(file, { name: 'bomb' });
    return t.app.inject({
      method: 'POST',
      url: '/repository/py-local/',
      headers: { authorization: ADMIN, 'content-type': form.contentType },
      payload: form.body,
    });
  };

  beforeAll(async () => {
    served = [
      ...bombWheels('2.0'),
      {
        filename: 'bomb-2.0.tar.gz',
        bytes: await collect(
          tarGzBomb([
            { name: 'bomb-2.0/setup.py', zeros: 900 * MiB },
            { name: 'bomb-2.0/PKG-INFO', content: 'Metadata-Version: 2.1\nName: bomb\nVersion: 2.0\n' },
          ]),
        ),
      },
    ];
    upstream = http.createServer((req, res) => {
      const port = (upstream.address() as AddressInfo).port;
      if (req.url === '/simple/bomb/') {
        res.setHeader('content-type', 'text/html');
        // The wheels on the index's own host, the sdist on another (as files.pythonhosted.org).
        const links = served.map((f, i) => {
          const at = i < 2 ? `/packages/${f.filename}` : `http://localhost:${port}/files/${f.filename}`;
          return `<a href="${at}#sha256=${sha256(f.bytes)}">${f.filename}</a>`;
        });
        return res.end(`<!DOCTYPE html><html><body>\n${links.join('\n')}\n</body></html>`);
      }
      const file = served.find((f) => req.url?.endsWith(`/${f.filename}`));
      if (file) return res.end(file.bytes);
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    t = await createTestApp({ outboundAllowlist: '127.0.0.1' });
    const port = (upstream.address() as AddressInfo).port;
    for (const [key, body] of [
      ['py-local', { rclass: 'local', packageType: 'pypi' }],
      ['py-bombs', { rclass: 'remote', packageType: 'pypi', url: `http://127.0.0.1:${port}/` }],
    ] as const) {
      const res = await t.app.inject({
        method: 'PUT',
        url: `/api/repositories/${key}`,
        headers: { authorization: ADMIN },
        payload: body,
      });
      expect(res.statusCode, res.body).toBe(201);
    }
  });
  afterAll(async () => {
    await t?.close();
    await new Promise((r) => upstream?.close(r));
  });

  it('issue 12 §1: uploads of bomb wheels (METADATA of 3 GiB zeros; 3 GiB of zeros beside it) and a bomb sdist are refused with 400 naming the limit; nothing stored', async () => {
    const sdist = {
      filename: 'bomb-1.0.tar.gz',
      bytes: await collect(tarGzBomb([{ name: 'bomb-1.0/PKG-INFO', zeros: 3 * GiB }])),
    };
    const answers: string[] = [];
    for (const file of [...bombWheels('1.0'), sdist]) {
      expect(file.bytes.length).toBeLessThan(4 * MiB);
      const res = await upload(file);
      expect(res.statusCode, res.body).toBe(400);
      answers.push(res.body);
    }
    const limit = `the archive unpacks to more than ${LIMITS.tarBytes} bytes`;
    expect(answers[0]).toContain(`Invalid distribution file 'bomb-1.0-py3-none-any.whl': ${limit}`);
    expect(answers[1]).toContain(`Invalid distribution file 'bomb-1.0.1-py3-none-any.whl': ${limit}`);
    expect(answers[2]).toContain(`Invalid distribution file 'bomb-1.0.tar.gz': ${limit}`);
    expect((await get('/api/storage/py-local/packages')).statusCode).toBe(404);
  });

  it("issue 12 §1: bomb distributions served by a remote's upstream (its own files and a foreign host's) answer 502 and are never cached", async () => {
    const page = await get('/repository/py-bombs/simple/bomb/');
    expect(page.statusCode, page.body).toBe(200);
    const hrefs = [...page.body.matchAll(/href="([^"#]+)/g)].map(
      (m) => new URL(m[1]!, 'http://localhost/repository/py-bombs/simple/bomb/').pathname,
    );
    expect(hrefs).toHaveLength(3);
    for (const path of hrefs) {
      const res = await get(path);
      expect(res.statusCode, `${path}: ${res.body}`).toBe(502);
      expect(res.body).toMatch(/unpacks to more than|compression ratio is over/);
      const cached = await get(`/api/storage/py-bombs-cache/${path.split('/repository/py-bombs/')[1]}`);
      expect(cached.statusCode, path).toBe(404);
    }
    expect((await get('/api/system/ping')).body).toBe('OK');
  });
});
