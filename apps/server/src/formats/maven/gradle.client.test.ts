import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../testing/server-process.ts';
import { type GradlePublication, publishLikeGradle } from './gradle-test-support.ts';

const run = promisify(execFile);
const PASSWORD = 'Gradle-test-pa55!';

/**
 * Issue 23 acceptance, Gradle: Debian's `gradle` (4.4) resolves static and dynamic versions, with
 * transitive dependencies, through a virtual Gradle repository with credentials; the versions were
 * published with the request sequence of a current Gradle's `maven-publish` (Debian's Gradle has no
 * transport to publish with).
 */
describe('gradle (real client, issue 23)', () => {
  let server: TestServer;
  let work: string;
  const jars: Record<string, Buffer> = {};

  const publish = async (p: Omit<GradlePublication, 'jar'>) => {
    const jar = Buffer.from(`PK\u0003\u0004 ${p.module} ${p.version} (a jar's bytes for the copy check)`);
    jars[`${p.module}-${p.version}.jar`] = jar;
    const log = await publishLikeGradle(
      async (method, file, body) => {
        const res = await fetch(`${server.url}/repository/gradle-local/${file}`, {
          method,
          headers: { authorization: server.auth },
          ...(body ? { body } : {}),
        });
        return { status: res.status, body: Buffer.from(await res.arrayBuffer()) };
      },
      { ...p, jar },
    );
    expect(log.filter((r) => r.method === 'PUT' && r.status !== 201)).toEqual([]);
  };

  /** A build whose `fetch` task copies what the `deps` configuration resolves. */
  const gradle = async (deps: string[], password: string, home = 'gradle-home') => {
    const dir = await mkdtemp(path.join(work, 'project-'));
    await writeFile(
      path.join(dir, 'build.gradle'),
      `configurations { deps }
repositories {
  maven {
    url '${server.url}/repository/gradle-virtual'
    credentials { username 'admin'; password '${password}' }
  }
}
dependencies {
${deps.map((d) => `  deps '${d}'`).join('\n')}
}
task fetch(type: Copy) { from configurations.deps; into "$buildDir/fetched" }
`,
    );
    await writeFile(path.join(dir, 'settings.gradle'), "rootProject.name = 'consumer'\n");
    const result = await run(
      'gradle',
      ['--no-daemon', '--console=plain', '--gradle-user-home', path.join(work, home), '-p', dir, 'fetch'],
      { cwd: dir, env: { ...process.env, JAVA_OPTS: '-XX:TieredStopAtLevel=1' }, timeout: 180_000 },
    ).then(
      (r) => ({ ok: true, out: r.stdout + r.stderr }),
      (e: { stdout?: string; stderr?: string }) => ({ ok: false, out: `${e.stdout ?? ''}${e.stderr ?? ''}` }),
    );
    const fetched = path.join(dir, 'build/fetched');
    const files = result.ok ? (await readdir(fetched)).sort() : [];
    return { ...result, files, read: (name: string) => readFile(path.join(fetched, name)) };
  };

  beforeAll(async () => {
    work = await mkdtemp(path.join(os.tmpdir(), 'granary-gradle-'));
    server = await startTestServer(PASSWORD);
    await server.createRepository('gradle-local', { rclass: 'local', packageType: 'gradle' });
    await server.createRepository('gradle-virtual', {
      rclass: 'virtual',
      packageType: 'gradle',
      repositories: ['gradle-local'],
      defaultDeploymentRepo: 'gradle-local',
    });
    await publish({ group: 'com.acme.gradle', module: 'util', version: '2.0' });
    await publish({
      group: 'com.acme.gradle',
      module: 'greeter',
      version: '1.0',
      dependencies: ['com.acme.gradle:util:2.0'],
    });
    await publish({
      group: 'com.acme.gradle',
      module: 'greeter',
      version: '1.1',
      dependencies: ['com.acme.gradle:util:2.0'],
    });
    await publish({ group: 'com.acme.gradle', module: 'greeter', version: '2.0-rc1' });
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('issue 23 Gradle: `gradle` resolves a dynamic version (1.+ → 1.1, from maven-metadata.xml) and its transitive dependency through a virtual repository with credentials', async () => {
    const result = await gradle(['com.acme.gradle:greeter:1.+'], PASSWORD);
    expect(result.ok, result.out).toBe(true);
    expect(result.files).toEqual(['greeter-1.1.jar', 'util-2.0.jar']);
    expect(await result.read('greeter-1.1.jar')).toEqual(jars['greeter-1.1.jar']);
    expect(await result.read('util-2.0.jar')).toEqual(jars['util-2.0.jar']);
  }, 200_000);

  it('issue 23 Gradle: a static version resolves as published; a wrong password fails the build with the 401 named', async () => {
    const ok = await gradle(['com.acme.gradle:greeter:1.0'], PASSWORD);
    expect(ok.ok, ok.out).toBe(true);
    expect(ok.files).toEqual(['greeter-1.0.jar', 'util-2.0.jar']);
    // (a Gradle home of its own: the first one has these files cached)
    const refused = await gradle(['com.acme.gradle:greeter:1.0'], 'not-the-password', 'gradle-home-refused');
    expect(refused.ok).toBe(false);
    expect(refused.out).toMatch(/Could not resolve com\.acme\.gradle:greeter:1\.0/);
    expect(refused.out).toMatch(/401/);
  }, 200_000);
});
