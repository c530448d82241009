import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../testing/server-process.ts';
import { TestReceiver } from '../webhooks/test-receiver.ts';

/**
 * Issue 19 acceptance (builds): the real npm client publishes two packages and real mvn deploys a
 * jar to a Granary process on loopback; hand-written build-info documents, as the JFrog CLI writes
 * them for an npm and a Maven build, are published unchanged; the artifacts link and carry
 * `build.name`; the version's Builds call answers; promotion moves them to release repositories;
 * a webhook receiver gets the promotion event.
 */
const run = promisify(execFile);
const PASSWORD = 'Builds-acceptance-Pa55!';
/** Plugin versions Debian's packages install in /usr/share/maven-repo (no Maven Central here). */
const PLUGINS = {
  'maven-resources-plugin': '3.3.0',
  'maven-compiler-plugin': '3.10.1',
  'maven-surefire-plugin': '2.22.3',
  'maven-jar-plugin': '3.3.0',
  'maven-install-plugin': '3.1.0',
  'maven-deploy-plugin': '3.0.0',
};

interface Checksums {
  sha1: string;
  sha256: string;
  md5: string;
}

describe('issue 19 acceptance: npm and Maven builds published, linked, promoted (real npm, mvn, webhook receiver)', () => {
  let server: TestServer;
  let work: string;
  const receiver = new TestReceiver();

  const api = (method: string, url: string, body?: unknown, contentType = 'application/json') =>
    fetch(`${server.url}${url}`, {
      method,
      headers: { authorization: server.auth, ...(body !== undefined ? { 'content-type': contentType } : {}) },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
  const checksums = async (repo: string, file: string): Promise<Checksums> => {
    const res = await api('GET', `/api/storage/${repo}/${file}`);
    expect(res.status, `${repo}/${file}`).toBe(200);
    return ((await res.json()) as { checksums: Checksums }).checksums;
  };

  beforeAll(async () => {
    work = await mkdtemp(path.join(os.tmpdir(), 'granary-builds-client-'));
    await receiver.start();
    server = await startTestServer(PASSWORD, { GRANARY_OUTBOUND_ALLOWLIST: '127.0.0.1' });
    await server.createRepository('npm-local', { rclass: 'local', packageType: 'npm' });
    await server.createRepository('npm-release', { rclass: 'local', packageType: 'npm' });
    await server.createRepository('libs-release', {
      rclass: 'local',
      packageType: 'maven',
      handleSnapshots: false,
    });
    await server.createRepository('libs-prod', {
      rclass: 'local',
      packageType: 'maven',
      handleSnapshots: false,
    });
    const hook = await api('POST', '/event/api/v1/subscriptions', {
      key: 'promotions',
      enabled: true,
      event_filter: { domain: 'promotion', event_types: ['promoted'], criteria: { anyBuild: true } },
      handlers: [{ handler_type: 'webhook', url: receiver.url }],
    });
    expect(hook.status, await hook.text()).toBe(201);
  }, 300_000);
  afterAll(async () => {
    await server?.stop();
    await receiver.stop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('issue 19: npm publish and mvn deploy, then the JFrog build-infos are accepted unchanged, link, promote, and the promotion webhook arrives', async () => {
    // --- the real npm client publishes a library and the app that depends on it
    const registry = `${server.url}/repository/npm-local/`;
    const npmrc = path.join(work, 'npmrc');
    await writeFile(
      npmrc,
      `${registry.replace(/^http:/, '')}:_auth=${Buffer.from(`admin:${PASSWORD}`).toString('base64')}\n`,
    );
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: work, NO_UPDATE_NOTIFIER: '1' };
    for (const [name, deps] of [
      ['bdemo-lib', {}],
      ['bdemo-app', { 'bdemo-lib': '^1.0.0' }],
    ] as const) {
      const dir = path.join(work, name);
      await mkdir(dir, { recursive: true });
      await writeFile(
        path.join(dir, 'package.json'),
        JSON.stringify({ name, version: '1.0.0', dependencies: deps }),
      );
      await writeFile(path.join(dir, 'index.js'), `module.exports = '${name}';\n`);
      await run(
        'npm',
        ['publish', '--registry', registry, '--userconfig', npmrc, '--cache', path.join(work, 'cache')],
        {
          cwd: dir,
          env,
          timeout: 180_000,
        },
      );
    }
    const appTgz = 'bdemo-app/-/bdemo-app-1.0.0.tgz';
    const libTgz = 'bdemo-lib/-/bdemo-lib-1.0.0.tgz';
    const app = await checksums('npm-local', appTgz);
    const lib = await checksums('npm-local', libTgz);

    // --- real mvn deploys a jar
    const project = path.join(work, 'core');
    await mkdir(path.join(project, 'src/main/java/demo'), { recursive: true });
    const plugins = Object.entries(PLUGINS)
      .map(
        ([a, v]) =>
          `<plugin><groupId>org.apache.maven.plugins</groupId><artifactId>${a}</artifactId><version>${v}</version></plugin>`,
      )
      .join('');
    await writeFile(
      path.join(project, 'pom.xml'),
      `<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>org.acme</groupId><artifactId>bdemo-core</artifactId><version>1.0.0</version><packaging>jar</packaging>
  <properties><project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
    <maven.compiler.source>11</maven.compiler.source><maven.compiler.target>11</maven.compiler.target></properties>
  <distributionManagement><repository><id>libs-release</id><url>${server.url}/repository/libs-release</url></repository></distributionManagement>
  <build><plugins>${plugins}</plugins></build>
</project>
`,
    );
    await writeFile(
      path.join(project, 'src/main/java/demo/Core.java'),
      'package demo; public final class Core {}\n',
    );
    const settings = path.join(work, 'settings.xml');
    await writeFile(
      settings,
      `<settings><servers><server><id>libs-release</id><username>admin</username><password>${PASSWORD}</password></server></servers>
  <mirrors><mirror><id>debian</id><mirrorOf>*</mirrorOf><url>file:///usr/share/maven-repo</url></mirror></mirrors></settings>`,
    );
    await run(
      'mvn',
      ['-B', '-q', '-s', settings, `-Dmaven.repo.local=${path.join(project, '.m2')}`, 'deploy'],
      {
        cwd: project,
        timeout: 300_000,
        maxBuffer: 16 * 1024 * 1024,
      },
    );
    const jarPath = 'org/acme/bdemo-core/1.0.0/bdemo-core-1.0.0.jar';
    const pomPath = 'org/acme/bdemo-core/1.0.0/bdemo-core-1.0.0.pom';
    const jar = await checksums('libs-release', jarPath);
    const pom = await checksums('libs-release', pomPath);

    // --- the build-info documents, as the JFrog CLI (npm) and the Maven extractor write them
    const npmBuild = {
      version: '1.0.1',
      name: 'web-app',
      number: '17',
      buildAgent: { name: 'GENERIC', version: '2.52.0' },
      agent: { name: 'jfrog-cli-go', version: '2.52.0' },
      started: '2026-03-01T09:30:12.345+0000',
      durationMillis: 61234,
      url: 'https://ci.example.com/job/web-app/17/',
      vcs: [
        {
          url: 'https://git.example.com/acme/web-app.git',
          revision: '6f1e2d3c4b5a69788796a5b4c3d2e1f0a9b8c7d6',
          branch: 'main',
          message: 'Release 1.0.0',
        },
      ],
      properties: {
        'buildInfo.env.CI': 'true',
        'buildInfo.env.NODE_VERSION': '20.19.0',
        'buildInfo.env.JFROG_CLI_BUILD_NAME': 'web-app',
      },
      modules: [
        {
          type: 'npm',
          id: 'bdemo-app:1.0.0',
          properties: {},
          artifacts: [
            {
              type: 'tgz',
              sha1: app.sha1,
              sha256: app.sha256,
              md5: app.md5,
              name: 'bdemo-app-1.0.0.tgz',
              path: appTgz,
              originalDeploymentRepo: 'npm-local',
            },
          ],
          dependencies: [
            {
              id: 'bdemo-lib:1.0.0',
              scopes: ['prod'],
              sha1: lib.sha1,
              sha256: lib.sha256,
              md5: lib.md5,
              requestedBy: [['bdemo-app:1.0.0']],
            },
            {
              id: 'js-tokens:4.0.0',
              scopes: ['prod'],
              sha1: '0123456789abcdef0123456789abcdef01234567',
              md5: '0123456789abcdef0123456789abcdef',
              requestedBy: [['bdemo-lib:1.0.0', 'bdemo-app:1.0.0']],
            },
          ],
        },
      ],
    };
    const mavenBuild = {
      properties: {
        'buildInfo.env.JAVA_HOME': '/usr/lib/jvm/java-17-openjdk-amd64',
        'buildInfo.env.MAVEN_OPTS': '-Xmx1g',
        'java.version': '17.0.10',
      },
      version: '1.0.1',
      name: 'core-lib',
      number: '42',
      type: 'MAVEN',
      buildAgent: { name: 'Maven', version: '3.8.7' },
      agent: { name: 'Jenkins', version: '2.440.1' },
      started: '2026-03-01T10:02:03.004+0100',
      durationMillis: 95432,
      principal: 'jenkins',
      artifactoryPrincipal: 'admin',
      url: 'https://jenkins.example.com/job/core-lib/42/',
      vcs: [{ url: 'https://git.example.com/acme/core.git', revision: 'a1b2c3d4', branch: 'release/1.0' }],
      licenseControl: { runChecks: false, includePublishedArtifacts: false, autoDiscover: false },
      buildRetention: { count: 10, deleteBuildArtifacts: false, buildNumbersNotToBeDiscarded: [] },
      modules: [
        {
          properties: { 'project.build.sourceEncoding': 'UTF-8' },
          type: 'maven',
          id: 'org.acme:bdemo-core:1.0.0',
          artifacts: [
            {
              type: 'jar',
              sha1: jar.sha1,
              sha256: jar.sha256,
              md5: jar.md5,
              name: 'bdemo-core-1.0.0.jar',
              path: jarPath,
            },
            {
              type: 'pom',
              sha1: pom.sha1,
              sha256: pom.sha256,
              md5: pom.md5,
              name: 'bdemo-core-1.0.0.pom',
              path: pomPath,
            },
          ],
          dependencies: [
            {
              type: 'jar',
              sha1: '4e031bb61df09069aeb2bffb4019e7a5034a4ee0',
              md5: '1f40fb782a4f2cf78f161d32670f7a3a',
              id: 'junit:junit:4.13.2',
              scopes: ['test'],
              requestedBy: [['org.acme:bdemo-core:1.0.0']],
            },
            {
              type: 'jar',
              sha1: '42a25dc3219429f0e5d060061f71acb49bf010a0',
              md5: '110ce5d4e5f6f5ab0f8a1bb0f5fd3d3c',
              id: 'org.hamcrest:hamcrest-core:1.3',
              scopes: ['test'],
              requestedBy: [['junit:junit:4.13.2', 'org.acme:bdemo-core:1.0.0']],
            },
          ],
        },
      ],
      issues: {
        tracker: { name: 'JIRA', version: '9.4.0' },
        aggregateBuildIssues: false,
        affectedIssues: [
          {
            key: 'CORE-12',
            url: 'https://jira.example.com/browse/CORE-12',
            summary: 'First release',
            aggregated: false,
          },
        ],
      },
    };
    for (const doc of [npmBuild, mavenBuild]) {
      const res = await api(
        'PUT',
        '/api/build',
        JSON.stringify(doc, null, 2),
        'application/vnd.org.jfrog.artifactory+json',
      );
      expect(res.status, await res.text()).toBe(204);
      const back = await api('GET', `/api/build/${doc.name}/${doc.number}`);
      expect(((await back.json()) as { buildInfo: unknown }).buildInfo).toEqual(doc);
    }

    // --- linked: properties on the stored files, and the version's Builds call
    for (const [repo, file, name, number] of [
      ['npm-local', appTgz, 'web-app', '17'],
      ['libs-release', jarPath, 'core-lib', '42'],
    ] as const) {
      const props = (await (await api('GET', `/api/storage/${repo}/${file}?properties`)).json()) as {
        properties: Record<string, string[]>;
      };
      expect(props.properties).toMatchObject({ 'build.name': [name], 'build.number': [number] });
    }
    const producedBy = await (await api('GET', `/ui/api/v1/builds?repoKey=npm-local&path=${appTgz}`)).json();
    expect(producedBy).toMatchObject({ builds: [{ name: 'web-app', number: '17', role: 'produced' }] });
    const usedBy = await (
      await api('GET', `/ui/api/v1/packages/builds?repoKey=npm-local&path=${libTgz}`)
    ).json();
    expect(usedBy).toMatchObject({ builds: [{ name: 'web-app', number: '17', role: 'used' }] });
    const details = (await (await api('GET', '/ui/api/v1/ui/builds/web-app/17')).json()) as {
      modules: {
        dependencies: { id: string; requestedBy: string[][]; link: unknown; vulnerabilities: unknown }[];
      }[];
    };
    expect(details.modules[0]!.dependencies.map((d) => [d.id, d.requestedBy, d.link])).toEqual([
      ['bdemo-lib:1.0.0', [['bdemo-app:1.0.0']], { repoKey: 'npm-local', path: libTgz }],
      ['js-tokens:4.0.0', [['bdemo-lib:1.0.0', 'bdemo-app:1.0.0']], null],
    ]);
    // the linked dependency is a package version: its vulnerability counts (none here); the unlinked one has none to show
    expect(details.modules[0]!.dependencies.map((d) => d.vulnerabilities)).toEqual([
      { critical: 0, high: 0, medium: 0, low: 0, unknown: 0 },
      null,
    ]);

    // --- promotion moves them to the release repositories; the webhook arrives
    const npmPromotion = await api('POST', '/api/build/promote/web-app/17', {
      status: 'released',
      comment: 'npm release',
      ciUser: 'ci',
      targetRepo: 'npm-release',
      copy: false,
    });
    expect(npmPromotion.status, await npmPromotion.clone().text()).toBe(200);
    expect((await api('GET', `/api/storage/npm-local/${appTgz}`)).status).toBe(404);
    expect((await api('GET', `/api/storage/npm-release/${appTgz}`)).status).toBe(200);
    // the real client installs the promoted package from the release repository
    const installer = path.join(work, 'installer');
    await mkdir(installer, { recursive: true });
    await writeFile(
      path.join(installer, 'package.json'),
      JSON.stringify({ name: 'installer', version: '0.0.0' }),
    );
    const releaseRegistry = `${server.url}/repository/npm-release/`;
    await writeFile(
      npmrc,
      `${releaseRegistry.replace(/^http:/, '')}:_auth=${Buffer.from(`admin:${PASSWORD}`).toString('base64')}\n`,
    );
    await run(
      'npm',
      [
        'view',
        'bdemo-app@1.0.0',
        'version',
        '--registry',
        releaseRegistry,
        '--userconfig',
        npmrc,
        '--cache',
        path.join(work, 'cache2'),
      ],
      { cwd: installer, env, timeout: 120_000 },
    ).then(({ stdout }) => expect(stdout.trim()).toBe('1.0.0'));

    const mavenPromotion = await api('POST', '/api/build/promote/core-lib/42', {
      status: 'released',
      targetRepo: 'libs-prod',
      copy: true,
    });
    expect(mavenPromotion.status, await mavenPromotion.clone().text()).toBe(200);
    for (const repo of ['libs-release', 'libs-prod'])
      expect((await api('GET', `/api/storage/${repo}/${jarPath}`)).status, repo).toBe(200);

    await receiver.waitFor(
      () => receiver.events('promotion.promoted').length >= 2,
      30_000,
      'two promotion events',
    );
    const hooks = receiver.events('promotion.promoted').map((e) => e.body.data as Record<string, unknown>);
    expect(hooks).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          build_name: 'web-app',
          build_number: '17',
          status: 'released',
          target_repo_key: 'npm-release',
        }),
        expect.objectContaining({ build_name: 'core-lib', build_number: '42', target_repo_key: 'libs-prod' }),
      ]),
    );
    const statuses = (
      (await (await api('GET', '/api/build/web-app/17')).json()) as { buildInfo: { statuses: unknown[] } }
    ).buildInfo.statuses;
    expect(statuses).toMatchObject([
      { status: 'released', comment: 'npm release', repository: 'npm-release', ciUser: 'ci' },
    ]);
  }, 900_000);
});
