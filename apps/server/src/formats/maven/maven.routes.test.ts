import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listEvents } from '../../platform/events/index.ts';
import {
  basicAuth,
  createTestApp,
  TEST_ADMIN_PASSWORD,
  type TestApp,
  testEngine,
} from '../../testing/index.ts';
import { parseMetadata } from './index-builder.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
const DEPLOYER = basicAuth('deployer', 'Deployer-Pa55word!');
const FIXTURES = path.join(import.meta.dirname, '__fixtures__');
const fixture = (name: string) => readFileSync(path.join(FIXTURES, name));
const JAR = fixture('demo-lib-1.2.0.jar');
const POM = fixture('demo-lib-1.2.0.pom');
const LIB = 'org/granary/samples/demo-lib';
const digest = (algorithm: string, bytes: Buffer | string) =>
  createHash(algorithm).update(bytes).digest('hex');

/** A POM for any coordinates (snapshot builds of the demo library). */
const pomFor = (version: string, artifactId = 'demo-lib') =>
  `<project><modelVersion>4.0.0</modelVersion><groupId>org.granary.samples</groupId><artifactId>${artifactId}</artifactId><version>${version}</version></project>`;

const REMOTE_LIB = 'org/granary/samples/remote-lib';
const upstreamDoc = (artifactId: string) => `<?xml version="1.0" encoding="UTF-8"?>
<metadata><groupId>org.granary.samples</groupId><artifactId>${artifactId}</artifactId>
<versioning><latest>0.9</latest><release>0.9</release><versions><version>0.8</version><version>0.9</version></versions><lastUpdated>20200101000000</lastUpdated></versioning></metadata>`;

/** An upstream Maven repository on loopback (for the remote member): metadata of two artifacts and one jar. */
function startUpstream() {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(req.url ?? '');
    for (const ga of [LIB, REMOTE_LIB])
      if (req.url === `/maven2/${ga}/maven-metadata.xml`) {
        res.writeHead(200, { 'content-type': 'text/xml' });
        res.end(upstreamDoc(ga.split('/').at(-1)!));
        return;
      }
    if (req.url === `/maven2/${REMOTE_LIB}/0.9/remote-lib-0.9.jar`) {
      res.writeHead(200);
      res.end(JAR);
      return;
    }
    res.writeHead(404).end();
  });
  return { server, hits };
}

