// Go and Cargo resolution (issue 23): the time `go mod download` and `cargo fetch` take for a project
// with 30 dependencies through a Granary virtual repository, side by side with nginx serving the very
// same files as a static GOPROXY / sparse index (the bytes Granary answered, written to nginx's root).
// Each run starts with an empty module cache / cargo home, so every file is fetched. The clients run
// on the same 2 cores as the servers: their own work (unzipping, verifying) is in both columns.
// BENCH_RESOLVE_DEPS changes the count (30); BENCH_RUNS the runs per side (3).
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { makeCrate, publishBody } from '../../apps/server/src/formats/cargo/test-support.ts';
import { libraryZip } from '../../apps/server/src/formats/go/test-modules.ts';
import { startNginx } from '../lib/nginx.ts';
import { type RunningServer, startGranary } from '../lib/servers.ts';

const DEPS = Number(process.env.BENCH_RESOLVE_DEPS ?? 30);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const AUTH = `Basic ${Buffer.from('admin:bench-password').toString('base64')}`;

const has = (cmd: string) => !spawnSync(cmd, ['version'], { encoding: 'utf8' }).error;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function api(granary: RunningServer, method: string, p: string, body?: unknown) {
  const res = await fetch(`${granary.url}${p}`, {
    method,
    headers: {
      authorization: AUTH,
      ...(body instanceof Buffer ? {} : body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: body instanceof Buffer ? body : JSON.stringify(body) }),
  });
  if (!res.ok && res.status !== 404) throw new Error(`${method} ${p}: ${res.status} ${await res.text()}`);
  return res;
}

