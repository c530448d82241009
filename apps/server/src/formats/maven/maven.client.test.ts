import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../testing/server-process.ts';
import { parseMetadata } from './index-builder.ts';

const run = promisify(execFile);
const PASSWORD = 'Maven-test-pa55!';
const UP_PASSWORD = 'Upstream-pa55word!';
/** Plugin versions Debian's packages install in /usr/share/maven-repo (no Maven Central here). */
const PLUGINS = {
  'maven-resources-plugin': '3.3.0',
  'maven-compiler-plugin': '3.10.1',
  'maven-surefire-plugin': '2.22.3',
  'maven-jar-plugin': '3.3.0',
  'maven-install-plugin': '3.1.0',
  'maven-deploy-plugin': '3.0.0',
};
const sha1 = (bytes: Buffer) => createHash('sha1').update(bytes).digest('hex');

type Running = TestServer;

const start = (password: string, env: Record<string, string> = {}) => startTestServer(password, env);
const stop = (server: Running | undefined) => server?.stop();
const createRepo = (server: Running, key: string, body: object) =>
  server.createRepository(key, { packageType: 'maven', ...body });

const pluginsXml = Object.entries(PLUGINS)
  .map(
    ([a, v]) =>
      `<plugin><groupId>org.apache.maven.plugins</groupId><artifactId>${a}</artifactId><version>${v}</version></plugin>`,
  )
  .join('\n      ');

/** A jar project: one class whose text names the build, so each build's jar differs. */
async function writeProject(
  dir: string,
  opts: {
    groupId: string;
    artifactId: string;
    version: string;
    build: string;
    extra?: string;
    source?: string;
  },
) {
  await mkdir(path.join(dir, 'src/main/java/demo'), { recursive: true });
  await writeFile(
    path.join(dir, 'pom.xml'),
    `<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>${opts.groupId}</groupId>
  <artifactId>${opts.artifactId}</artifactId>
  <version>${opts.version}</version>
  <packaging>jar</packaging>
  <name>${opts.artifactId}</name>
  <description>Issue 7 acceptance project</description>
  <licenses><license><name>Apache-2.0</name></license></licenses>
  <properties>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
    <maven.compiler.source>11</maven.compiler.source>
    <maven.compiler.target>11</maven.compiler.target>
  </properties>
  ${opts.extra ?? ''}
  <build>
    <plugins>
      ${pluginsXml}
    </plugins>
  </build>
</project>
`,
  );
  const cls = opts.artifactId.replace(/[^a-zA-Z]/g, '');
  await writeFile(
    path.join(dir, `src/main/java/demo/${cls}.java`),
    opts.source ??
      `package demo; public final class ${cls} { public static String build() { return "${opts.build}"; } }\n`,
  );
}

