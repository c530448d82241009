import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  basicAuth,
  createTestApp,
  TEST_ADMIN_PASSWORD,
  type TestApp,
  testEngine,
} from '../../testing/index.ts';
import { gradleModuleFile, publishLikeGradle, type Send } from './gradle-test-support.ts';
import { parseMetadata } from './index-builder.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
const hex = (algorithm: string, bytes: Buffer | string) => createHash(algorithm).update(bytes).digest('hex');
const GA = 'com/acme/gradle/greeter';

describe(`Gradle maven-publish and module metadata (issue 23, ${testEngine})`, () => {
  let t: TestApp;
  const get = (url: string, auth: string | null = ADMIN) =>
    t.app.inject({ method: 'GET', url, headers: auth ? { authorization: auth } : {} });
  const put = (url: string, payload: Buffer | string) =>
    t.app.inject({ method: 'PUT', url, headers: { authorization: ADMIN }, payload });
  const sendTo =
    (repo: string): Send =>
    async (method, path, body) => {
      const res = await t.app.inject({
        method,
        url: `/repository/${repo}/${path}`,
        headers: { authorization: ADMIN, ...(body ? { 'content-type': 'application/octet-stream' } : {}) },
        ...(body ? { payload: body } : {}),
      });
      return { status: res.statusCode, body: res.rawPayload };
    };

  beforeAll(async () => {
    t = await createTestApp();
    for (const [key, body] of [
      ['gradle-local', { rclass: 'local', packageType: 'gradle' }],
      ['gradle-snapshots', { rclass: 'local', packageType: 'gradle', handleReleases: false }],
    ] as const)
      expect(
        (
          await t.app.inject({
            method: 'PUT',
            url: `/api/repositories/${key}`,
            headers: { authorization: ADMIN },
            payload: body,
          })
        ).statusCode,
      ).toBe(201);
  });
  afterAll(async () => t?.close());

  it("issue 23 Gradle: a release published with maven-publish's request sequence (files, .module, POM, four checksums each, maven-metadata.xml) is stored, served and indexed", async () => {
    const jar = Buffer.from('PK\u0003\u0004 greeter 1.0 classes');
    const sources = Buffer.from('PK\u0003\u0004 greeter 1.0 sources');
    const log = await publishLikeGradle(sendTo('gradle-local'), {
      group: 'com.acme.gradle',
      module: 'greeter',
      version: '1.0',
      jar,
      sources,
      dependencies: ['com.acme.gradle:util:2.0'],
    });
    // every upload is accepted; the metadata Gradle reads before merging is already the stored files' own
    expect(log.filter((r) => r.method === 'PUT' && r.status !== 201)).toEqual([]);
    expect(log.filter((r) => r.method === 'GET')).toEqual([
      { method: 'GET', path: `${GA}/maven-metadata.xml`, status: 200 },
    ]);
    expect(log.filter((r) => r.method === 'PUT')).toHaveLength(5 * 5);

    const module = await get(`/repository/gradle-local/${GA}/1.0/greeter-1.0.module`);
    expect(module.statusCode).toBe(200);
    expect(module.json()).toMatchObject({
      formatVersion: '1.1',
      component: { group: 'com.acme.gradle', module: 'greeter', version: '1.0' },
    });
    for (const algorithm of ['sha1', 'md5', 'sha256', 'sha512'])
      expect((await get(`/repository/gradle-local/${GA}/1.0/greeter-1.0.module.${algorithm}`)).body).toBe(
        hex(algorithm, module.rawPayload),
      );
    expect((await get(`/repository/gradle-local/${GA}/1.0/greeter-1.0.jar`)).rawPayload).toEqual(jar);
    const meta = parseMetadata((await get(`/repository/gradle-local/${GA}/maven-metadata.xml`)).rawPayload);
    expect(meta.versions).toEqual(['1.0']);

    // the packages index: the POM stands for the version; its files include the .module
    const gql = async (query: string) =>
      (
        await t.app.inject({
          method: 'POST',
          url: '/ui/api/v1/packages',
          headers: { authorization: ADMIN },
          payload: { query },
        })
      ).json().data;
    const pkg = (
      await gql(
        '{ packages(package_type: ["gradle"]) { edges { node { id name latestVersion licenses } } } }',
      )
    ).packages.edges[0].node;
    expect(pkg).toMatchObject({ name: 'com.acme.gradle:greeter', latestVersion: '1.0', licenses: ['MIT'] });
    const version = (
      await gql(
        `{ version(packageId: ${JSON.stringify(pkg.id)}, name: "1.0") { files { name lead } dependencies { name range } } }`,
      )
    ).version;
    expect(
      version.files.map((f: { name: string; lead: boolean }) => `${f.name}${f.lead ? ' (lead)' : ''}`),
    ).toEqual(['greeter-1.0-sources.jar', 'greeter-1.0.jar', 'greeter-1.0.module', 'greeter-1.0.pom (lead)']);
    expect(version.dependencies).toEqual([{ name: 'com.acme.gradle:util', range: '2.0' }]);
  });

  it('issue 23 Gradle: a second release is merged into maven-metadata.xml from the stored files (Gradle reads, merges and PUTs it)', async () => {
    await publishLikeGradle(sendTo('gradle-local'), {
      group: 'com.acme.gradle',
      module: 'greeter',
      version: '1.1',
      jar: Buffer.from('PK 1.1'),
    });
    const meta = parseMetadata((await get(`/repository/gradle-local/${GA}/maven-metadata.xml`)).rawPayload);
    expect(meta.versions).toEqual(['1.0', '1.1']);
    expect(meta.release).toBe('1.1');
  });

  it('issue 23 Gradle: a snapshot publication gets timestamped files and version metadata naming the .module among its snapshotVersions', async () => {
    const log = await publishLikeGradle(
      sendTo('gradle-snapshots'),
      { group: 'com.acme.gradle', module: 'greeter', version: '2.0-SNAPSHOT', jar: Buffer.from('PK snap') },
      new Date('2026-11-25T08:00:00Z'),
    );
    expect(log.filter((r) => r.method === 'PUT' && r.status !== 201)).toEqual([]);
    const doc = (await get(`/repository/gradle-snapshots/${GA}/2.0-SNAPSHOT/maven-metadata.xml`)).body;
    expect(doc).toContain('<value>2.0-20261125.080000-1</value>');
    expect(doc).toMatch(/<extension>module<\/extension>\s*<value>2\.0-20261125\.080000-1<\/value>/);
    expect(
      (await get(`/repository/gradle-snapshots/${GA}/2.0-SNAPSHOT/greeter-2.0-20261125.080000-1.module`))
        .statusCode,
    ).toBe(200);
  });

  it('issue 23 Gradle: a .module that is not JSON, of an unknown format, for another component, or pointing outside its folder is refused; nothing is stored', async () => {
    const at = `/repository/gradle-local/${GA}/3.0/greeter-3.0.module`;
    const good = { group: 'com.acme.gradle', module: 'greeter', version: '3.0', jar: Buffer.from('x') };
    const cases: [string | Buffer, number, RegExp][] = [
      ['{"formatVersion": "1.1", "component": ', 400, /not a Gradle module file: not JSON/],
      [
        '{"formatVersion": "2.0", "component": {"group":"com.acme.gradle","module":"greeter","version":"3.0"}}',
        400,
        /formatVersion 2\.0 is not supported/,
      ],
      [
        gradleModuleFile({ ...good, version: '3.1' }, [{ name: 'greeter-3.1.jar', bytes: good.jar }]),
        409,
        /component com\.acme\.gradle:greeter:3\.1 does not match its path/,
      ],
      [
        gradleModuleFile(good, [{ name: 'greeter-3.0.jar', bytes: good.jar }]).replace(
          '"url": "greeter-3.0.jar"',
          '"url": "../../../../../evil/1.0/evil.jar"',
        ),
        400,
        /must name a file beside the module file/,
      ],
    ];
    for (const [body, status, message] of cases) {
      const res = await put(at, body);
      expect(res.statusCode, res.body).toBe(status);
      expect(res.body).toMatch(message);
      expect(res.body).toContain('nothing was stored');
    }
    expect((await get(at)).statusCode).toBe(404);
    expect((await get(`/api/storage/gradle-local/${GA}/3.0`)).statusCode).toBe(404);
  });
});
