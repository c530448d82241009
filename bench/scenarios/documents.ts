// Package documents (issue 24; DESIGN.md S1, S2, S8): npm packuments read with a token, Granary side by
// side with nginx serving the very bytes Granary answered (the static-file limit) in the same run.
//   S1  a ~1 KB packument (one version), authenticated (token), 10 connections
//   S2  a 146 KB packument (200 versions): full, and abbreviated with gzip (what `npm install` asks for)
//   S8  authenticated ÷ anonymous req/s on S1 (anonymous access on, read granted to anonymous)
// Each HTTP row: worse of fresh and after BENCH_IDLE_MS idle (an idle Node process shrinks its heap).
import { gzipSync } from 'node:zlib';
import { httpPublish } from '../../apps/server/src/formats/npm/test-support.ts';
import { fmtRate, LOAD_TOOL, measure as measureRate, reqPerSec, stats } from '../lib/load.ts';
import { startNginx } from '../lib/nginx.ts';
import { type RunningServer, rssMiB, startGranary } from '../lib/servers.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 30_000);
const VERSIONS = Number(process.env.BENCH_DOC_VERSIONS ?? 200);
const ADMIN = `Basic ${Buffer.from('admin:bench-password').toString('base64')}`;
const ABBREVIATED = 'application/vnd.npm.install-v1+json';

