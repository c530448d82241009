// npm (issue 6, DESIGN.md S5/S6): publish 50 packages with the npm CLI and server side, and install a
// 50-package project with a cold cache (npm install, then npm ci from the lockfile), Granary side by
// side with Verdaccio 6.8 in the same run. Both authenticate with a token from their own `npm login`
// endpoint; Verdaccio uses its htpasswd plugin and no uplink.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { httpPublish } from '../../apps/server/src/formats/npm/test-support.ts';
import { cpuMs, freePort, startGranary, withPostgres } from '../lib/servers.ts';

const exec = promisify(execFile);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const PACKAGES = 50;
const VERDACCIO_VERSION = '6.8.0';

/** npm with no npm_config_* inherited from `npm run bench`, HOME in the scenario's folder. */
function npmEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k)) env[k] = v;
  return { ...env, HOME: home, npm_config_update_notifier: 'false', npm_config_fund: 'false' };
}

/** Verdaccio 6.8 from the npm registry, installed once into a temp folder (DESIGN.md: node-fetch override). */
async function installVerdaccio(): Promise<string> {
  const dir = path.join(os.tmpdir(), `granary-bench-verdaccio-${VERDACCIO_VERSION}`);
  const bin = path.join(dir, 'node_modules', 'verdaccio', 'bin', 'verdaccio');
  if (existsSync(bin)) return bin;
  await mkdir(dir, { recursive: true });
  await writeFile(
    path.join(dir, 'package.json'),
    JSON.stringify({
      name: 'verdaccio-peer',
      private: true,
      dependencies: { verdaccio: VERDACCIO_VERSION },
      overrides: { 'verdaccio-audit': { 'node-fetch': '2.7.0' } },
    }),
  );
  await exec('npm', ['install', '--no-audit', '--no-fund', '--loglevel', 'error'], {
    cwd: dir,
    env: npmEnv(dir),
    timeout: 600_000,
  });
  return bin;
}

interface Registry {
  name: string;
  /** registry URL with a trailing slash */
  registry: string;
  /** `Bearer …` for server-side publishes */
  authorization: string;
  stop(): Promise<void>;
}

async function waitFor(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${url}: exited early`);
    if (
      await fetch(url).then(
        (r) => r.status < 500,
        () => false,
      )
    )
      return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`no answer from ${url}`);
}

/** Signs in through the registry's own `npm login` endpoint (legacy couch): the token npm would save. */
async function npmLoginToken(registry: string, name: string, password: string): Promise<string> {
  const res = await fetch(`${registry}-/user/org.couchdb.user:${name}`, {
    method: 'PUT',
    headers: {
      'content-type': 'application/json',
      authorization: `Basic ${Buffer.from(`${name}:${password}`).toString('base64')}`,
    },
    body: JSON.stringify({ _id: `org.couchdb.user:${name}`, name, password, type: 'user', roles: [] }),
  });
  const body = (await res.json()) as { token?: string };
  if (!body.token) throw new Error(`${registry}: npm login gave no token (${res.status})`);
  return body.token;
}

async function startVerdaccio(dir: string): Promise<Registry> {
  const bin = await installVerdaccio();
  const port = await freePort();
  const config = path.join(dir, 'config.yaml');
  await writeFile(
    config,
    [
      `storage: ${path.join(dir, 'storage')}`,
      'auth:',
      '  htpasswd:',
      `    file: ${path.join(dir, 'htpasswd')}`,
      '    max_users: 10',
      'uplinks: {}',
      'packages:',
      "  '**':",
      '    access: $authenticated',
      '    publish: $authenticated',
      '    unpublish: $authenticated',
      'log: { type: stdout, format: pretty, level: error }',
      'max_body_size: 100mb',
    ].join('\n'),
  );
  const child = spawn(process.execPath, [bin, '--config', config, '--listen', `127.0.0.1:${port}`], {
    env: { ...npmEnv(dir) },
    stdio: 'ignore',
  });
  const base = `http://127.0.0.1:${port}`;
  await waitFor(`${base}/-/ping`, child);
  // Verdaccio creates the user on its first couch login (bcrypt in htpasswd, its default).
  const token = await npmLoginToken(`${base}/`, 'bench', 'bench-password-1');
  return {
    name: 'verdaccio',
    registry: `${base}/`,
    authorization: `Bearer ${token}`,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}

async function startGranaryNpm(env: NodeJS.ProcessEnv = {}): Promise<Registry & { pid: number }> {
  const granary = await startGranary(env);
  const admin = `Basic ${Buffer.from('admin:bench-password').toString('base64')}`;
  const res = await fetch(`${granary.url}/api/repositories/npm-local`, {
    method: 'PUT',
    headers: { authorization: admin, 'content-type': 'application/json' },
    body: JSON.stringify({ rclass: 'local', packageType: 'npm' }),
  });
  if (res.status !== 201) throw new Error(`npm repository not created: ${res.status}`);
  const registry = `${granary.url}/repository/npm-local/`;
  const token = await npmLoginToken(registry, 'admin', 'bench-password');
  return {
    name: 'granary',
    registry,
    authorization: `Bearer ${token}`,
    pid: granary.pid,
    stop: () => granary.stop(),
  };
}

function stats(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)]!, min: sorted[0]!, max: sorted.at(-1)! };
}

