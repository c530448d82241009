// Advisory database (issue 16): import of a generated OSV archive of BENCH_ADVISORIES records (goal:
// 100,000 in < 60 s with < 300 MiB extra memory) and the match of as many component queries (goal:
// < 30 s). No peer: Xray and Nexus IQ are paid add-ons. In-process, on the embedded database, the
// way the scan pipeline calls it; the archive is written to disk first and streamed to the import.
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { pathToFileURL } from 'node:url';
import yazl from 'yazl';
import { AdvisoryDatabase } from '../../apps/server/src/modules/scanning/advisories/index.ts';
import { openDatabase } from '../../apps/server/src/platform/db/index.ts';
import { createTestApp } from '../../apps/server/src/testing/index.ts';

const COUNT = Number(process.env.BENCH_ADVISORIES ?? 100_000);
export const ECOSYSTEMS = [
  'npm',
  'PyPI',
  'Maven',
  'Go',
  'crates.io',
  'RubyGems',
  'NuGet',
  'Debian:12',
  'Alpine:v3.18',
];

/** The generated OSV record `i`: one affected package of one of the ecosystems, fixed at `1.(i % 50).0`. */
export function record(i: number) {
  const ecosystem = ECOSYSTEMS[i % ECOSYSTEMS.length]!;
  const name = ecosystem === 'Maven' ? `org.bench:pkg-${i % 20_000}` : `pkg-${i % 20_000}`;
  return {
    id: `BENCH-${i}`,
    modified: '2024-01-01T00:00:00Z',
    published: '2024-01-01T00:00:00Z',
    aliases: [`CVE-2024-${i}`],
    summary: `Generated advisory ${i} for ${name}`,
    details: 'x'.repeat(400),
    severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' }],
    affected: [
      {
        package: { ecosystem, name },
        ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: `1.${i % 50}.0` }] }],
        versions: [`0.${i % 10}.0`, `0.${i % 10}.1`],
      },
    ],
    references: [{ type: 'ADVISORY', url: `https://example.invalid/${i}` }],
  };
}

/** Writes an OSV `all.zip` of `count` generated records (`BENCH-0.json` …). */
export async function writeOsvArchive(file: string, count: number): Promise<void> {
  const zip = new yazl.ZipFile();
  const written = pipeline(zip.outputStream, createWriteStream(file));
  // A stream per entry: yazl compresses those one at a time (addBuffer starts every deflate at once,
  // gigabytes for 100,000 entries).
  for (let i = 0; i < count; i++)
    zip.addReadStream(Readable.from([Buffer.from(JSON.stringify(record(i)))]), `BENCH-${i}.json`);
  zip.end();
  await written;
}

export async function run(): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'granary-bench-osv-'));
  const file = path.join(dir, 'all.zip');
  await writeOsvArchive(file, COUNT);
  // On disk, as Granary runs (an in-memory database would count every stored row as the process's memory).
  const database = await openDatabase({ dataDir: path.join(dir, 'db') });
  await database.migrate();
  const t = await createTestApp({}, { database });
  try {
    const db = new AdvisoryDatabase(t.app.granary);
    global.gc?.();
    const rss0 = process.memoryUsage().rss;
    let peak = rss0;
    let heapAtPeak = 0;
    const sampler = setInterval(() => {
      const m = process.memoryUsage();
      if (m.rss > peak) {
        peak = m.rss;
        heapAtPeak = m.heapTotal;
      }
    }, 100);
    const t0 = performance.now();
    const result = await db.importArchive(createReadStream(file), { source: 'bench', by: null });
    const importMs = performance.now() - t0;
    clearInterval(sampler);
    const t1 = performance.now();
    const again = await db.importArchive(createReadStream(file), { source: 'bench', by: null });
    const reimportMs = performance.now() - t1;
    const queries = Array.from({ length: COUNT }, (_, i) => {
      const ecosystem = ECOSYSTEMS[i % ECOSYSTEMS.length]!;
      return {
        ecosystem,
        name: ecosystem === 'Maven' ? `org.bench:pkg-${i % 20_000}` : `pkg-${i % 20_000}`,
        version: `1.${i % 60}.0`,
      };
    });
    const t2 = performance.now();
    const findings = await db.match(queries);
    const matchMs = performance.now() - t2;
    const hits = findings.reduce((n, f) => n + f.length, 0);
    console.log(
      `advisories: import ${result.imported} records (${((await stat(file)).size / 1024 ** 2).toFixed(1)} MiB zip) in ${(importMs / 1000).toFixed(1)} s ` +
        `(goal < 60 s for 100,000), peak RSS +${((peak - rss0) / 1024 ** 2).toFixed(0)} MiB (goal < 300; JS heap then ${(heapAtPeak / 1024 ** 2).toFixed(0)} MiB); ` +
        `unchanged re-import ${(reimportMs / 1000).toFixed(1)} s (${again.unchanged} unchanged); ` +
        `match ${COUNT} queries in ${(matchMs / 1000).toFixed(1)} s (goal < 30 s), ${hits} findings`,
    );
  } finally {
    await t.close();
    await rm(dir, { recursive: true, force: true });
  }
}

// `npx tsx bench/scenarios/advisories.ts` runs it alone (`npm run bench` imports it and calls run()).
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await run();
