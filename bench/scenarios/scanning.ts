// Scan pipeline (issue 16 "Benchmark"): with an advisory database of BENCH_SCAN_ADVISORIES generated
// OSV records (default 100,000), imported over HTTP from a path on the server,
// - the re-match of BENCH_SCAN_COMPONENTS stored components (default 100,000: 5,000 scanned files of
//   20 components each) that the import triggers, through the `scanning.rematch` job, timed from the
//   import's answer until no content is left matched against the old generation (goal < 30 s);
// - npm audit's bulk request for 500 packages of the repository
//   (`POST /repository/npm-local/-/npm/v1/security/advisories/bulk`), request to verdicts over HTTP
//   (goal < 2 s).
// No peer: Xray and Nexus IQ are paid add-ons. In-process server on the embedded database, listening
// on a loopback port. The stored components are written straight into the scan tables, as the scans
// of deployed files would have left them (extraction is not what this measures).
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { sql } from 'drizzle-orm';
import type { ExtractedArtifact } from '../../apps/server/src/modules/scanning/model.ts';
import { REMATCH_QUEUE } from '../../apps/server/src/modules/scanning/scans/scans.service.ts';
import { openDatabase, queryRows } from '../../apps/server/src/platform/db/index.ts';
import { enqueueJob } from '../../apps/server/src/platform/jobs/index.ts';
import { basicAuth, createTestApp, TEST_ADMIN_PASSWORD } from '../../apps/server/src/testing/index.ts';
import { ECOSYSTEMS, writeOsvArchive } from './advisories.ts';

const ADVISORIES = Number(process.env.BENCH_SCAN_ADVISORIES ?? 100_000);
const COMPONENTS = Number(process.env.BENCH_SCAN_COMPONENTS ?? 100_000);
const PER_FILE = 20;
const AUDIT_PACKAGES = 500;
const AUDIT_RUNS = 5;
const AUTH = basicAuth('admin', TEST_ADMIN_PASSWORD);