const secs = (s: { median: number; min: number; max: number }) =>
  `${s.median.toFixed(2)} s (${s.min.toFixed(2)}–${s.max.toFixed(2)})`;

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e9;
}

interface Workspace {
  dir: string;
  npmrc: string;
  npm(args: string[], cwd: string, cache: string): Promise<void>;
}

async function workspace(server: Registry, root: string): Promise<Workspace> {
  const dir = path.join(root, server.name);
  await mkdir(dir, { recursive: true });
  const npmrc = path.join(dir, 'npmrc');
  const token = server.authorization.replace(/^Bearer /, '');
  await writeFile(
    npmrc,
    `registry=${server.registry}\n${server.registry.replace(/^http:/, '')}:_authToken=${token}\n`,
  );
  return {
    dir,
    npmrc,
    async npm(args, cwd, cache) {
      await exec(
        'npm',
        [
          ...args,
          '--userconfig',
          npmrc,
          '--cache',
          cache,
          '--registry',
          server.registry,
          '--loglevel',
          'error',
        ],
        { cwd, env: npmEnv(dir), timeout: 600_000, maxBuffer: 16 * 1024 * 1024 },
      );
    },
  };
}

const names = (prefix: string) =>
  Array.from({ length: PACKAGES }, (_, i) => `${prefix}-${String(i).padStart(2, '0')}`);

/** S5: `npm publish` of 50 packages, one after the other, as a user would; a fresh version each run. */
async function cliPublish(ws: Workspace, run: number): Promise<number> {
  const dirs: string[] = [];
  for (const name of names('bench-cli')) {
    const dir = path.join(ws.dir, 'src', name, String(run));
    await mkdir(dir, { recursive: true });
    await writeFile(
      path.join(dir, 'package.json'),
      JSON.stringify({
        name,
        version: `1.0.${run}`,
        description: `${name} for the benchmark`,
        main: 'index.js',
      }),
    );
    await writeFile(path.join(dir, 'index.js'), `module.exports = ${JSON.stringify(name)};\n`);
    await writeFile(path.join(dir, 'README.md'), `# ${name}\n`);
    dirs.push(dir);
  }
  const cache = path.join(ws.dir, `cache-publish-${run}`);
  return timed(async () => {
    for (const dir of dirs) await ws.npm(['publish'], dir, cache);
  });
}

/** S5 server side: the same 50 publish documents sent over HTTP one after the other. */
async function serverPublish(server: Registry, run: number): Promise<number> {
  return timed(async () => {
    for (const name of names('bench-http')) {
      const res = await httpPublish(server.registry, server.authorization, {
        name,
        version: `1.0.${run}`,
        description: `${name} for the benchmark`,
      });
      if (res.status >= 300) throw new Error(`${server.name}: publish ${name} answered ${res.status}`);
    }
  });
}

