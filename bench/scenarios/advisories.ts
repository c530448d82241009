// Advisory database (issue 16): import of a generated OSV archive of BENCH_ADVISORIES records (goal:
// 100,000 in < 60 s with < 300 MiB extra memory) and the match of as many component queries (goal:
// < 30 s). No peer: Xray and Nexus IQ are paid add-ons. In-process, on the embedded database, the
// way the scan pipeline calls it; the archive is written to disk first and streamed to the import.
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import yazl from 'yazl';
import { AdvisoryDatabase } from '../../apps/server/src/modules/scanning/advisories/index.ts';
import { createTestApp } from '../../apps/server/src/testing/index.ts';

const COUNT = Number(process.env.BENCH_ADVISORIES ?? 100_000);
const ECOSYSTEMS = [
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

function record(i: number) {
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

export async function run(): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'granary-bench-osv-'));
  const file = path.join(dir, 'all.zip');
  const zip = new yazl.ZipFile();
  const written = pipeline(zip.outputStream, createWriteStream(file));
  for (let i = 0; i < COUNT; i++) zip.addBuffer(Buffer.from(JSON.stringify(record(i))), `BENCH-${i}.json`);
  zip.end();
  await written;
  const t = await createTestApp();
  try {
    const db = new AdvisoryDatabase(t.app.granary);
    global.gc?.();
    const rss0 = process.memoryUsage().rss;
    let peak = rss0;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
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
        `(goal < 60 s for 100,000), peak RSS +${((peak - rss0) / 1024 ** 2).toFixed(0)} MiB (goal < 300); ` +
        `unchanged re-import ${(reimportMs / 1000).toFixed(1)} s (${again.unchanged} unchanged); ` +
        `match ${COUNT} queries in ${(matchMs / 1000).toFixed(1)} s (goal < 30 s), ${hits} findings`,
    );
  } finally {
    await t.close();
    await rm(dir, { recursive: true, force: true });
  }
}
