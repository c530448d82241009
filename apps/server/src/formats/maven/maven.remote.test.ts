import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  basicAuth,
  createTestApp,
  TEST_ADMIN_PASSWORD,
  type TestApp,
  testEngine,
} from '../../testing/index.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
const JAR = readFileSync(path.join(import.meta.dirname, '__fixtures__', 'demo-lib-1.2.0.jar'));
const sha1 = (b: Buffer | string) => createHash('sha1').update(b).digest('hex');
const pomOf = (group: string, artifact: string, version: string) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<project><modelVersion>4.0.0</modelVersion><groupId>${group}</groupId><artifactId>${artifact}</artifactId><version>${version}</version></project>`;
const LOGIN_PAGE = '<!DOCTYPE html><html><head><title>Sign in</title></head><body>Sign in</body></html>';

/** A hostile Maven repository on loopback: serves what `files` says at each path (404 otherwise); requests counted. */
function startRepository() {
  const files = new Map<string, Buffer | string>();
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    const at = (req.url ?? '').replace(/^\/maven2\//, '');
    hits.push(at);
    const body = files.get(at);
    if (body === undefined) return res.writeHead(404).end();
    const html = typeof body === 'string' && body.startsWith('<!DOCTYPE html');
    res.writeHead(200, { 'content-type': html ? 'text/html' : 'application/octet-stream' });
    res.end(body);
  });
  return { server, files, hits };
}

describe(`maven remote: files are verified against their .sha1 and their kind before they are cached (${testEngine})`, () => {
  let t: TestApp;
  let upstream: ReturnType<typeof startRepository>;
  const get = (url: string) => t.app.inject({ url, headers: { authorization: ADMIN } });
  const cached = async (p: string) => (await get(`/api/storage/central-cache/${p}`)).statusCode;

  beforeAll(async () => {
    upstream = startRepository();
    await new Promise<void>((r) => upstream.server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(upstream.server.address() as AddressInfo).port}/maven2`;
    t = await createTestApp({ outboundAllowlist: '127.0.0.1' });
    for (const [key, body] of [
      ['central', { rclass: 'remote', packageType: 'maven', url }],
      ['central-open', { rclass: 'remote', packageType: 'maven', url, namespaceConfusionProtection: false }],
      ['libs', { rclass: 'local', packageType: 'maven' }],
      ['public', { rclass: 'virtual', packageType: 'maven', repositories: ['libs', 'central'] }],
      ['public-open', { rclass: 'virtual', packageType: 'maven', repositories: ['libs', 'central-open'] }],
    ] as const) {
      const res = await t.app.inject({
        method: 'PUT',
        url: `/api/repositories/${key}`,
        headers: { authorization: ADMIN },
        payload: body,
      });
      expect(res.statusCode, res.body).toBe(201);
    }
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await new Promise((r) => upstream?.server.close(r));
  });

  it('issue 12 §4: a jar whose upstream .sha1 names other bytes answers 502 and is not cached; a fixed .sha1 → served and cached', async () => {
    const jar = 'org/ext/tool/1.0/tool-1.0.jar';
    upstream.files.set(jar, JAR);
    upstream.files.set(`${jar}.sha1`, `${sha1('something else')}  tool-1.0.jar\n`);
    const res = await get(`/repository/central/${jar}`);
    expect(res.statusCode, res.body).toBe(502);
    expect(res.body).toContain(`is not the one its .sha1 publishes (${sha1('something else')})`);
    expect(await cached(jar)).toBe(404);

    upstream.files.set(`${jar}.sha1`, sha1(JAR));
    const fixed = await get(`/repository/central/${jar}`);
    expect(fixed.statusCode, fixed.body).toBe(200);
    expect(fixed.rawPayload.equals(JAR)).toBe(true);
    expect(await cached(jar)).toBe(200);
    // The client's .sha1 is computed from the cached bytes, never relayed.
    expect((await get(`/repository/central/${jar}.sha1`)).body).toBe(sha1(JAR));
    expect(upstream.hits.filter((h) => h === `${jar}.sha1`)).toHaveLength(2);
  });

  it('issue 12 §5: an HTML page where a POM or a jar is expected answers 502, is not cached, and the next request asks again', async () => {
    const pom = 'org/ext/walled/1.0/walled-1.0.pom';
    const jar = 'org/ext/walled/1.0/walled-1.0.jar';
    upstream.files.set(pom, LOGIN_PAGE);
    upstream.files.set(jar, LOGIN_PAGE);
    const refusedPom = await get(`/repository/central/${pom}`);
    expect(refusedPom.statusCode, refusedPom.body).toBe(502);
    expect(refusedPom.body).toContain('an HTML page where an XML document was expected');
    const refusedJar = await get(`/repository/central/${jar}`);
    expect(refusedJar.statusCode, refusedJar.body).toBe(502);
    expect(refusedJar.body).toContain('an HTML page where a zip archive was expected');
    expect(await cached(pom)).toBe(404);
    expect(await cached(jar)).toBe(404);

    // Fixed (and no .sha1 published: nothing to compare with, accepted).
    upstream.files.set(pom, pomOf('org.ext', 'walled', '1.0'));
    upstream.files.set(jar, JAR);
    expect((await get(`/repository/central/${pom}`)).statusCode).toBe(200);
    expect((await get(`/repository/central/${jar}`)).statusCode).toBe(200);
    expect(upstream.hits.filter((h) => h === pom)).toHaveLength(2);
  });

  it('issue 12 §7: through a virtual repository, an artifact a local member holds is never asked of a protected remote (another version included); a remote with the protection off is asked', async () => {
    const deployed = await t.app.inject({
      method: 'PUT',
      url: '/repository/libs/com/acme/internal/1.0/internal-1.0.pom',
      headers: { authorization: ADMIN },
      payload: pomOf('com.acme', 'internal', '1.0'),
    });
    expect(deployed.statusCode, deployed.body).toBe(201);
    const squatted = 'com/acme/internal/9.9/internal-9.9.pom';
    upstream.files.set(squatted, pomOf('com.acme', 'internal', '9.9'));
    upstream.files.set(
      'com/acme/internal/maven-metadata.xml',
      '<metadata><groupId>com.acme</groupId><artifactId>internal</artifactId><versioning><versions><version>9.9</version></versions></versioning></metadata>',
    );

    expect((await get(`/repository/public/${squatted}`)).statusCode).toBe(404);
    const metadata = await get('/repository/public/com/acme/internal/maven-metadata.xml');
    expect(metadata.statusCode).toBe(200);
    expect(metadata.body).toContain('<version>1.0</version>');
    expect(metadata.body).not.toContain('9.9');
    expect(upstream.hits.some((h) => h.startsWith('com/acme/'))).toBe(false);
    expect((await get('/api/repositories/central')).json().namespaceConfusionProtection).toBe(true);

    expect((await get(`/repository/public-open/${squatted}`)).statusCode).toBe(200);
    expect(upstream.hits).toContain(squatted);
  });
});