/** S6: a project of 50 dependencies installed with a cold cache (no lockfile), then `npm ci` from its lockfile. */
async function install(ws: Workspace, run: number): Promise<{ install: number; ci: number }> {
  const project = path.join(ws.dir, `project-${run}`);
  await mkdir(project, { recursive: true });
  await writeFile(
    path.join(project, 'package.json'),
    JSON.stringify({
      name: 'bench-project',
      version: '1.0.0',
      private: true,
      dependencies: Object.fromEntries(names('bench-cli').map((n) => [n, '^1.0.0'])),
    }),
  );
  const installTime = await timed(() =>
    ws.npm(['install', '--no-audit', '--no-fund'], project, path.join(ws.dir, `cache-install-${run}`)),
  );
  await rm(path.join(project, 'node_modules'), { recursive: true, force: true });
  const ciTime = await timed(() =>
    ws.npm(['ci', '--no-audit', '--no-fund'], project, path.join(ws.dir, `cache-ci-${run}`)),
  );
  return { install: installTime, ci: ciTime };
}

/**
 * S5 server side on each database Granary runs on (issue 24: "measure PGlite vs PostgreSQL"): the
 * embedded one and PostgreSQL on loopback (`withPostgres`, when installed), each in a server of
 * its own, with the server's CPU per publish beside the wall time.
 */
async function publishOnEachDatabase(): Promise<void> {
  const measure = async (env: NodeJS.ProcessEnv) => {
    const server = await startGranaryNpm(env);
    try {
      // One untimed round first, as the comparison above runs after the CLI's publishes (a warm JIT).
      await serverPublish(server, RUNS);
      const wall: number[] = [];
      const cpu: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const before = cpuMs(server.pid);
        wall.push(await serverPublish(server, i));
        cpu.push((cpuMs(server.pid) - before) / PACKAGES);
      }
      return `${secs(stats(wall))}, server CPU ${stats(cpu).median.toFixed(0)} ms per publish`;
    } finally {
      await server.stop();
    }
  };
  console.log('  S5 publish ×50, server side, by database (must ≤ 0.5 s)');
  console.log(`    embedded (PGlite)  ${await measure({})}`);
  const skipped = await withPostgres(async (url) => {
    console.log(`    PostgreSQL         ${await measure({ GRANARY_DATABASE_URL: url })} (fsync off)`);
  });
  if (skipped) console.log(`    PostgreSQL skipped: ${skipped}`);
}

export async function run(): Promise<void> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'granary-bench-npm-'));
  const servers: Registry[] = [];
  try {
    servers.push(await startGranaryNpm(), await startVerdaccio(await mkdtemp(path.join(root, 'verdaccio-'))));
    const results = new Map<string, { cli: number[]; http: number[]; install: number[]; ci: number[] }>();
    for (const server of servers) {
      const ws = await workspace(server, root);
      const r = { cli: [] as number[], http: [] as number[], install: [] as number[], ci: [] as number[] };
      for (let i = 0; i < RUNS; i++) {
        r.cli.push(await cliPublish(ws, i));
        r.http.push(await serverPublish(server, i));
        const inst = await install(ws, i);
        r.install.push(inst.install);
        r.ci.push(inst.ci);
      }
      results.set(server.name, r);
    }
    const g = results.get('granary')!;
    const v = results.get('verdaccio')!;
    const line = (label: string, a: number[], b: number[], goal: string) => {
      const sa = stats(a);
      const sb = stats(b);
      console.log(`  ${label}`);
      console.log(`    granary    ${secs(sa)}`);
      console.log(`    verdaccio  ${secs(sb)}`);
      console.log(`    ratio      ${(sa.median / sb.median).toFixed(2)}× Verdaccio (${goal})`);
    };
    console.log(
      `\nS5/S6 npm, ${PACKAGES} packages, ${RUNS} runs each, token auth, Verdaccio ${VERDACCIO_VERSION} (htpasswd, no uplink)`,
    );
    line('S5 npm publish ×50, npm CLI sequential', g.cli, v.cli, 'goal ≤ 0.8×');
    line('S5 publish ×50, server side (HTTP PUT sequential)', g.http, v.http, 'goal ≤ 0.8×');
    line('S6 npm install of 50 dependencies, cold cache, no lockfile', g.install, v.install, 'goal ≤ 0.8×');
    line('S6 npm ci of 50 dependencies, cold cache', g.ci, v.ci, 'goal ≤ 0.8×');
    for (const s of servers.splice(0)) await s.stop();
    await publishOnEachDatabase();
  } finally {
    for (const s of servers) await s.stop().catch(() => {});
    await rm(root, { recursive: true, force: true });
  }
}