describe(`maven repositories (${testEngine})`, () => {
  let t: TestApp;
  let upstream: ReturnType<typeof startUpstream>;
  beforeAll(async () => {
    upstream = startUpstream();
    await new Promise<void>((r) => upstream.server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(upstream.server.address() as AddressInfo).port}`;
    t = await createTestApp({ outboundAllowlist: '127.0.0.1' });
    const admin = (method: 'PUT' | 'POST', url: string, payload: object) =>
      t.app.inject({ method, url, headers: { authorization: ADMIN }, payload });
    const repos: [string, object][] = [
      ['libs-release', { rclass: 'local', packageType: 'maven', handleSnapshots: false }],
      ['libs-snapshot', { rclass: 'local', packageType: 'maven', handleReleases: false }],
      ['libs-all', { rclass: 'local', packageType: 'maven' }],
      ['libs-other', { rclass: 'local', packageType: 'maven' }],
      ['central', { rclass: 'remote', packageType: 'maven', url: `${base}/maven2`, handleSnapshots: false }],
      [
        'maven-virtual',
        {
          rclass: 'virtual',
          packageType: 'maven',
          repositories: ['libs-all', 'libs-other', 'central'],
          defaultDeploymentRepo: 'libs-all',
        },
      ],
      ['gradle-local', { rclass: 'local', packageType: 'gradle' }],
      ['libs-mutable', { rclass: 'local', packageType: 'maven', allowReleaseRedeploy: true }],
      ['files', { rclass: 'local', packageType: 'generic' }],
    ];
    for (const [key, body] of repos) {
      const res = await admin('PUT', `/api/repositories/${key}`, body);
      expect(res.statusCode, res.body).toBe(201);
    }
    expect(
      (
        await admin('PUT', '/api/security/users/deployer', {
          email: 'deployer@example.com',
          password: 'Deployer-Pa55word!',
        })
      ).statusCode,
    ).toBe(201);
    const perm = await admin('PUT', '/api/security/permissions/deploy-only', {
      name: 'deploy-only',
      repo: {
        repositories: ['libs-all'],
        include_patterns: ['**'],
        exclude_patterns: [],
        actions: { users: { deployer: ['read', 'write'] } },
      },
    });
    expect(perm.statusCode, perm.body).toBeLessThan(300);
  });
  afterAll(async () => {
    await t?.close();
    await new Promise((r) => upstream?.server.close(r));
  });

  const put = (url: string, payload: Buffer | string, auth = ADMIN, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: 'PUT',
      url,
      headers: { authorization: auth, 'content-type': 'application/octet-stream', ...headers },
      payload,
    });
  const get = (url: string, auth = ADMIN) => t.app.inject({ url, headers: { authorization: auth } });
  const metadata = async (url: string) => {
    const res = await get(url);
    expect(res.statusCode, res.body).toBe(200);
    return parseMetadata(res.rawPayload);
  };

  it('issue 7: deploys a release by PUT and serves it, with maven-metadata.xml regenerated from the stored files', async () => {
    expect((await put(`/repository/libs-release/${LIB}/1.2.0/demo-lib-1.2.0.jar`, JAR)).statusCode).toBe(201);
    expect((await put(`/repository/libs-release/${LIB}/1.2.0/demo-lib-1.2.0.pom`, POM)).statusCode).toBe(201);
    // The client's own document is checked but not trusted: what is served comes from the stored files.
    const claim =
      '<metadata><groupId>x</groupId><artifactId>y</artifactId><versioning><versions><version>9.9</version></versions></versioning></metadata>';
    expect((await put(`/repository/libs-release/${LIB}/maven-metadata.xml`, claim)).statusCode).toBe(201);
    const res = await get(`/repository/libs-release/${LIB}/1.2.0/demo-lib-1.2.0.jar`);
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.equals(JAR)).toBe(true);
    expect(await metadata(`/repository/libs-release/${LIB}/maven-metadata.xml`)).toMatchObject({
      groupId: 'org.granary.samples',
      artifactId: 'demo-lib',
      versions: ['1.2.0'],
      release: '1.2.0',
      latest: '1.2.0',
    });
  });

  it('issue 7: .sha1, .md5, .sha256 and .sha512 are served for every file and match its bytes', async () => {
    for (const algorithm of ['sha1', 'md5', 'sha256', 'sha512']) {
      const res = await get(`/repository/libs-release/${LIB}/1.2.0/demo-lib-1.2.0.jar.${algorithm}`);
      expect(res.statusCode).toBe(200);
      expect(res.body).toBe(digest(algorithm, JAR));
    }
    const doc = await get(`/repository/libs-release/${LIB}/maven-metadata.xml`);
    expect((await get(`/repository/libs-release/${LIB}/maven-metadata.xml.sha1`)).body).toBe(
      digest('sha1', doc.rawPayload),
    );
    const head = await t.app.inject({
      method: 'HEAD',
      url: `/repository/libs-release/${LIB}/1.2.0/demo-lib-1.2.0.pom.sha256`,
      headers: { authorization: ADMIN },
    });
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-length']).toBe('64');
    expect((await get(`/repository/libs-release/${LIB}/1.2.0/absent.jar.sha1`)).statusCode).toBe(404);
  });

  it('issue 7: a repository that allows release redeploys replaces the release (the default refuses)', async () => {
    const at = `/repository/libs-mutable/${LIB}/1.2.0/demo-lib-1.2.0.jar`;
    expect((await put(at, JAR)).statusCode).toBe(201);
    expect((await put(at, Buffer.from('rebuilt'))).statusCode).toBe(201);
    expect((await get(at)).body).toBe('rebuilt');
    const config = await t.app.inject({
      method: 'GET',
      url: '/api/repositories/libs-mutable',
      headers: { authorization: ADMIN },
    });
    expect(config.json().allowReleaseRedeploy).toBe(true);
  });

  it('issue 7: a checksum upload is verified against the stored file and never stored as a file; a wrong one → 409', async () => {
    const at = `/repository/libs-release/${LIB}/1.2.0/demo-lib-1.2.0.jar`;
    expect((await put(`${at}.sha1`, digest('sha1', JAR))).statusCode).toBe(201);
    expect((await put(`${at}.sha512`, `${digest('sha512', JAR)}  demo-lib-1.2.0.jar\n`)).statusCode).toBe(
      201,
    );
    const wrong = await put(`${at}.md5`, digest('md5', 'other bytes'));
    expect(wrong.statusCode).toBe(409);
    expect(wrong.body).toMatch(
      /Checksum mismatch: the md5 sent for '.*demo-lib-1.2.0.jar' is [0-9a-f]{32} but the stored file's is/,
    );
    expect(wrong.headers['content-type']).toMatch(/^text\/plain/);
    const malformed = await put(`${at}.sha1`, 'not-a-digest');
    expect(malformed.statusCode).toBe(400);
    expect(malformed.body).toMatch(/not a sha1 hex digest/);
    const early = await put(
      `/repository/libs-release/${LIB}/1.3.0/demo-lib-1.3.0.jar.sha1`,
      digest('sha1', JAR),
    );
    expect(early.statusCode).toBe(409);
    expect(early.body).toMatch(/deploy the file before its checksum/);
    // Nothing but the jar and the POM is stored for the version.
    const folder = await get(`/api/storage/libs-release/${LIB}/1.2.0`);
    expect(
      folder
        .json()
        .children.map((c: { uri: string }) => c.uri)
        .sort(),
    ).toEqual(['/demo-lib-1.2.0.jar', '/demo-lib-1.2.0.pom']);
  });

  it('issue 7: a release is never redeployed (409, with the reason in the status line); the stored bytes stay', async () => {
    const again = await put(
      `/repository/libs-release/${LIB}/1.2.0/demo-lib-1.2.0.jar`,
      Buffer.from('changed'),
    );
    expect(again.statusCode).toBe(409);
    expect(again.body).toMatch(/already exists in repository 'libs-release' and cannot be overwritten/);
    expect(again.raw.res.statusMessage).toMatch(/cannot be overwritten/);
    expect(
      (await get(`/repository/libs-release/${LIB}/1.2.0/demo-lib-1.2.0.jar`)).rawPayload.equals(JAR),
    ).toBe(true);
    // maven-metadata.xml and checksum files are exempt: every deploy sends them again.
    expect((await put(`/repository/libs-release/${LIB}/maven-metadata.xml`, '<metadata/>')).statusCode).toBe(
      201,
    );
    expect(
      (await put(`/repository/libs-release/${LIB}/1.2.0/demo-lib-1.2.0.jar.sha1`, digest('sha1', JAR)))
        .statusCode,
    ).toBe(201);
  });

  it('issue 7: release and snapshot policies (handleReleases, handleSnapshots) refuse with a clear message, storing nothing', async () => {
    const snap = await put(
      `/repository/libs-release/${LIB}/2.0-SNAPSHOT/demo-lib-2.0-20240101.101010-1.jar`,
      JAR,
    );
    expect(snap.statusCode).toBe(409);
    expect(snap.body).toMatch(
      /Repository 'libs-release' does not accept snapshots \(handleSnapshots is off\)/,
    );
    const rel = await put(`/repository/libs-snapshot/${LIB}/2.0/demo-lib-2.0.jar`, JAR);
    expect(rel.statusCode).toBe(409);
    expect(rel.body).toMatch(/does not accept releases \(handleReleases is off\)/);
    expect((await get(`/api/storage/libs-release/${LIB}/2.0-SNAPSHOT`)).statusCode).toBe(404);
    expect((await get(`/api/storage/libs-snapshot/${LIB}/2.0`)).statusCode).toBe(404);
  });

  it('issue 7: a POM with a DOCTYPE (XXE) or coordinates that do not match its path is refused, nothing stored', async () => {
    const xxe = `<?xml version="1.0"?><!DOCTYPE project [<!ENTITY x SYSTEM "file:///etc/passwd">]><project><groupId>org.granary.samples</groupId><artifactId>demo-lib</artifactId><version>3.0</version><description>&x;</description></project>`;
    const refused = await put(`/repository/libs-all/${LIB}/3.0/demo-lib-3.0.pom`, xxe);
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toMatch(/DOCTYPE and entity declarations are not allowed.*; nothing was stored/);
    expect(refused.body).not.toMatch(/root:/);
    const mismatch = await put(`/repository/libs-all/${LIB}/3.0/demo-lib-3.0.pom`, pomFor('3.1'));
    expect(mismatch.statusCode).toBe(409);
    expect(mismatch.body).toMatch(/coordinates org.granary.samples:demo-lib:3.1 do not match its path/);
    const badMeta = await put(
      `/repository/libs-all/${LIB}/maven-metadata.xml`,
      '<!DOCTYPE m SYSTEM "http://x/">\n<metadata/>',
    );
    expect(badMeta.statusCode).toBe(400);
    expect((await get(`/api/storage/libs-all/${LIB}/3.0`)).statusCode).toBe(404);
  });

  it('issue 7: concurrent snapshot deploys never lose a build: version metadata lists all of them, the newest as <snapshot>', async () => {
    const builds = Array.from({ length: 8 }, (_, i) => ({
      n: i + 1,
      ts: `20240501.1200${String(i).padStart(2, '0')}`,
    }));
    const dir = `/repository/libs-all/${LIB}/1.3-SNAPSHOT`;
    await Promise.all(
      builds.map(async ({ n, ts }) => {
        const base = `${dir}/demo-lib-1.3-${ts}-${n}`;
        expect((await put(`${base}.jar`, Buffer.from(`jar ${n}`), DEPLOYER)).statusCode).toBe(201);
        expect((await put(`${base}.pom`, pomFor('1.3-SNAPSHOT'), DEPLOYER)).statusCode).toBe(201);
        expect((await put(`${dir}/maven-metadata.xml`, '<metadata/>', DEPLOYER)).statusCode).toBe(201);
      }),
    );
    const doc = await metadata(`${dir}/maven-metadata.xml`);
    expect(doc.snapshot).toEqual({ timestamp: '20240501.120007', buildNumber: 8 });
    const jars = doc.snapshotVersions.filter((s) => s.extension === 'jar').map((s) => s.value);
    expect(jars).toEqual(builds.map((b) => `1.3-${b.ts}-${b.n}`).reverse());
    expect((await metadata(`/repository/libs-all/${LIB}/maven-metadata.xml`)).versions).toContain(
      '1.3-SNAPSHOT',
    );
    // A snapshot build may be replaced; the deployer (no delete permission) could rewrite the metadata.
    expect(
      (await put(`${dir}/demo-lib-1.3-20240501.120007-8.jar`, Buffer.from('rebuilt'), ADMIN)).statusCode,
    ).toBe(201);
  });

  it('a deployer without delete permission still cannot replace a release (issue 12 §13: the same bytes again succeed)', async () => {
    const at = `/repository/libs-all/${LIB}/1.0/demo-lib-1.0.jar`;
    expect((await put(at, JAR, DEPLOYER)).statusCode).toBe(201);
    expect((await put(at, JAR, DEPLOYER)).statusCode).toBe(201);
    expect((await put(at, Buffer.from('other bytes'), DEPLOYER)).statusCode).toBe(409);
    expect((await get(at)).rawPayload.equals(JAR)).toBe(true);
  });

  it('issue 12 §13: an identical re-deploy of a release is an idempotent success (same answer, nothing changed, no second event); other bytes stay 409', async () => {
    const at = `/repository/libs-release/${LIB}/2.0.0/demo-lib-2.0.0.jar`;
    const deployed = async () =>
      (await listEvents(t.app.granary.database.db)).filter(
        (e) => e.type === 'artifact.deployed' && e.payload.path === `${LIB}/2.0.0/demo-lib-2.0.0.jar`,
      ).length;
    const storage = () => get(`/api/storage/libs-release/${LIB}/2.0.0/demo-lib-2.0.0.jar`);
    const first = await put(at, JAR, ADMIN, { 'x-checksum-sha1': digest('sha1', JAR) });
    expect(first.statusCode, first.body).toBe(201);
    const before = (await storage()).json();
    expect(await deployed()).toBe(1);
    // A client's retry: the same bytes, with or without its checksum headers.
    const retries: Record<string, string>[] = [{}, { 'x-checksum-sha1': digest('sha1', JAR) }];
    for (const headers of retries) {
      const again = await put(at, JAR, ADMIN, headers);
      expect(again.statusCode, again.body).toBe(201);
      expect(again.json()).toEqual(first.json());
    }
    expect((await storage()).json()).toEqual(before);
    expect(await deployed()).toBe(1);
    // Different bytes are refused, announced or not, and the release stays.
    const other = Buffer.from('a rebuilt jar');
    const refused = await put(at, other);
    expect(refused.statusCode).toBe(409);
    expect(refused.body).toMatch(/already exists in repository 'libs-release' and cannot be overwritten/);
    const announced = await put(at, other, ADMIN, { 'x-checksum-sha1': digest('sha1', other) });
    expect(announced.statusCode).toBe(409);
    expect((await get(at)).rawPayload.equals(JAR)).toBe(true);
    expect(await deployed()).toBe(1);
  });

  it('issue 12 §13: a checksum deploy (X-Checksum-Deploy) of a release is idempotent for the same content, 409 for other content, 404 for unknown', async () => {
    const jar = `/repository/libs-release/${LIB}/2.1.0/demo-lib-2.1.0.jar`;
    const byChecksum = (url: string, sha1: string) =>
      put(url, '', ADMIN, { 'x-checksum-deploy': 'true', 'x-checksum-sha1': sha1 });
    expect((await put(jar, JAR)).statusCode).toBe(201);
    // The jar's content stored a second time without its bytes, at another release.
    const copy = `/repository/libs-release/${LIB}/2.2.0/demo-lib-2.2.0.jar`;
    const linked = await byChecksum(copy, digest('sha1', JAR));
    expect(linked.statusCode, linked.body).toBe(201);
    expect((await get(copy)).rawPayload.equals(JAR)).toBe(true);
    // Again: the same content is a success; the POM's (other stored content) a conflict.
    expect((await byChecksum(copy, digest('sha1', JAR))).statusCode).toBe(201);
    expect(
      (await put(`/repository/libs-release/${LIB}/2.1.0/demo-lib-2.1.0.pom`, pomFor('2.1.0'))).statusCode,
    ).toBe(201);
    const conflict = await byChecksum(copy, digest('sha1', pomFor('2.1.0')));
    expect(conflict.statusCode).toBe(409);
    expect((await get(copy)).rawPayload.equals(JAR)).toBe(true);
    expect(
      (await byChecksum(`/repository/libs-release/${LIB}/2.3.0/demo-lib-2.3.0.jar`, 'f'.repeat(40)))
        .statusCode,
    ).toBe(404);
  });

  it('deleting a snapshot build regenerates the metadata; deleting the last version removes it', async () => {
    const dir = `/repository/libs-all/${LIB}/1.3-SNAPSHOT`;
    for (const ext of ['jar', 'pom']) {
      const del = await t.app.inject({
        method: 'DELETE',
        url: `${dir}/demo-lib-1.3-20240501.120007-8.${ext}`,
        headers: { authorization: ADMIN },
      });
      expect(del.statusCode).toBe(204);
    }
    expect((await metadata(`${dir}/maven-metadata.xml`)).snapshot).toEqual({
      timestamp: '20240501.120006',
      buildNumber: 7,
    });
    const gone = await t.app.inject({ method: 'DELETE', url: dir, headers: { authorization: ADMIN } });
    expect(gone.statusCode).toBe(204);
    expect((await metadata(`/repository/libs-all/${LIB}/maven-metadata.xml`)).versions).toEqual(['1.0']);
  });

  it('issue 7: a virtual repository merges its members’ maven-metadata.xml, versions united and latest/release recomputed', async () => {
    expect(
      (await put(`/repository/libs-other/${LIB}/1.10/demo-lib-1.10.pom`, pomFor('1.10'))).statusCode,
    ).toBe(201);
    const url = `/repository/maven-virtual/${LIB}/maven-metadata.xml`;
    const merged = await get(url);
    expect(merged.statusCode).toBe(200);
    const doc = parseMetadata(merged.rawPayload);
    // The remote member's 0.8 and 0.9 are left out: local members hold this artifact (dependency confusion).
    expect(doc.versions).toEqual(['1.0', '1.10']);
    expect(doc).toMatchObject({ latest: '1.10', release: '1.10' });
    expect((await get(`${url}.sha1`)).body).toBe(digest('sha1', merged.rawPayload));
    // A deploy through the virtual repository lands in its default deployment repository.
    const deployed = await put(`/repository/maven-virtual/${LIB}/4.0/demo-lib-4.0.jar`, JAR);
    expect(deployed.statusCode).toBe(201);
    expect(deployed.json().repo).toBe('libs-all');
    expect((await metadata(`/repository/libs-all/${LIB}/maven-metadata.xml`)).versions).toEqual([
      '1.0',
      '4.0',
    ]);
    expect((await metadata(url)).versions).toEqual(['1.0', '1.10', '4.0']);
  });

  it('issue 7: a remote member’s metadata and artifacts resolve through the virtual repository, checksums computed from the bytes', async () => {
    const doc = await metadata(`/repository/maven-virtual/${REMOTE_LIB}/maven-metadata.xml`);
    expect(doc).toMatchObject({ versions: ['0.8', '0.9'], release: '0.9' });
    const jar = await get(`/repository/maven-virtual/${REMOTE_LIB}/0.9/remote-lib-0.9.jar`);
    expect(jar.rawPayload.equals(JAR)).toBe(true);
    expect((await get(`/repository/maven-virtual/${REMOTE_LIB}/0.9/remote-lib-0.9.jar.sha1`)).body).toBe(
      digest('sha1', JAR),
    );
    expect((await get(`/repository/central/${REMOTE_LIB}/0.9/remote-lib-0.9.jar.sha512`)).body).toBe(
      digest('sha512', JAR),
    );
    // Checksums are computed, never relayed: the upstream is asked for the jar's .sha1 once, to verify
    // the jar before caching it (issue 12 §4), and never for the others.
    expect(upstream.hits.filter((h) => h.endsWith('.sha1'))).toEqual([
      `/maven2/${REMOTE_LIB}/maven-metadata.xml.sha1`,
      `/maven2/${REMOTE_LIB}/0.9/remote-lib-0.9.jar.sha1`,
    ]);
    expect(upstream.hits.some((h) => h.endsWith('.sha512') || h.endsWith('.md5'))).toBe(false);
  });

  it('issue 7: a remote that does not handle snapshots never asks its upstream for one', async () => {
    const res = await get(`/repository/central/${LIB}/5.0-SNAPSHOT/demo-lib-5.0-20240101.000000-1.jar`);
    expect(res.statusCode).toBe(404);
    expect(res.body).toMatch(/does not serve snapshots/);
    expect(upstream.hits.some((h) => h.includes('5.0-SNAPSHOT'))).toBe(false);
  });

  it('an anonymous deploy is refused with 401 and a Basic challenge; nothing is stored', async () => {
    const res = await t.app.inject({
      method: 'PUT',
      url: `/repository/libs-all/${LIB}/6.0/demo-lib-6.0.pom`,
      payload: pomFor('6.0'),
    });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Basic/);
    expect((await get(`/api/storage/libs-all/${LIB}/6.0`)).statusCode).toBe(404);
  });

  it('gradle repositories speak the same protocol', async () => {
    const at = `/repository/gradle-local/${LIB}/1.0/demo-lib-1.0`;
    const module = {
      formatVersion: '1.1',
      component: { group: 'org.granary.samples', module: 'demo-lib', version: '1.0' },
      variants: [],
    };
    expect((await put(`${at}.module`, JSON.stringify(module))).statusCode).toBe(201);
    expect((await put(`${at}.pom`, pomFor('1.0'))).statusCode).toBe(201);
    // issue 12 §13: the same POM again is a retry's success; another POM for the release a conflict.
    expect((await put(`${at}.pom`, pomFor('1.0'))).statusCode).toBe(201);
    expect((await put(`${at}.pom`, `${pomFor('1.0')}\n`)).statusCode).toBe(409);
    expect((await metadata(`/repository/gradle-local/${LIB}/maven-metadata.xml`)).versions).toEqual(['1.0']);
  });

  it('spec 000 §7: ui/setMeUp/downloadBuildMaven answers a settings.xml for the chosen repositories', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/ui/api/v1/ui/setMeUp/downloadBuildMaven',
      headers: { authorization: ADMIN },
      payload: { release: 'maven-virtual', snapshot: 'libs-snapshot', mirrorAny: 'maven-virtual' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-disposition']).toBe('attachment; filename="settings.xml"');
    expect(res.body).toMatch(/<url>http:\/\/localhost[:0-9]*\/repository\/maven-virtual<\/url>/);
    expect(res.body).toContain('<id>libs-snapshot</id>');
    expect(res.body).toContain('<username>admin</username>');
    const wrongType = await t.app.inject({
      method: 'POST',
      url: '/ui/api/v1/ui/setMeUp/downloadBuildMaven',
      headers: { authorization: ADMIN },
      payload: { release: 'files' },
    });
    expect(wrongType.statusCode).toBe(400);
    expect(wrongType.json().errors[0].message).toMatch(/'files' is a generic repository, not a Maven one/);
    const hidden = await t.app.inject({
      method: 'POST',
      url: '/ui/api/v1/ui/setMeUp/downloadBuildMaven',
      payload: { release: 'libs-release' },
    });
    expect(hidden.statusCode).toBe(401);
  });

  it('spec 000 §7: ui/setMeUp/mavenDistributionManagement answers the POM section for the release and snapshot repositories', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/ui/api/v1/ui/setMeUp/mavenDistributionManagement',
      headers: { authorization: ADMIN },
      payload: { release: 'libs-release', snapshot: 'libs-snapshot' },
    });
    expect(res.statusCode, res.body).toBe(200);
    const xml: string = res.json().distributionManagement;
    expect(xml).toMatch(/<repository>\s*<id>libs-release<\/id>/);
    expect(xml).toMatch(
      /<snapshotRepository>\s*<id>libs-snapshot<\/id>[\s\S]*\/repository\/libs-snapshot<\/url>/,
    );
  });
});
