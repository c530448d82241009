// `npm run bench`: Granary side by side with its reference peers, each scenario several times,
// reporting medians, min–max and the ratio to the peer (DESIGN.md "Performance targets").
// Grows with every issue: each scenario names the target it measures.
import { randomBytes } from 'node:crypto';
import { LOAD_TOOL, measure as measureRate, stats } from './lib/load.ts';
import { startNginx } from './lib/nginx.ts';
import { type RunningServer, rssMiB, startBareNode, startGranary } from './lib/servers.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);

let headers: Record<string, string> = {};
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 30_000);
const TOOL = LOAD_TOOL;

/** Worse of fresh and after idle (DESIGN.md), with the headers set for the scenario. */
const measure = (server: RunningServer, path: string) =>
  measureRate(`${server.url}${path}`, headers, { runs: RUNS, seconds: SECONDS, idleMs: IDLE_MS });

// BENCH_ONLY=npm,oci runs only those scenarios; `base` names B0, M0, S3 and S4 below.
const ONLY = process.env.BENCH_ONLY?.split(',').map((s) => s.trim());

if (!ONLY || ONLY.includes('base')) {
  const granary = await startGranary();
  const bare = await startBareNode();
  try {
    await new Promise((r) => setTimeout(r, 5000));
    const idleRss = rssMiB(granary.pid);
    // Idle as a server mostly is: start-up's garbage collected, the heap shrunk by V8's memory reducer.
    await new Promise((r) => setTimeout(r, IDLE_MS));
    const settledRss = rssMiB(granary.pid);

    const g = stats(await measure(granary, '/api/system/ping'));
    const loadedRss = rssMiB(granary.pid);
    const b = stats(await measure(bare, '/'));

    const fmt = (s: { median: number; min: number; max: number }) =>
      `${Math.round(s.median)} req/s (${Math.round(s.min)}–${Math.round(s.max)})`;
    console.log(
      `\nB0 health check GET /api/system/ping, 10 connections, ${RUNS}×${SECONDS} s, worse of fresh and after ${IDLE_MS / 1000} s idle`,
    );
    console.log(`  granary    ${fmt(g)}`);
    console.log(`  bare node  ${fmt(b)}`);
    console.log(`  ratio      ${(g.median / b.median).toFixed(2)}× bare node`);
    console.log(`\nM0 memory with the embedded database`);
    console.log(
      `  granary idle RSS      ${idleRss} MiB 5 s after start, ${settledRss} MiB after ${IDLE_MS / 1000} s more (must ≤ 200, goal ≤ 150 MiB)`,
    );
    console.log(`  granary RSS after B0  ${loadedRss} MiB`);

    // S3 (1 MiB) and S4 (50 MiB): one artifact, GET with 10 connections, Granary beside nginx serving the same bytes.
    const MiB = 1024 * 1024;
    const auth = `Basic ${Buffer.from('admin:bench-password').toString('base64')}`;
    const mibs = (s: { median: number; min: number; max: number }) =>
      `${Math.round(s.median)} MiB/s (${Math.round(s.min)}–${Math.round(s.max)})`;
    const scenarios = [
      { id: 'S3', name: '1mib.bin', size: MiB, target: 'must ≥ 1,150, goal ≥ 2,400 MiB/s', ratioGoal: 0.8 },
      { id: 'S4', name: '50mib.bin', size: 50 * MiB, target: 'must ≥ 2,000 MiB/s', ratioGoal: 0.95 },
    ];
    const perMiB = (s: { median: number; min: number; max: number }, mib: number) => ({
      median: s.median * mib,
      min: s.min * mib,
      max: s.max * mib,
    });
    for (const scenario of scenarios) {
      const file = randomBytes(scenario.size);
      const put = await fetch(`${granary.url}/repository/generic-local/bench/${scenario.name}`, {
        method: 'PUT',
        headers: { authorization: auth, 'content-type': 'application/octet-stream' },
        body: file,
      });
      if (!put.ok) throw new Error(`deploy for ${scenario.id} failed: ${put.status}`);
      headers = { authorization: auth };
      const g = perMiB(
        stats(await measure(granary, `/repository/generic-local/bench/${scenario.name}`)),
        scenario.size / MiB,
      );
      headers = {};
      console.log(
        `\n${scenario.id} ${scenario.size / MiB} MiB artifact GET, 10 connections, ${RUNS}×${SECONDS} s, ${TOOL}, worse of fresh and after ${IDLE_MS / 1000} s idle`,
      );
      console.log(`  granary    ${mibs(g)}  (${scenario.target})`);
      const nginx = await startNginx({ [scenario.name]: file });
      if (!nginx) {
        console.log('  nginx      skipped: not installed (run bench/setup-nginx.sh as root to install it)');
        continue;
      }
      try {
        const n = perMiB(stats(await measure(nginx, `/${scenario.name}`)), scenario.size / MiB);
        console.log(`  nginx      ${mibs(n)}`);
        console.log(`  ratio      ${(g.median / n.median).toFixed(2)}× nginx (goal ≥ ${scenario.ratioGoal})`);
      } finally {
        await nginx.stop();
      }
    }
  } finally {
    await granary.stop();
    await bare.stop();
  }
}

// Format and feature scenarios: each file in bench/scenarios/ exports `run()`, which starts what it
// needs (Granary and the peer) and prints its own report. BENCH_ONLY=npm,oci runs only those.
{
  const { readdirSync } = await import('node:fs');
  const only = ONLY;
  const dir = new URL('./scenarios/', import.meta.url);
  for (const name of readdirSync(dir)
    .filter((f) => f.endsWith('.ts'))
    .sort()) {
    if (only && !only.includes(name.replace(/\.ts$/, ''))) continue;
    const scenario = (await import(new URL(name, dir).href)) as { run(): Promise<void> };
    await scenario.run();
  }
}
