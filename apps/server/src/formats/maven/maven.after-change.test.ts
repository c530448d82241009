import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  basicAuth,
  createTestApp,
  TEST_ADMIN_PASSWORD,
  type TestApp,
  testEngine,
} from '../../testing/index.ts';
import { parseMetadata } from './index-builder.ts';

/**
 * Issue 7 (Maven): maven-metadata.xml follows every change of the stored files, not only deploys — a
 * DELETE (the tree browser's too), `/api/move` and `/api/copy` leave the metadata listing exactly the
 * versions and snapshot builds still stored, like Artifactory's metadata recalculation.
 */

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
const CLEANER = basicAuth('cleaner', 'Cleaner-Pa55word!');
const LIB = 'org/granary/samples/tidy-lib';
const GROUP = 'org.granary.samples';
const digest = (algorithm: string, bytes: Buffer | string) =>
  createHash(algorithm).update(bytes).digest('hex');
const pomFor = (version: string) =>
  `<project><modelVersion>4.0.0</modelVersion><groupId>${GROUP}</groupId><artifactId>tidy-lib</artifactId><version>${version}</version></project>`;
const SNAPSHOT_BUILDS = ['3.0-20240601.100000-1', '3.0-20240602.110000-2'];

describe(`maven metadata after deletes, moves and copies (${testEngine})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    const admin = (url: string, payload: object) =>
      t.app.inject({ method: 'PUT', url, headers: { authorization: ADMIN }, payload });
    for (const [key, packageType] of [
      ['mvn-one', 'maven'],
      ['mvn-two', 'maven'],
      ['gradle-one', 'gradle'],
      ['gradle-two', 'gradle'],
    ] as const) {
      const res = await admin(`/api/repositories/${key}`, { rclass: 'local', packageType });
      expect(res.statusCode, res.body).toBe(201);
    }
    expect(
      (await admin('/api/security/users/cleaner', { email: 'c@example.com', password: 'Cleaner-Pa55word!' }))
        .statusCode,
    ).toBe(201);
    // May read and delete, never write: the regenerated metadata is the server's, not the cleaner's.
    const perm = await admin('/api/security/permissions/cleaner', {
      name: 'cleaner',
      repo: {
        repositories: ['mvn-one', 'mvn-two'],
        include_patterns: ['**'],
        exclude_patterns: [],
        actions: { users: { cleaner: ['read', 'delete'] } },
      },
    });
    expect(perm.statusCode, perm.body).toBeLessThan(300);
  });
  afterAll(async () => {
    await t?.close();
  });

  const request = (
    method: 'GET' | 'PUT' | 'DELETE' | 'POST',
    url: string,
    payload?: string | Buffer,
    auth = ADMIN,
  ) =>
    t.app.inject({
      method,
      url,
      headers: {
        authorization: auth,
        ...(payload === undefined ? {} : { 'content-type': 'application/octet-stream' }),
      },
      payload,
    });

  /** What `mvn deploy` sends for one file: the file, then its .sha1 and .md5. */
  const deployFile = async (repo: string, path: string, bytes: string | Buffer) => {
    const at = `/repository/${repo}/${path}`;
    expect((await request('PUT', at, bytes)).statusCode).toBe(201);
    for (const algorithm of ['sha1', 'md5'])
      expect((await request('PUT', `${at}.${algorithm}`, digest(algorithm, bytes))).statusCode).toBe(201);
  };
  /** One version as mvn deploys it: jar, POM, then the metadata documents it rewrote locally. */
  const deployVersion = async (repo: string, version: string, fileVersion = version) => {
    const dir = `${LIB}/${version}`;
    await deployFile(repo, `${dir}/tidy-lib-${fileVersion}.jar`, `jar ${fileVersion} in ${repo}`);
    await deployFile(repo, `${dir}/tidy-lib-${fileVersion}.pom`, pomFor(version));
    const clientDoc =
      '<metadata><versioning><versions><version>9.9</version></versions></versioning></metadata>';
    if (version !== fileVersion) await deployFile(repo, `${dir}/maven-metadata.xml`, clientDoc);
    await deployFile(repo, `${LIB}/maven-metadata.xml`, clientDoc);
  };

  /** The stored document, with each checksum sibling checked against its bytes; null when it is absent (and so are the siblings). */
  const metadataOf = async (repo: string, folder: string) => {
    const url = `/repository/${repo}/${folder}/maven-metadata.xml`;
    const res = await request('GET', url);
    if (res.statusCode === 404) {
      for (const algorithm of ['sha1', 'md5', 'sha256', 'sha512'])
        expect((await request('GET', `${url}.${algorithm}`)).statusCode, `${url}.${algorithm}`).toBe(404);
      return null;
    }
    expect(res.statusCode, res.body).toBe(200);
    for (const algorithm of ['sha1', 'md5', 'sha256', 'sha512']) {
      const sum = await request('GET', `${url}.${algorithm}`);
      expect(sum.statusCode).toBe(200);
      expect(sum.body, `${url}.${algorithm}`).toBe(digest(algorithm, res.rawPayload));
    }
    return parseMetadata(res.rawPayload);
  };
  const versionsOf = async (repo: string) => (await metadataOf(repo, LIB))?.versions ?? null;
  const snapshotValues = async (repo: string) =>
    (await metadataOf(repo, `${LIB}/3.0-SNAPSHOT`))?.snapshotVersions
      .filter((s) => s.extension === 'jar')
      .map((s) => s.value) ?? null;
  const move = (mode: 'move' | 'copy', from: string, to: string, auth = ADMIN) =>
    request('POST', `/api/${mode}/${from}?to=/${to}`, undefined, auth);

  it('issue 7: deleting a version folder (generic DELETE, as the tree browser sends it) leaves the metadata listing the versions still stored', async () => {
    await deployVersion('mvn-one', '1.0');
    await deployVersion('mvn-one', '2.0');
    for (const build of SNAPSHOT_BUILDS) await deployVersion('mvn-one', '3.0-SNAPSHOT', build);
    expect(await versionsOf('mvn-one')).toEqual(['1.0', '2.0', '3.0-SNAPSHOT']);
    expect(await snapshotValues('mvn-one')).toEqual([...SNAPSHOT_BUILDS].reverse());

    const del = await request('DELETE', `/repository/mvn-one/${LIB}/1.0`);
    expect(del.statusCode, del.body).toBe(204);
    expect(await metadataOf('mvn-one', LIB)).toMatchObject({
      versions: ['2.0', '3.0-SNAPSHOT'],
      release: '2.0',
      latest: '3.0-SNAPSHOT',
    });
    // The console names folders with a trailing slash.
    await deployVersion('mvn-one', '1.0');
    const slash = await request('DELETE', `/repository/mvn-one/${LIB}/1.0/`);
    expect(slash.statusCode, slash.body).toBe(204);
    expect(await versionsOf('mvn-one')).toEqual(['2.0', '3.0-SNAPSHOT']);
  });

  it('issue 7: deleting one snapshot build (a user who may delete but not deploy) leaves the others, the newest remaining as <snapshot>', async () => {
    for (const ext of ['jar', 'pom']) {
      const del = await request(
        'DELETE',
        `/repository/mvn-one/${LIB}/3.0-SNAPSHOT/tidy-lib-${SNAPSHOT_BUILDS[1]}.${ext}`,
        undefined,
        CLEANER,
      );
      expect(del.statusCode, del.body).toBe(204);
    }
    expect(await snapshotValues('mvn-one')).toEqual([SNAPSHOT_BUILDS[0]]);
    expect((await metadataOf('mvn-one', `${LIB}/3.0-SNAPSHOT`))?.snapshot).toEqual({
      timestamp: '20240601.100000',
      buildNumber: 1,
    });
    // Put the build back for the next tests.
    await deployVersion('mvn-one', '3.0-SNAPSHOT', SNAPSHOT_BUILDS[1]);
    expect(await snapshotValues('mvn-one')).toEqual([...SNAPSHOT_BUILDS].reverse());
  });

  it('issue 7: /api/move of a version to another maven repository corrects both repositories’ metadata', async () => {
    await deployVersion('mvn-two', '0.9');
    const res = await move('move', `mvn-one/${LIB}/2.0`, `mvn-two/${LIB}/2.0`);
    expect(res.statusCode, res.body).toBe(200);
    expect(await metadataOf('mvn-one', LIB)).toMatchObject({
      versions: ['3.0-SNAPSHOT'],
      release: undefined,
    });
    expect(await metadataOf('mvn-two', LIB)).toMatchObject({ versions: ['0.9', '2.0'], release: '2.0' });
    // A dry run changes nothing.
    expect(
      (await request('POST', `/api/move/mvn-two/${LIB}/0.9?to=/mvn-one/${LIB}/0.9&dry=1`)).statusCode,
    ).toBe(200);
    expect(await versionsOf('mvn-one')).toEqual(['3.0-SNAPSHOT']);
  });

  it('issue 7: moving one snapshot build and copying a snapshot version update the version-level metadata on both sides', async () => {
    for (const ext of ['jar', 'pom']) {
      const file = `${LIB}/3.0-SNAPSHOT/tidy-lib-${SNAPSHOT_BUILDS[1]}.${ext}`;
      expect((await move('move', `mvn-one/${file}`, `mvn-two/${file}`)).statusCode).toBe(200);
    }
    expect(await snapshotValues('mvn-one')).toEqual([SNAPSHOT_BUILDS[0]]);
    expect(await snapshotValues('mvn-two')).toEqual([SNAPSHOT_BUILDS[1]]);
    expect(await versionsOf('mvn-two')).toEqual(['0.9', '2.0', '3.0-SNAPSHOT']);

    // The copied folder carries mvn-one's version document: mvn-two's is rebuilt from what it now holds.
    const copy = await move('copy', `mvn-one/${LIB}/3.0-SNAPSHOT`, `mvn-two/${LIB}/3.0-SNAPSHOT`);
    expect(copy.statusCode, copy.body).toBe(200);
    expect(await snapshotValues('mvn-two')).toEqual([...SNAPSHOT_BUILDS].reverse());
    expect((await metadataOf('mvn-two', `${LIB}/3.0-SNAPSHOT`))?.snapshot?.buildNumber).toBe(2);
    expect(await snapshotValues('mvn-one')).toEqual([SNAPSHOT_BUILDS[0]]);
  });

  it('issue 7: deleting or moving away the last version removes the artifact-level metadata and its checksums', async () => {
    const away = await move('move', `mvn-one/${LIB}/3.0-SNAPSHOT`, `mvn-two/${LIB}/3.0-SNAPSHOT`);
    expect(away.statusCode, away.body).toBe(200);
    expect(await metadataOf('mvn-one', LIB)).toBeNull();
    expect(await metadataOf('mvn-one', `${LIB}/3.0-SNAPSHOT`)).toBeNull();
    expect(await snapshotValues('mvn-two')).toEqual([...SNAPSHOT_BUILDS].reverse());

    for (const [version, left] of [
      ['0.9', ['2.0', '3.0-SNAPSHOT']],
      ['3.0-SNAPSHOT', ['2.0']],
      ['2.0', null],
    ] as const) {
      const del = await request('DELETE', `/repository/mvn-two/${LIB}/${version}`, undefined, CLEANER);
      expect(del.statusCode, del.body).toBe(204);
      expect(await versionsOf('mvn-two')).toEqual(left);
    }
    const listing = await request('GET', `/api/storage/mvn-two/${LIB}`);
    expect(listing.statusCode === 404 || JSON.parse(listing.body).children.length === 0).toBe(true);
  });

  it('issue 7: gradle repositories (the same format) regenerate their metadata after a copy and a delete', async () => {
    await deployVersion('gradle-one', '1.0');
    await deployVersion('gradle-one', '1.1');
    expect((await move('copy', `gradle-one/${LIB}`, `gradle-two/${LIB}`)).statusCode).toBe(200);
    expect(await versionsOf('gradle-two')).toEqual(['1.0', '1.1']);
    expect((await request('DELETE', `/repository/gradle-two/${LIB}/1.1`)).statusCode).toBe(204);
    expect(await metadataOf('gradle-two', LIB)).toMatchObject({ versions: ['1.0'], latest: '1.0' });
    expect(await versionsOf('gradle-one')).toEqual(['1.0', '1.1']);
  });
});
