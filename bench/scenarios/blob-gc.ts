// Blob garbage collection (issue 21): GC of 100,000 unreferenced blobs on the filesystem store (goal
// < 60 s) and request latency while it runs (goal: no p99 above 2× the baseline). No peer: Nexus's
// compact task and Harbor's GC are not among the Debian packages.
// The blobs are written straight into the store of a fresh home, adopted by the consistency check
// (as bytes nothing holds) and then collected by `POST /api/system/storage/gc` with a grace of 0.
// BENCH_GC_BLOBS changes the count; BENCH_GC_BASELINE_SECS the baseline's length (default 20 s). The pings are
// one client in a closed loop (the next request when the last answered), before and during the GC.
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startGranary } from '../lib/servers.ts';

const BLOBS = Number(process.env.BENCH_GC_BLOBS ?? 100_000);
const BASELINE_SECS = Number(process.env.BENCH_GC_BASELINE_SECS ?? 20);
const AUTH = `Basic ${Buffer.from('admin:bench-password').toString('base64')}`;

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
};

async function seed(home: string): Promise<number> {
  let bytes = 0;
  const dirs = new Set<string>();
  const batch: Promise<void>[] = [];
  for (let i = 0; i < BLOBS; i++) {
    const content = randomBytes(64 + (i % 960));
    const sha = createHash('sha256').update(content).digest('hex');
    const dir = path.join(home, 'blobs', sha.slice(0, 2), sha.slice(2, 4));
    if (!dirs.has(dir)) {
      await mkdir(dir, { recursive: true });
      dirs.add(dir);
    }
    bytes += content.length;
    batch.push(writeFile(path.join(dir, sha), content));
    if (batch.length >= 256) await Promise.all(batch.splice(0));
  }
  await Promise.all(batch);
  return bytes;
}

export async function run(): Promise<void> {
  const home = await mkdtemp(path.join(os.tmpdir(), 'granary-bench-gc-'));
  const seeded = Date.now();
  const bytes = await seed(home);
  const seedMs = Date.now() - seeded;
  const granary = await startGranary({ GRANARY_HOME: home, GRANARY_BLOB_GC_GRACE_SECS: '0' });
  const api = (p: string, init: RequestInit = {}) =>
    fetch(`${granary.url}${p}`, { ...init, headers: { authorization: AUTH, ...init.headers } });
  const pings = async (until: () => boolean) => {
    const times: number[] = [];
    while (!until()) {
      const t0 = performance.now();
      const res = await fetch(`${granary.url}/api/system/ping`);
      await res.text();
      times.push(performance.now() - t0);
    }
    return times;
  };
  try {
    const adoptStart = Date.now();
    const check = await api('/ui/api/v1/storage/consistency?repair=true', { method: 'POST' });
    if (!check.ok) throw new Error(`consistency: ${check.status} ${await check.text()}`);
    const report = (await check.json()) as { adoptedBlobs: number };
    const adoptMs = Date.now() - adoptStart;
    // The baseline as long a stretch as the GC's (a p99 of a few hundred requests is their 3rd worst).
    const baselineEnd = Date.now() + BASELINE_SECS * 1000;
    const baseline = await pings(() => Date.now() >= baselineEnd);
    let done = false;
    const during = pings(() => done);
    const started = Date.now();
    const res = await api('/api/system/storage/gc', { method: 'POST' });
    const wallMs = Date.now() - started;
    done = true;
    const latencies = await during;
    if (!res.ok) throw new Error(`gc: ${res.status} ${await res.text()}`);
    const gc = (await res.json()) as { reclaimedBlobs: number; reclaimedBytes: number; durationMs: number };
    const p50 = percentile(baseline, 50);
    const p99 = percentile(baseline, 99);
    const p50During = percentile(latencies, 50);
    const p99During = percentile(latencies, 99);
    console.log(
      `\nG1 blob GC of ${BLOBS.toLocaleString('en')} unreferenced blobs (${(bytes / 2 ** 20).toFixed(0)} MiB), filesystem store`,
    );
    console.log(
      `  seeded in ${(seedMs / 1000).toFixed(1)} s; adopted ${report.adoptedBlobs} by the consistency check in ${(adoptMs / 1000).toFixed(1)} s`,
    );
    console.log(
      `  GC       ${(gc.durationMs / 1000).toFixed(1)} s (request ${(wallMs / 1000).toFixed(1)} s), reclaimed ${gc.reclaimedBlobs} blobs, ${(gc.reclaimedBytes / 2 ** 20).toFixed(0)} MiB  (goal < 60 s)`,
    );
    console.log(
      `  ping p50 ${p50.toFixed(1)} ms before, ${p50During.toFixed(1)} ms during; p99 ${p99.toFixed(1)} ms before, ${p99During.toFixed(1)} ms during (${baseline.length} requests before, ${latencies.length} during; p99 ratio ${(p99During / p99).toFixed(2)}×, goal ≤ 2×)`,
    );
    console.log(
      `  load average ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(', ')} (2 cores shared: the ratio is only as steady as the machine)`,
    );
    if (gc.reclaimedBlobs < report.adoptedBlobs) throw new Error('the GC left adopted blobs behind');
  } finally {
    await granary.stop();
    await rm(home, { recursive: true, force: true });
  }
}