/** Runs `cmd` with `env` in `cwd`; its wall time in ms (throws with its output on failure). */
function timed(cmd: string, args: string[], cwd: string, env: Record<string, string>): number {
  const t0 = performance.now();
  const run = spawnSync(cmd, args, { cwd, env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8' });
  const ms = performance.now() - t0;
  if (run.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed:\n${run.stdout}\n${run.stderr}`);
  return ms;
}

/** Alternating runs (Granary, nginx, Granary, …): the medians and their ratio. */
function report(label: string, granaryRuns: number[], nginxRuns: number[]) {
  const g = median(granaryRuns);
  const n = median(nginxRuns);
  console.log(
    `  ${label.padEnd(28)} Granary ${(g / 1000).toFixed(2)} s (${granaryRuns.map((v) => (v / 1000).toFixed(2)).join(', ')})  nginx ${(n / 1000).toFixed(2)} s (${nginxRuns.map((v) => (v / 1000).toFixed(2)).join(', ')})  ratio ${(g / n).toFixed(2)}×`,
  );
}

async function goResolve(granary: RunningServer, work: string) {
  await api(granary, 'PUT', '/api/repositories/go-local', { rclass: 'local', packageType: 'go' });
  await api(granary, 'PUT', '/api/repositories/go-virtual', {
    rclass: 'virtual',
    packageType: 'go',
    repositories: ['go-local'],
  });
  // The go command sends credentials over HTTPS only: here Go reads anonymously (a permission target
  // for the user anonymous), as nginx serves everyone.
  await api(granary, 'PATCH', '/api/security/configuration', { anonymousAccess: true });
  await api(granary, 'PUT', '/api/security/permissions/bench-go-anonymous', {
    repo: {
      repositories: ['go-local', 'go-virtual'],
      include_patterns: ['**'],
      exclude_patterns: [],
      actions: { users: { anonymous: ['read'] } },
    },
  });
  const modules = Array.from(
    { length: DEPS },
    (_, i) => `bench.example/dep${String(i + 1).padStart(2, '0')}`,
  );
  const files: Record<string, Buffer> = {};
  for (const m of modules) {
    const zip = await libraryZip(m, 'v1.0.0');
    const put = await api(granary, 'PUT', `/repository/go-local/${m}/@v/v1.0.0.zip`, zip);
    if (put.status !== 201 && put.status !== 200) throw new Error(`deploy ${m}: ${put.status}`);
    // nginx serves the bytes Granary answers through the virtual repository
    for (const f of ['@v/list', '@v/v1.0.0.info', '@v/v1.0.0.mod', '@v/v1.0.0.zip']) {
      const res = await api(granary, 'GET', `/repository/go-virtual/${m}/${f}`);
      if (!res.ok) throw new Error(`GET ${m}/${f}: ${res.status}`);
      files[`${m}/${f}`] = Buffer.from(await res.arrayBuffer());
    }
  }
  const nginx = await startNginx(files);
  if (!nginx) {
    console.log('  Go: nginx is not installed (bench/setup-nginx.sh)');
    return;
  }
  try {
    const app = path.join(work, 'go-app');
    await mkdir(app, { recursive: true });
    await writeFile(
      path.join(app, 'go.mod'),
      `module bench.example/app\n\ngo 1.19\n\nrequire (\n${modules.map((m) => `\t${m} v1.0.0\n`).join('')})\n`,
    );
    const run = (proxy: string, i: number) => {
      const cache = path.join(work, `gomodcache-${i}`);
      return timed('go', ['mod', 'download', 'all'], app, {
        HOME: work,
        GOPATH: path.join(work, 'gopath'),
        GOMODCACHE: cache,
        GOCACHE: path.join(work, 'gocache'),
        GOPROXY: proxy,
        GOSUMDB: 'off',
        GOFLAGS: '-mod=mod -modcacherw',
        GOTOOLCHAIN: 'local',
      });
    };
    const granaryProxy = `${granary.url}/repository/go-virtual`;
    const g: number[] = [];
    const n: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      g.push(run(granaryProxy, i * 2));
      n.push(run(nginx.url, i * 2 + 1));
    }
    report(`go mod download (${DEPS} modules, anonymous)`, g, n);
  } finally {
    await nginx.stop();
  }
}

async function cargoResolve(granary: RunningServer, work: string) {
  await api(granary, 'PUT', '/api/repositories/cargo-local', { rclass: 'local', packageType: 'cargo' });
  await api(granary, 'PUT', '/api/repositories/cargo-virtual', {
    rclass: 'virtual',
    packageType: 'cargo',
    repositories: ['cargo-local'],
  });
  const tokenRes = await api(granary, 'POST', '/api/security/tokens', {
    description: 'bench',
    scope: 'applied-permissions/admin',
  });
  const { access_token: token } = (await tokenRes.json()) as { access_token: string };
  const crates = Array.from({ length: DEPS }, (_, i) => `bench-dep${String(i + 1).padStart(2, '0')}`);
  const crateBytes: Record<string, Buffer> = {};
  for (const name of crates) {
    const crate = await makeCrate(name, '1.0.0');
    crateBytes[name] = crate;
    const res = await fetch(`${granary.url}/repository/cargo-local/api/v1/crates/new`, {
      method: 'PUT',
      headers: { authorization: token },
      body: publishBody({ name, vers: '1.0.0', description: `crate ${name}`, license: 'MIT' }, crate),
    });
    if (!res.ok) throw new Error(`publish ${name}: ${res.status} ${await res.text()}`);
  }
  // the index files Granary answers through the virtual repository, for nginx's static copy
  const indexPath = (name: string) =>
    name.length <= 2
      ? `${name.length}/${name}`
      : name.length === 3
        ? `3/${name[0]}/${name}`
        : `${name.slice(0, 2)}/${name.slice(2, 4)}/${name}`;
  const index: Record<string, Buffer> = {};
  for (const name of crates) {
    const res = await fetch(`${granary.url}/repository/cargo-virtual/${indexPath(name)}`, {
      headers: { authorization: token },
    });
    if (!res.ok) throw new Error(`index ${name}: ${res.status}`);
    index[indexPath(name)] = Buffer.from(await res.arrayBuffer());
  }
  const nginx = await startNginx((url) => ({
    'config.json': Buffer.from(JSON.stringify({ dl: `${url}/crates/{crate}/{version}/download` })),
    ...index,
    ...Object.fromEntries(crates.map((c) => [`crates/${c}/1.0.0/download`, crateBytes[c]!])),
  }));
  if (!nginx) {
    console.log('  Cargo: nginx is not installed (bench/setup-nginx.sh)');
    return;
  }
  try {
    const app = path.join(work, 'cargo-app');
    await mkdir(path.join(app, 'src'), { recursive: true });
    await writeFile(path.join(app, 'src/main.rs'), 'fn main() {}\n');
    const manifest = (registry: string) =>
      `[package]\nname = "bench-app"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n${crates.map((c) => `${c} = { version = "1.0.0", registry = "${registry}" }`).join('\n')}\n`;
    const run = (registry: 'granary' | 'nginx', i: number) => {
      const home = path.join(work, `cargo-home-${i}`);
      spawnSync('mkdir', ['-p', home]);
      spawnSync('sh', [
        '-c',
        `cat > ${home}/config.toml <<'EOF'
[registries.granary]
index = "sparse+${granary.url}/repository/cargo-virtual/"
credential-provider = "cargo:token"
[registries.nginx]
index = "sparse+${nginx.url}/"
[net]
offline = false
EOF
cat > ${home}/credentials.toml <<'EOF'
[registries.granary]
token = "${token}"
EOF`,
      ]);
      spawnSync('sh', ['-c', `rm -f ${app}/Cargo.lock`]);
      spawnSync('sh', ['-c', `cat > ${app}/Cargo.toml <<'EOF'\n${manifest(registry)}EOF`]);
      // rustup's cargo finds its toolchain in the real home's .rustup
      const rustup = process.env.RUSTUP_HOME ?? path.join(os.homedir(), '.rustup');
      return timed('cargo', ['fetch'], app, { HOME: work, CARGO_HOME: home, RUSTUP_HOME: rustup });
    };
    const g: number[] = [];
    const n: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      g.push(run('granary', i * 2));
      n.push(run('nginx', i * 2 + 1));
    }
    report(`cargo fetch (${DEPS} crates, token)`, g, n);
  } finally {
    await nginx.stop();
  }
}

export async function run(): Promise<void> {
  console.log(
    `\nR1 resolve ${DEPS} dependencies through a virtual repository vs nginx serving the same files (issue 23)`,
  );
  const work = await mkdtemp(path.join(os.tmpdir(), 'granary-bench-resolve-'));
  const granary = await startGranary();
  try {
    if (has('go')) await goResolve(granary, work);
    else console.log('  Go: the go command is not installed (Debian golang-go)');
    if (!spawnSync('cargo', ['--version']).error) await cargoResolve(granary, work);
    else console.log('  Cargo: cargo is not installed');
  } finally {
    await granary.stop();
    await rm(work, { recursive: true, force: true });
  }
}
