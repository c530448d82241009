import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { QUICK_START_DEFAULTS, type QuickStartStatus } from '@granary/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerCommands, npmrc } from '../../../../console/src/features/onboarding/quickStartCommands.ts';
import { freePort, startTestServer, type TestServer } from '../../testing/server-process.ts';

/**
 * Acceptance (issue 17, spec 000 §3/§4 quick-start flags): the REAL npm and skopeo clients, configured from the
 * same command builders the console's wizard shows, against quick repositories of a real server process whose
 * upstreams are a closed loopback port (an offline machine): the trial content the server generated is what they
 * download, and every flag flips from their traffic within 2 s.
 */

const PASSWORD = 'Onboarding-pa55word!';
const P = '/ui/api/v1/ui/onboarding';

interface Run {
  code: number;
  out: string;
}
const run = (cmd: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) =>
  new Promise<Run>((resolve) => {
    execFile(cmd, args, { ...opts, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) =>
      resolve({ code: err ? 1 : 0, out: `${stdout}\n${stderr}` }),
    );
  });
const ok = async (cmd: string, args: string[], opts?: Parameters<typeof run>[2]) => {
  const r = await run(cmd, args, opts);
  expect(r.code, `${cmd} ${args.join(' ')}\n${r.out}`).toBe(0);
  return r;
};

describe('quick start with real clients on an offline server (issue 17 acceptance: npm, skopeo)', () => {
  let server: TestServer;
  let work: string;
  let token: string;
  // biome-ignore lint/suspicious/noExplicitAny: the JSON answers of several calls
  const api = async (method: string, url: string, body?: unknown): Promise<any> => {
    const res = await fetch(`${server.url}${url}`, {
      method,
      headers: { authorization: server.auth, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    expect(res.status, `${method} ${url}: ${res.status}`).toBeLessThan(300);
    return res.json();
  };
  /** Polls as the console does, but asserts the flag within 2 s of the client's request. */
  const flagWithin2s = async (repoKey: string, flag: keyof QuickStartStatus) => {
    const until = Date.now() + 2000;
    for (;;) {
      const status = (await api('GET', `${P}/quickstart/status?repoKey=${repoKey}`)) as QuickStartStatus;
      if (status[flag]) return status;
      if (Date.now() > until) throw new Error(`${flag} still false 2 s after the client's request`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  beforeAll(async () => {
    work = await mkdtemp(path.join(os.tmpdir(), 'granary-quickstart-'));
    const closed = `http://127.0.0.1:${await freePort()}`;
    server = await startTestServer(PASSWORD, {
      GRANARY_ONBOARDING_UPSTREAMS: `npm=${closed},docker=${closed}`,
      GRANARY_OUTBOUND_ALLOWLIST: '127.0.0.1',
    });
    const created = await api('POST', `${P}/createQuickRepos`, { repoTypes: ['npm', 'docker'] });
    expect(created.createdReposByTypes.npm.virtual).toBe('npm');
    expect(created.createdReposByTypes.docker.virtual).toBe('docker');
    token = (await api('POST', '/ui/api/v1/ui/userIdentifyToken/admin', { description: 'quick start' }))
      .reference_token;
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('spec 000 §4 Npm: npm install of jfrog-trial-sum-example through the virtual flips isDownloaded, npm publish of jfrog-npm-trial flips isPublished', async () => {
    const D = QUICK_START_DEFAULTS.npm;
    await api('POST', `${P}/quickstart/start`, {
      repoKey: 'npm',
      downloadPackageName: D.download.name,
      uploadPackageName: D.upload.name,
    });
    const ctx = { baseUrl: server.url, virtualRepo: 'npm', user: 'admin', token };
    const userconfig = path.join(work, '.npmrc');
    await writeFile(userconfig, npmrc(ctx as Parameters<typeof npmrc>[0]));
    const project = path.join(work, D.upload.name);
    await mkdir(project);
    await writeFile(
      path.join(project, 'package.json'),
      JSON.stringify({
        name: D.upload.name,
        version: `0.0.0-${Date.now()}`,
        dependencies: { [D.download.name]: '^1.0.0' },
      }),
    );
    const env: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k)) env[k] = v;
    Object.assign(env, {
      HOME: work,
      NO_UPDATE_NOTIFIER: '1',
      npm_config_fund: 'false',
      npm_config_audit: 'false',
    });
    const npm = (args: string[]) =>
      ok('npm', [...args, '--userconfig', userconfig, '--cache', path.join(work, 'cache')], {
        cwd: project,
        env,
      });
    await npm(['install']);
    const sum = createRequire(import.meta.url)(path.join(project, 'node_modules', D.download.name)) as (
      a: number,
      b: number,
    ) => number;
    expect(sum(1, 2)).toBe(3);
    expect(await flagWithin2s('npm', 'isDownloaded')).toMatchObject({ isPublished: false });
    // npm 11 refuses to publish a prerelease (the 0.0.0-{timestamp} the Install step sets) without a tag.
    await npm(['publish', '--tag', 'trial']);
    expect(await flagWithin2s('npm', 'isPublished')).toEqual({
      isAuthenticated: true,
      isDownloaded: true,
      isPublished: true,
    });
  }, 120_000);

  it('spec 000 §4 Docker: skopeo login = isAuthenticated, copy of hello-world:latest from the virtual = isDownloaded, push of 1.0.0 = isPublished', async () => {
    const D = QUICK_START_DEFAULTS.docker;
    await api('POST', `${P}/quickstart/start`, {
      repoKey: 'docker',
      downloadPackageName: D.download.name,
      downloadVersion: D.download.version,
      uploadPackageName: D.upload.name,
      uploadVersion: D.upload.version,
    });
    const commands = dockerCommands(
      { baseUrl: server.url, virtualRepo: 'docker', user: 'admin', token } as never,
      {
        image: D.download.name,
        pullTag: D.download.version,
        pushTag: D.upload.version,
      },
    );
    // `docker login HOST -u admin` / `docker pull HOST/docker/hello-world:latest`, run with skopeo.
    const [, , host] = commands.login.split(' ');
    const image = commands.pull.split(' ')[2]!.replace(/:[^:/]+$/, '');
    const authfile = path.join(work, 'auth.json');
    const skopeo = (...args: string[]) => ok('skopeo', ['--insecure-policy', ...args]);
    await skopeo('login', '--tls-verify=false', '--authfile', authfile, '-u', 'admin', '-p', token, host!);
    await flagWithin2s('docker', 'isAuthenticated');
    const dir = path.join(work, 'hello-world');
    await skopeo(
      'copy',
      '--src-tls-verify=false',
      '--authfile',
      authfile,
      `docker://${image}:${D.download.version}`,
      `dir:${dir}`,
    );
    expect(await flagWithin2s('docker', 'isDownloaded')).toMatchObject({ isPublished: false });
    await skopeo(
      'copy',
      '--dest-tls-verify=false',
      '--authfile',
      authfile,
      `dir:${dir}`,
      `docker://${image}:${D.upload.version}`,
    );
    expect(await flagWithin2s('docker', 'isPublished')).toEqual({
      isAuthenticated: true,
      isDownloaded: true,
      isPublished: true,
    });
  }, 120_000);
});