/** The component `k`: a package named as the generated advisories name them, at a version some affect. */
function component(k: number) {
  const ecosystem = ECOSYSTEMS[k % ECOSYSTEMS.length]!;
  const name = ecosystem === 'Maven' ? `org.bench:pkg-${k % 20_000}` : `pkg-${k % 20_000}`;
  const version = k % 3 === 0 ? `0.${k % 10}.0` : `1.${k % 60}.0`;
  return {
    purl: `pkg:generic/${encodeURIComponent(name)}@${version}`,
    ecosystem,
    name,
    version,
    licenses: ['MIT'],
  };
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

/** A POST on a connection of its own (no keep-alive). */
function post(url: string, body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent: false,
        headers: {
          authorization: AUTH,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => {
          text += d;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export async function run(): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'granary-bench-scan-'));
  const file = path.join(dir, 'all.zip');
  await writeOsvArchive(file, ADVISORIES);
  // On disk, as Granary runs (an in-memory database would count every stored row as the process's memory).
  const database = await openDatabase({ dataDir: path.join(dir, 'db') });
  await database.migrate();
  const t = await createTestApp({}, { database });
  try {
    const url = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const db = t.app.granary.database.db;
    const created = await fetch(`${url}/api/repositories/npm-local`, {
      method: 'PUT',
      headers: { authorization: AUTH, 'content-type': 'application/json' },
      body: JSON.stringify({ rclass: 'local', packageType: 'npm' }),
    });
    if (created.status !== 201) throw new Error(`npm repository not created: ${created.status}`);
    const [repo] = await queryRows<{ id: string }>(
      db,
      sql`select id from repositories where key = 'npm-local'`,
    );
    if (!repo) throw new Error('npm-local not found');

    // The stored scans: FILES files of PER_FILE components each, matched against generation 0.
    const files = Math.ceil(COMPONENTS / PER_FILE);
    for (let start = 0; start < files; start += 500) {
      const contents: unknown[] = [];
      const artifacts: unknown[] = [];
      for (let f = start; f < Math.min(files, start + 500); f++) {
        const sha256 = f.toString(16).padStart(64, '0');
        const artifact: ExtractedArtifact = {
          root: {
            purl: `pkg:npm/bench-app-${f}@1.0.0`,
            ecosystem: 'npm',
            name: `bench-app-${f}`,
            version: '1.0.0',
            licenses: ['MIT'],
          },
          components: Array.from({ length: PER_FILE }, (_, s) => component(f * PER_FILE + s)),
          dependencies: {},
        };
        contents.push({ sha256, artifact, n: PER_FILE + 1 });
        artifacts.push({ sha256, path: `bench-app-${f}/-/bench-app-${f}-1.0.0.tgz` });
      }
      await db.execute(
        sql`insert into scan_contents (sha256, status, artifact, findings, component_count, generation)
            select c.sha256, 'scanned', c.artifact, '[]'::jsonb, c.n, 0
              from jsonb_to_recordset(${JSON.stringify(contents)}::jsonb) as c(sha256 text, artifact jsonb, n int)`,
      );
      await db.execute(
        sql`insert into scan_artifacts (repository_id, path, sha256, status, scanned_at)
            select ${repo.id}::uuid, a.path, a.sha256, 'scanned', now()
              from jsonb_to_recordset(${JSON.stringify(artifacts)}::jsonb) as a(sha256 text, path text)`,
      );
    }

    // The import (over HTTP, from a path on the server); it queues the re-match.
    const rss0 = process.memoryUsage().rss;
    let peak = rss0;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 100);
    sampler.unref();
    const t0 = performance.now();
    const imported = await fetch(`${url}/api/scanning/advisories/import`, {
      method: 'POST',
      headers: { authorization: AUTH, 'content-type': 'application/json' },
      body: JSON.stringify({ path: file }),
    });
    if (imported.status !== 200) throw new Error(`import: ${imported.status} ${await imported.text()}`);
    const result = (await imported.json()) as { imported: number };
    const importMs = performance.now() - t0;
    const t1 = performance.now();
    const untilMatched = async () => {
      const started = performance.now();
      for (;;) {
        const [left] = await queryRows<{ n: string | number }>(
          db,
          sql`select count(*) as n from scan_contents
               where status = 'scanned'
                 and generation <> coalesce((select generation from scanning_advisory_state where id = 1), 0)`,
        );
        if (Number(left?.n) === 0) return;
        if (performance.now() - started > 600_000)
          throw new Error(`re-match not done after 10 minutes (${left?.n} left)`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    await untilMatched();
    const afterImportMs = performance.now() - t1;
    clearInterval(sampler);
    const [found] = await queryRows<{ n: string | number }>(
      db,
      sql`select coalesce(sum(jsonb_array_length(findings)), 0) as n from scan_contents`,
    );

    // The re-match alone: every content's findings forgotten (so each file's counts are written
    // again and its listeners told), the generation bumped and the job queued, as an import does.
    await db.execute(sql`update scan_contents set findings = '[]'::jsonb`);
    await db.execute(sql`update scanning_advisory_state set generation = generation + 1 where id = 1`);
    const t2 = performance.now();
    await enqueueJob(db, REMATCH_QUEUE, {}, { dedupeKey: 'rematch' });
    await untilMatched();
    const rematchMs = performance.now() - t2;

    console.log(
      `\nscanning (issue 16 Benchmark), ${ADVISORIES} advisories, ${files * PER_FILE} stored components in ${files} files`,
    );
    console.log(
      `  import over HTTP     ${seconds(importMs)} (${result.imported} records; goal < 60 s for 100,000), ` +
        `the re-match it queued running beside it (done ${seconds(afterImportMs)} after the answer), ` +
        `${Number(found?.n)} findings stored, peak RSS +${((peak - rss0) / 1024 ** 2).toFixed(0)} MiB`,
    );
    console.log(
      `  re-match alone       ${seconds(rematchMs)} from the job's enqueue to every content matched again (goal < 30 s for 100,000 components)`,
    );

    // npm audit's bulk request: 500 packages, two versions each (one affected).
    const body: Record<string, string[]> = {};
    for (let m = 0; m < AUDIT_PACKAGES; m++) body[`pkg-${(9 * m) % 20_000}`] = [`0.${m % 10}.0`, '99.0.0'];
    const auditTimes: number[] = [];
    let advisoriesFound = 0;
    for (let i = 0; i < AUDIT_RUNS; i++) {
      const a0 = performance.now();
      // A new connection each time, as each `npm audit` run opens one.
      const res = await post(
        `${url}/repository/npm-local/-/npm/v1/security/advisories/bulk`,
        JSON.stringify(body),
      );
      auditTimes.push(performance.now() - a0);
      if (res.status !== 200) throw new Error(`npm audit bulk: ${res.status}`);
      const answer = JSON.parse(res.body) as Record<string, unknown[]>;
      advisoriesFound = Object.values(answer).reduce((n, list) => n + list.length, 0);
    }
    const sorted = [...auditTimes].sort((a, b) => a - b);
    console.log(
      `  npm audit bulk       ${AUDIT_PACKAGES} packages: first ${seconds(auditTimes[0]!)}, median ${seconds(sorted[Math.floor(sorted.length / 2)]!)}, ` +
        `max ${seconds(sorted.at(-1)!)} over ${AUDIT_RUNS} requests (goal < 2 s), ${advisoriesFound} advisories answered`,
    );
  } finally {
    await t.close();
    await rm(dir, { recursive: true, force: true });
  }
}

// `npx tsx bench/scenarios/scanning.ts` runs it alone (`npm run bench` imports it and calls run()).
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await run();
