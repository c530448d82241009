// Packages (issue 8, DESIGN.md "Performance targets"): package search p95 < 20 ms with 100,000 packages
// and 1,000,000 versions, on the embedded database and on PostgreSQL. The index is seeded with bulk
// SQL before the server starts; then the console's calls are timed one at a time through HTTP: the
// first page of the list (default page size 100, name order) and a name search (a 3-character prefix,
// the spec's minimum), as the admin and as a user whose permission is per repository.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { type Database, openDatabase } from '../../apps/server/src/platform/db/index.ts';
import { freePort, ROOT, withPostgres } from '../lib/servers.ts';

const PACKAGES = Number(process.env.BENCH_PACKAGES ?? 100_000);
const VERSIONS_PER_PACKAGE = 10;
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);
const PASSWORD = 'bench-password';
const GOAL_MS = 20;
const WARM_UP = 50;

async function seed(db: Database): Promise<void> {
  await db.migrate();
  const t0 = Date.now();
  const d = db.db;
  await d.execute(sql`insert into repositories (key, rclass, package_type) values
    ('npm-bench', 'local', 'npm'), ('npm-bench-2', 'local', 'npm')`);
  // Names spread over the alphabet (like real registries), two repositories, 10 versions each.
  await d.execute(sql`
    insert into packages (repository_id, package_type, name, description, latest_version, versions_count, tags, licenses, created_at, modified_at)
    select (select id from repositories where key = case when i % 10 = 0 then 'npm-bench-2' else 'npm-bench' end),
      'npm', substr(md5(i::text), 1, 10) || '-' || i, 'package number ' || i, '1.0.9', ${VERSIONS_PER_PACKAGE},
      '["bench"]'::jsonb, '["MIT"]'::jsonb, now() - (i || ' minutes')::interval, now() - (i || ' seconds')::interval
    from generate_series(1, ${PACKAGES}) i`);
  await d.execute(sql`
    insert into package_versions (package_id, version, lead_path, size, release, licenses)
    select p.id, '1.0.' || v, p.name || '/-/' || p.name || '-1.0.' || v || '.tgz', 1000 + v, true, '["MIT"]'::jsonb
    from packages p, generate_series(0, ${VERSIONS_PER_PACKAGE - 1}) v`);
  await d.execute(sql`analyze`);
  console.log(
    `  seeded ${PACKAGES} packages, ${PACKAGES * VERSIONS_PER_PACKAGE} versions in ${Date.now() - t0} ms`,
  );
}

async function startServer(home: string, env: Record<string, string>) {
  const port = await freePort();
  let log = '';
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'apps/server/src/main.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      GRANARY_HOME: home,
      GRANARY_PORT: String(port),
      GRANARY_HOST: '127.0.0.1',
      GRANARY_ADMIN_PASSWORD: PASSWORD,
      GRANARY_LOG_STDOUT: 'false',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => (log += d));
  child.stderr!.on('data', (d) => (log += d));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited: ${log.slice(-3000)}`);
    if (
      await fetch(`${url}/api/system/ping`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (Date.now() > deadline) throw new Error(`no answer: ${log.slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}

const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

async function call(url: string, authorization: string, method: string, body?: unknown) {
  const res = await fetch(url, {
    method,
    headers: { authorization, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${text}`);
  return text;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const LIST = `query($n: String) { packages(name: $n) { edges { cursor node { id name packageType description
  versionsCount latestVersion modified stats { downloads } licenses tags } } pageInfo { hasNextPage endCursor } } }`;

async function measure(
  url: string,
  auth: string,
  variables: Record<string, unknown>,
  expectEdges: (n: number) => boolean,
) {
  const times: number[] = [];
  for (let i = 0; i < SAMPLES + WARM_UP; i++) {
    const t0 = performance.now();
    const text = await call(`${url}/ui/api/v1/packages`, auth, 'POST', { query: LIST, variables });
    const ms = performance.now() - t0;
    if (i === 0) {
      const body = JSON.parse(text);
      if (body.errors || !expectEdges(body.data.packages.edges.length))
        throw new Error(`unexpected answer: ${text.slice(0, 500)}`);
    }
    if (i >= WARM_UP) times.push(ms); // warm-up (V8 and GraphQL compilation) left out
  }
  return { p50: percentile(times, 50), p95: percentile(times, 95) };
}

async function runOn(engine: string, home: string, env: Record<string, string>) {
  const server = await startServer(home, env);
  try {
    const admin = basic('admin', PASSWORD);
    await call(`${server.url}/api/security/users/bench-reader`, admin, 'PUT', {
      password: 'Reader-pa55word!',
    });
    await call(`${server.url}/api/security/permissions/bench-read`, admin, 'PUT', {
      repo: {
        repositories: ['npm-bench'],
        include_patterns: ['**'],
        exclude_patterns: [],
        actions: { users: { 'bench-reader': ['read'] } },
      },
    });
    const reader = basic('bench-reader', 'Reader-pa55word!');
    const rows: [string, string, Record<string, unknown>, (n: number) => boolean][] = [
      ['first page (100, by name), admin', admin, {}, (n) => n === 100],
      ['name search "a3f", admin', admin, { n: 'a3f' }, (n) => n > 0],
      ['first page (100, by name), user', reader, {}, (n) => n === 100],
      ['name search "a3f", user', reader, { n: 'a3f' }, (n) => n > 0],
    ];
    for (const [label, auth, vars, check] of rows) {
      const r = await measure(server.url, auth, vars, check);
      console.log(
        `  ${engine.padEnd(10)} ${label.padEnd(36)} p50 ${r.p50.toFixed(1).padStart(6)} ms  p95 ${r.p95
          .toFixed(1)
          .padStart(6)} ms  ${r.p95 < GOAL_MS ? 'meets' : 'MISSES'} the ${GOAL_MS} ms goal`,
      );
    }
  } finally {
    await server.stop();
  }
}

export async function run(): Promise<void> {
  console.log(
    `\npackages: ${PACKAGES} packages × ${VERSIONS_PER_PACKAGE} versions, ${SAMPLES} sequential calls each (no peer: the goal is absolute)`,
  );
  // Embedded database: seeded in its data folder before the server opens it.
  const home = await mkdtemp(path.join(os.tmpdir(), 'granary-bench-packages-'));
  try {
    const db = await openDatabase({ dataDir: path.join(home, 'db') });
    await seed(db);
    await db.close();
    await runOn('embedded', home, {});
  } finally {
    await rm(home, { recursive: true, force: true });
  }

  // PostgreSQL on loopback, when installed.
  const skipped = await withPostgres(async (url) => {
    // The seed's bulk inserts run for minutes; the server's per-statement timeout is for requests.
    const db = await openDatabase({ url, timeoutMs: 30 * 60_000 });
    await seed(db);
    await db.close();
    const pgHome = await mkdtemp(path.join(os.tmpdir(), 'granary-bench-packages-pg-'));
    try {
      await runOn('postgresql', pgHome, { GRANARY_DATABASE_URL: url });
    } finally {
      await rm(pgHome, { recursive: true, force: true });
    }
  });
  if (skipped) console.log(`  postgresql skipped: ${skipped}`);
}