async function api(granary: RunningServer, method: string, path: string, body?: unknown): Promise<Response> {
  const res = await fetch(`${granary.url}${path}`, {
    method,
    headers: { authorization: ADMIN, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res;
}

const measure = (url: string, headers: Record<string, string>) =>
  measureRate(url, headers, { runs: RUNS, seconds: SECONDS, idleMs: IDLE_MS });

export async function run(): Promise<void> {
  const granary = await startGranary();
  let nginx: RunningServer | null = null;
  try {
    await api(granary, 'PUT', '/api/repositories/npm-docs', { rclass: 'local', packageType: 'npm' });
    const registry = `${granary.url}/repository/npm-docs/`;
    const login = await fetch(`${registry}-/user/org.couchdb.user:admin`, {
      method: 'PUT',
      headers: { authorization: ADMIN, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'admin', password: 'bench-password', type: 'user', roles: [] }),
    });
    const { token } = (await login.json()) as { token: string };
    const bearer = `Bearer ${token}`;

    const small = await httpPublish(registry, bearer, {
      name: 'bench-small',
      version: '1.0.0',
      description: 'A small package',
      license: 'MIT',
      dependencies: { 'left-pad': '^1.3.0' },
    });
    if (small.status !== 201 && small.status !== 200) throw new Error(`publish bench-small: ${small.status}`);
    // 200 versions with a little text each: about the 146 KB of DESIGN.md's S2 document.
    for (let i = 0; i < VERSIONS; i++) {
      const res = await httpPublish(registry, bearer, {
        name: 'bench-big',
        version: `1.${i}.0`,
        description: `Version ${i} of a package with a long history. ${'lorem ipsum dolor sit amet '.repeat(8)}`,
        license: 'MIT',
        keywords: ['bench', 'granary', 'packument'],
        repository: { type: 'git', url: 'https://example.invalid/bench-big.git' },
        dependencies: { 'left-pad': '^1.3.0', semver: `^7.${i % 7}.0` },
        scripts: { test: 'node test.js' },
      });
      if (res.status !== 201 && res.status !== 200) throw new Error(`publish bench-big ${i}: ${res.status}`);
    }

    const auth = { authorization: bearer };
    const get = async (name: string, headers: Record<string, string>) => {
      const res = await fetch(`${registry}${name}`, { headers });
      if (!res.ok) throw new Error(`GET ${name}: ${res.status}`);
      return Buffer.from(await res.arrayBuffer());
    };
    const smallDoc = await get('bench-small', auth);
    const bigDoc = await get('bench-big', auth);
    const abbreviatedDoc = await get('bench-big', { ...auth, accept: ABBREVIATED });
    // fetch undoes gzip: ask raw to learn whether Granary compresses.
    const gz = await fetch(`${registry}bench-big`, {
      headers: { ...auth, accept: ABBREVIATED, 'accept-encoding': 'gzip' },
    });
    const gzipped = gz.headers.get('content-encoding') === 'gzip';

    nginx = await startNginx(
      {
        'bench-small': smallDoc,
        'bench-big': bigDoc,
        'bench-big-abbreviated': abbreviatedDoc,
        'bench-big-abbreviated.gz': gzipSync(abbreviatedDoc),
      },
      { gzipStatic: true },
    );

    const rows: {
      id: string;
      label: string;
      target: string;
      g: string;
      gh: Record<string, string>;
      n: string;
      nh: Record<string, string>;
    }[] = [
      {
        id: 'S1',
        label: `~1 KB packument (${smallDoc.length} bytes), token`,
        target: 'must ≥ 10k req/s, goal ≥ 0.5× nginx',
        g: `${registry}bench-small`,
        gh: auth,
        n: '/bench-small',
        nh: {},
      },
      {
        id: 'S2',
        label: `${(bigDoc.length / 1024).toFixed(0)} KB packument (${VERSIONS} versions), full, token`,
        target: 'must ≥ 2.2k, goal ≥ 12k req/s',
        g: `${registry}bench-big`,
        gh: auth,
        n: '/bench-big',
        nh: {},
      },
      {
        id: 'S2a',
        label: `abbreviated (${(abbreviatedDoc.length / 1024).toFixed(0)} KB; gzip ${gzipped ? 'on' : 'NOT answered'}), token`,
        target: 'goal ≥ 30k req/s',
        g: `${registry}bench-big`,
        gh: { ...auth, accept: ABBREVIATED, 'accept-encoding': 'gzip' },
        n: '/bench-big-abbreviated',
        nh: { 'accept-encoding': 'gzip' },
      },
    ];
    console.log(
      `\nS1/S2 npm packument GET, ${LOAD_TOOL}, ${RUNS}×${SECONDS} s, worse of fresh and after ${IDLE_MS / 1000} s idle; nginx serves the same bytes`,
    );
    const rssBefore = rssMiB(granary.pid);
    for (const row of rows) {
      const g = await measure(row.g, row.gh);
      const n = nginx ? await measure(`${nginx.url}${row.n}`, row.nh) : null;
      console.log(`  ${row.id} ${row.label}  (${row.target})`);
      console.log(`    granary  ${fmtRate(g)}`);
      if (n) {
        console.log(`    nginx    ${fmtRate(n)}`);
        console.log(`    ratio    ${(stats(g).median / stats(n).median).toFixed(2)}× nginx`);
      } else console.log('    nginx    skipped: not installed (bench/setup-nginx.sh)');
    }
    console.log(`  granary RSS ${rssBefore} MiB before, ${rssMiB(granary.pid)} MiB after the document load`);

    // S8: the same S1 read without credentials, anonymous read granted.
    await api(granary, 'PATCH', '/api/security/configuration', { anonymousAccess: true });
    await api(granary, 'PUT', '/api/security/permissions/bench-anon', {
      repo: {
        repositories: ['npm-docs'],
        include_patterns: ['**'],
        exclude_patterns: [],
        actions: { users: { anonymous: ['read'] } },
      },
    });
    const anonymousDoc = await get('bench-small', {});
    if (!anonymousDoc.equals(smallDoc))
      throw new Error('S8: the anonymous document differs from the token one');
    // The two are measured in alternation, each after a warm-up, so a machine whose speed drifts over the
    // minutes of a run (this VM's bare-Node rate moved 23k → 37k between runs) moves both sides alike.
    const tokenRates: number[] = [];
    const anonymousRates: number[] = [];
    await reqPerSec(`${registry}bench-small`, auth, 1);
    await reqPerSec(`${registry}bench-small`, {}, 1);
    for (let i = 0; i < RUNS; i++) {
      tokenRates.push(await reqPerSec(`${registry}bench-small`, auth, SECONDS));
      anonymousRates.push(await reqPerSec(`${registry}bench-small`, {}, SECONDS));
    }
    const withToken = stats(tokenRates).median;
    const anon = stats(anonymousRates).median;
    console.log(
      `\nS8 authenticated ÷ anonymous on S1, alternating, ${RUNS}×${SECONDS} s each (must ≥ 0.9, goal ≥ 0.95)`,
    );
    console.log(`  token      ${fmtRate(tokenRates)}`);
    console.log(`  anonymous  ${fmtRate(anonymousRates)}`);
    console.log(`  ratio      ${(withToken / anon).toFixed(2)}`);
  } finally {
    await nginx?.stop();
    await granary.stop();
  }
}