describe('mvn against Granary (issue 7 acceptance, real processes on loopback)', () => {
  let main: Running;
  let upstream: Running | undefined;
  let work: string;
  let settings: string;

  /** Runs mvn in a project with its own local repository (so every resolution asks the server). */
  const mvn = (project: string, ...args: string[]) =>
    run('mvn', ['-B', '-s', settings, `-Dmaven.repo.local=${path.join(project, '.m2')}`, ...args], {
      cwd: project,
      timeout: 300_000,
      maxBuffer: 16 * 1024 * 1024,
    });
  const fails = async (promise: Promise<unknown>) => {
    try {
      await promise;
    } catch (err) {
      return `${(err as { stdout?: string }).stdout ?? ''}${(err as Error).message}`;
    }
    throw new Error('expected mvn to fail');
  };
  const get = (url: string) => fetch(url, { headers: { authorization: main.auth } });
  const distribution = (server: Running, release: string, snapshot: string) => `<distributionManagement>
    <repository><id>${release}</id><url>${server.url}/repository/${release}</url></repository>
    <snapshotRepository><id>${snapshot}</id><url>${server.url}/repository/${snapshot}</url></snapshotRepository>
  </distributionManagement>`;

  beforeAll(async () => {
    work = await mkdtemp(path.join(os.tmpdir(), 'granary-mvn-'));
    [upstream, main] = await Promise.all([
      start(UP_PASSWORD),
      start(PASSWORD, { GRANARY_OUTBOUND_ALLOWLIST: '127.0.0.1' }),
    ]);
    await createRepo(upstream, 'upstream-local', { rclass: 'local' });
    await createRepo(main, 'libs-release', { rclass: 'local', handleSnapshots: false });
    await createRepo(main, 'libs-snapshot', { rclass: 'local', handleReleases: false });
    await createRepo(main, 'upstream-remote', {
      rclass: 'remote',
      url: `${upstream.url}/repository/upstream-local/`,
      username: 'admin',
      password: UP_PASSWORD,
    });
    await createRepo(main, 'maven-virtual', {
      rclass: 'virtual',
      repositories: ['libs-release', 'libs-snapshot', 'upstream-remote'],
    });
    // Plugins come from Debian's repository; the "granary" repository (the virtual one) is not mirrored.
    settings = path.join(work, 'settings.xml');
    const server = (id: string, password: string) =>
      `<server><id>${id}</id><username>admin</username><password>${password}</password></server>`;
    await writeFile(
      settings,
      `<settings>
  <servers>
    ${server('libs-release', PASSWORD)}
    ${server('libs-snapshot', PASSWORD)}
    ${server('granary', PASSWORD)}
    ${server('upstream-local', UP_PASSWORD)}
  </servers>
  <mirrors>
    <mirror><id>debian</id><mirrorOf>*,!granary</mirrorOf><url>file:///usr/share/maven-repo</url></mirror>
  </mirrors>
</settings>
`,
    );
  }, 600_000);
  afterAll(async () => {
    await Promise.all([stop(main), stop(upstream)]);
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('issue 7: mvn deploys a release; the jar, its POM and maven-metadata.xml are served, .sha1 files match the bytes', async () => {
    const lib = path.join(work, 'lib-release');
    await writeProject(lib, {
      groupId: 'org.granary.it',
      artifactId: 'demo-lib',
      version: '1.0.0',
      build: 'release',
      extra: distribution(main, 'libs-release', 'libs-snapshot'),
    });
    await mvn(lib, 'deploy');
    const base = `${main.url}/repository/libs-release/org/granary/it/demo-lib`;
    const local = await readFile(path.join(lib, 'target/demo-lib-1.0.0.jar'));
    const served = Buffer.from(await (await get(`${base}/1.0.0/demo-lib-1.0.0.jar`)).arrayBuffer());
    expect(served.equals(local)).toBe(true);
    for (const file of ['1.0.0/demo-lib-1.0.0.jar', '1.0.0/demo-lib-1.0.0.pom', 'maven-metadata.xml']) {
      const bytes = Buffer.from(await (await get(`${base}/${file}`)).arrayBuffer());
      expect(await (await get(`${base}/${file}.sha1`)).text()).toBe(sha1(bytes));
    }
    const doc = parseMetadata(Buffer.from(await (await get(`${base}/maven-metadata.xml`)).arrayBuffer()));
    expect(doc).toMatchObject({
      groupId: 'org.granary.it',
      artifactId: 'demo-lib',
      versions: ['1.0.0'],
      release: '1.0.0',
    });
  }, 300_000);

  it('issue 7: a second deploy of the release is refused (409) and the first jar stays', async () => {
    const lib = path.join(work, 'lib-release');
    const jarUrl = `${main.url}/repository/libs-release/org/granary/it/demo-lib/1.0.0/demo-lib-1.0.0.jar`;
    const before = Buffer.from(await (await get(jarUrl)).arrayBuffer());
    await writeFile(
      path.join(lib, 'src/main/java/demo/demolib.java'),
      'package demo; public final class demolib { public static String build() { return "changed"; } }\n',
    );
    const out = await fails(mvn(lib, 'deploy'));
    expect(out).toMatch(/409/);
    expect(out).toMatch(/cannot be overwritten/);
    const after = Buffer.from(await (await get(jarUrl)).arrayBuffer());
    expect(after.equals(before)).toBe(true);
    expect((await readFile(path.join(lib, 'target/demo-lib-1.0.0.jar'))).equals(before)).toBe(false);
  }, 300_000);

  it('issue 7: a snapshot to the release repository is refused by its policy, with the reason', async () => {
    const snap = path.join(work, 'lib-wrong-policy');
    await writeProject(snap, {
      groupId: 'org.granary.it',
      artifactId: 'demo-lib',
      version: '9.0.0-SNAPSHOT',
      build: 'x',
      // Both deployment repositories point at the release repository.
      extra: distribution(main, 'libs-release', 'libs-release'),
    });
    const out = await fails(mvn(snap, 'deploy'));
    expect(out).toMatch(/does not accept snapshots/);
  }, 300_000);

  it('issue 7: mvn deploys two snapshots; the snapshot metadata shows both builds, the newest as <snapshot>', async () => {
    const lib = path.join(work, 'lib-snapshot');
    for (const build of ['snapshot-one', 'snapshot-two']) {
      await writeProject(lib, {
        groupId: 'org.granary.it',
        artifactId: 'demo-lib',
        version: '1.1.0-SNAPSHOT',
        build,
        extra: distribution(main, 'libs-release', 'libs-snapshot'),
      });
      await mvn(lib, 'deploy');
    }
    const dir = `${main.url}/repository/libs-snapshot/org/granary/it/demo-lib/1.1.0-SNAPSHOT`;
    const bytes = Buffer.from(await (await get(`${dir}/maven-metadata.xml`)).arrayBuffer());
    expect(await (await get(`${dir}/maven-metadata.xml.sha1`)).text()).toBe(sha1(bytes));
    const doc = parseMetadata(bytes);
    expect(doc.snapshot?.buildNumber).toBe(2);
    const jars = doc.snapshotVersions
      .filter((s) => s.extension === 'jar' && !s.classifier)
      .map((s) => s.value);
    expect(jars).toHaveLength(2);
    expect(jars[0]).toBe(`1.1.0-${doc.snapshot?.timestamp}-2`);
    expect(jars[1]).toMatch(/^1\.1\.0-\d{8}\.\d{6}-1$/);
    for (const value of jars) {
      const jar = Buffer.from(await (await get(`${dir}/demo-lib-${value}.jar`)).arrayBuffer());
      expect(await (await get(`${dir}/demo-lib-${value}.jar.sha1`)).text()).toBe(sha1(jar));
    }
    const ga = parseMetadata(
      Buffer.from(
        await (
          await get(`${main.url}/repository/libs-snapshot/org/granary/it/demo-lib/maven-metadata.xml`)
        ).arrayBuffer(),
      ),
    );
    expect(ga.versions).toEqual(['1.1.0-SNAPSHOT']);
  }, 300_000);

  it('issue 7: a second project resolves the release (local member), the newest snapshot and a library of the upstream Granary (remote member) through a virtual repository', async () => {
    const util = path.join(work, 'util');
    await writeProject(util, {
      groupId: 'org.granary.upstream',
      artifactId: 'util',
      version: '2.0',
      build: 'upstream',
      extra: distribution(upstream!, 'upstream-local', 'upstream-local'),
    });
    await mvn(util, 'deploy');

    const app = path.join(work, 'app');
    const dep = (g: string, a: string, v: string) =>
      `<dependency><groupId>${g}</groupId><artifactId>${a}</artifactId><version>${v}</version></dependency>`;
    await writeProject(app, {
      groupId: 'org.granary.it',
      artifactId: 'app',
      version: '1.0',
      build: 'app',
      extra: `<repositories>
    <repository>
      <id>granary</id>
      <url>${main.url}/repository/maven-virtual</url>
      <releases><checksumPolicy>fail</checksumPolicy></releases>
      <snapshots><enabled>true</enabled><checksumPolicy>fail</checksumPolicy></snapshots>
    </repository>
  </repositories>
  <dependencies>
    ${dep('org.granary.it', 'demo-lib', '1.0.0')}
    ${dep('org.granary.upstream', 'util', '2.0')}
  </dependencies>`,
      source:
        'package demo; public final class app { public static String all() { return demo.demolib.build() + demo.util.build(); } }\n',
    });
    const out = await mvn(app, 'compile');
    expect(out.stdout).toMatch(/BUILD SUCCESS/);
    const m2 = path.join(app, '.m2');
    const resolved = await readFile(path.join(m2, 'org/granary/it/demo-lib/1.0.0/demo-lib-1.0.0.jar'));
    const served = Buffer.from(
      await (
        await get(`${main.url}/repository/maven-virtual/org/granary/it/demo-lib/1.0.0/demo-lib-1.0.0.jar`)
      ).arrayBuffer(),
    );
    expect(resolved.equals(served)).toBe(true);
    const utilJar = await readFile(path.join(m2, 'org/granary/upstream/util/2.0/util-2.0.jar'));
    expect(utilJar.equals(await readFile(path.join(util, 'target/util-2.0.jar')))).toBe(true);
    // The remote cached what it fetched from the upstream Granary.
    expect(
      (await get(`${main.url}/api/storage/upstream-remote-cache/org/granary/upstream/util/2.0/util-2.0.jar`))
        .status,
    ).toBe(200);

    // The snapshot resolves to the newest build.
    await writeProject(app, {
      groupId: 'org.granary.it',
      artifactId: 'app',
      version: '1.0',
      build: 'app',
      extra: `<repositories><repository><id>granary</id><url>${main.url}/repository/maven-virtual</url>
      <snapshots><enabled>true</enabled><checksumPolicy>fail</checksumPolicy></snapshots></repository></repositories>
  <dependencies>${dep('org.granary.it', 'demo-lib', '1.1.0-SNAPSHOT')}</dependencies>`,
      source:
        'package demo; public final class app { public static String all() { return demo.demolib.build(); } }\n',
    });
    await mvn(app, 'compile');
    const snapshotJar = await readFile(
      path.join(m2, 'org/granary/it/demo-lib/1.1.0-SNAPSHOT/demo-lib-1.1.0-SNAPSHOT.jar'),
    );
    const dir = `${main.url}/repository/maven-virtual/org/granary/it/demo-lib/1.1.0-SNAPSHOT`;
    const [newest, older] = parseMetadata(
      Buffer.from(await (await get(`${dir}/maven-metadata.xml`)).arrayBuffer()),
    )
      .snapshotVersions.filter((v) => v.extension === 'jar')
      .map((v) => v.value);
    const jarOf = async (value?: string) =>
      Buffer.from(await (await get(`${dir}/demo-lib-${value}.jar`)).arrayBuffer());
    expect(snapshotJar.equals(await jarOf(newest))).toBe(true);
    expect(snapshotJar.equals(await jarOf(older))).toBe(false);
  }, 600_000);

  it('issue 7: after deletes in the tree browser, mvn resolves what is left through the regenerated metadata and fails cleanly on what went', async () => {
    // A newer release, then the newest release and the newest snapshot build are deleted.
    const lib = path.join(work, 'lib-release-2');
    await writeProject(lib, {
      groupId: 'org.granary.it',
      artifactId: 'demo-lib',
      version: '1.0.1',
      build: 'release-two',
      extra: distribution(main, 'libs-release', 'libs-snapshot'),
    });
    await mvn(lib, 'deploy');
    const ga = 'org/granary/it/demo-lib';
    const del = (url: string) => fetch(url, { method: 'DELETE', headers: { authorization: main.auth } });
    expect((await del(`${main.url}/repository/libs-release/${ga}/1.0.1/`)).status).toBe(204);
    const snapshotDir = `${main.url}/repository/libs-snapshot/${ga}/1.1.0-SNAPSHOT`;
    const before = parseMetadata(
      Buffer.from(await (await get(`${snapshotDir}/maven-metadata.xml`)).arrayBuffer()),
    );
    const [newest, older] = before.snapshotVersions.filter((v) => v.extension === 'jar').map((v) => v.value);
    for (const ext of ['jar', 'pom'])
      expect((await del(`${snapshotDir}/demo-lib-${newest}.${ext}`)).status).toBe(204);

    const consumer = (
      dependencies: string,
    ) => `<repositories><repository><id>granary</id><url>${main.url}/repository/maven-virtual</url>
      <releases><checksumPolicy>fail</checksumPolicy></releases>
      <snapshots><enabled>true</enabled><checksumPolicy>fail</checksumPolicy></snapshots></repository></repositories>
  <dependencies>${dependencies}</dependencies>`;
    const dep = (v: string) =>
      `<dependency><groupId>org.granary.it</groupId><artifactId>demo-lib</artifactId><version>${v}</version></dependency>`;
    // A range resolves from maven-metadata.xml: a stale document would name the deleted 1.0.1.
    const app = path.join(work, 'app-after-delete');
    await writeProject(app, {
      groupId: 'org.granary.it',
      artifactId: 'app',
      version: '1.0',
      build: 'app',
      extra: consumer(dep('[1.0.0,1.0.9]')),
      source:
        'package demo; public final class app { public static String all() { return demo.demolib.build(); } }\n',
    });
    expect((await mvn(app, 'compile')).stdout).toMatch(/BUILD SUCCESS/);
    const m2 = path.join(app, '.m2', ga);
    const served = async (url: string) => Buffer.from(await (await get(url)).arrayBuffer());
    expect(
      (await readFile(path.join(m2, '1.0.0/demo-lib-1.0.0.jar'))).equals(
        await served(`${main.url}/repository/libs-release/${ga}/1.0.0/demo-lib-1.0.0.jar`),
      ),
    ).toBe(true);

    // The snapshot now resolves to the build left.
    const snap = path.join(work, 'app-snapshot-after-delete');
    await writeProject(snap, {
      groupId: 'org.granary.it',
      artifactId: 'app',
      version: '1.0',
      build: 'app',
      extra: consumer(dep('1.1.0-SNAPSHOT')),
      source:
        'package demo; public final class app { public static String all() { return demo.demolib.build(); } }\n',
    });
    await mvn(snap, 'compile');
    const jar = await readFile(path.join(snap, '.m2', ga, '1.1.0-SNAPSHOT/demo-lib-1.1.0-SNAPSHOT.jar'));
    expect(jar.equals(await served(`${snapshotDir}/demo-lib-${older}.jar`))).toBe(true);

    // The deleted release itself fails with Maven's own "could not find" (no checksum or parse error).
    await writeProject(snap, {
      groupId: 'org.granary.it',
      artifactId: 'app',
      version: '1.0',
      build: 'app',
      extra: consumer(dep('1.0.1')),
      source:
        'package demo; public final class app { public static String all() { return demo.demolib.build(); } }\n',
    });
    const out = await fails(mvn(snap, 'compile'));
    expect(out).toMatch(
      /Could not find artifact org\.granary\.it:demo-lib:jar:1\.0\.1|demo-lib:jar:1\.0\.1 .*not found|could not be resolved/i,
    );
    expect(out).not.toMatch(/checksum/i);
  }, 600_000);
});
