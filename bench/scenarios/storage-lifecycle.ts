// Storage lifecycle, the full-scale acceptance of issue 21: push ~1 GiB across formats (npm publish, PyPI
// upload, Maven PUT, OCI blobs + manifest, each in its client's own protocol) to a real server, delete it
// all three ways — the clients' own deletes (npm unpublish, OCI manifest DELETE, then the OCI GC), the
// console's REST delete (`DELETE /repository/…`) and a cleanup policy run (`/api/retention/policies`) —
// empty the trash and run the blob GC while 20 uploads run beside it (half of them the very bytes the GC
// is deleting). Passes when every upload succeeded and downloads with identical bytes, and the blob store
// (`$GRANARY_HOME/blobs`: its files, du beside) is back to its starting size ± 1 %.
// BENCH_LIFECYCLE_BYTES sets the volume (default 1 GiB; 64 MiB while developing), BENCH_LIFECYCLE_FILE_BYTES
// the size of each file (default 8 MiB). A kept baseline of a quarter of the volume is in the store from the
// start, so that "± 1 %" is of something.
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import yazl from 'yazl';
import { testImage } from '../../apps/server/src/formats/docker/oci-testing.ts';
import { httpPublish } from '../../apps/server/src/formats/npm/test-support.ts';
import { coreMetadata, uploadForm } from '../../apps/server/src/formats/pypi/test-dists.ts';
import { startGranary } from '../lib/servers.ts';

const MiB = 1024 * 1024;
const VOLUME = Number(process.env.BENCH_LIFECYCLE_BYTES ?? 1024 * MiB);
const FILE = Number(process.env.BENCH_LIFECYCLE_FILE_BYTES ?? 8 * MiB);
const PER_FORMAT = Math.max(1, Math.round(VOLUME / FILE / 4));
const UPLOADS = 20;
const AUTH = `Basic ${Buffer.from('admin:bench-password').toString('base64')}`;

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/**
 * The store folder's size: `du -sb` (apparent bytes), `du -sk` (what the disk allocates), and the bytes of
 * its files alone, which the ± 1 % is checked on: the fan-out folders (`ab/cd/`) a blob once needed stay
 * behind empty (4 KiB each, at most 65,792 of them; deleting them would race a put that just made one).
 */
function du(dir: string): { bytes: number; allocated: number; files: number } {
  const out = (args: string[]) => execFileSync(args[0]!, args.slice(1), { encoding: 'utf8' });
  const bytes = Number(out(['du', '-sb', dir]).split('\t')[0]);
  const allocated = Number(out(['du', '-sk', dir]).split('\t')[0]) * 1024;
  const files = out(['find', dir, '-type', 'f', '-printf', '%s\n'])
    .split('\n')
    .filter(Boolean)
    .reduce((sum, n) => sum + Number(n), 0);
  return { bytes, allocated, files };
}

/** A wheel holding `payload` stored (not compressed), laid out as the packaging tools do. */
async function bigWheel(
  name: string,
  version: string,
  payload: Buffer,
): Promise<{ filename: string; bytes: Buffer }> {
  const distInfo = `${name}-${version}.dist-info`;
  const files: [string, Buffer][] = [
    [`${name}/__init__.py`, Buffer.from(`VERSION = ${JSON.stringify(version)}\n`)],
    [`${name}/data.bin`, payload],
    [`${distInfo}/METADATA`, Buffer.from(coreMetadata({ name, version }))],
    [
      `${distInfo}/WHEEL`,
      Buffer.from('Wheel-Version: 1.0\nGenerator: granary-bench\nRoot-Is-Purelib: true\nTag: py3-none-any\n'),
    ],
  ];
  const hash = (d: Buffer) => `sha256=${createHash('sha256').update(d).digest('base64url')}`;
  const record = `${files.map(([n, d]) => `${n},${hash(d)},${d.length}`).join('\n')}\n${distInfo}/RECORD,,\n`;
  files.push([`${distInfo}/RECORD`, Buffer.from(record)]);
  const zip = new yazl.ZipFile();
  for (const [n, d] of files)
    zip.addBuffer(d, n, { compress: false, mtime: new Date('2024-01-01T00:00:00Z') });
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream) chunks.push(c as Buffer);
  return { filename: `${name}-${version}-py3-none-any.whl`, bytes: Buffer.concat(chunks) };
}

export async function run(): Promise<void> {
  const home = await mkdtemp(path.join(os.tmpdir(), 'granary-bench-lifecycle-'));
  const granary = await startGranary({
    GRANARY_HOME: home,
    GRANARY_BLOB_GC_GRACE_SECS: '0',
    GRANARY_OCI_GC_GRACE_SECS: '0',
  });
  const store = path.join(home, 'blobs');
  const api = async (p: string, init: RequestInit = {}, ok = [200, 201, 202, 204]): Promise<Response> => {
    const res = await fetch(new URL(p, granary.url), {
      ...init,
      headers: { authorization: AUTH, ...init.headers },
    });
    if (!ok.includes(res.status))
      throw new Error(`${init.method ?? 'GET'} ${p}: ${res.status} ${await res.text()}`);
    return res;
  };
  const json = (body: unknown): RequestInit => ({
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const put = (p: string, bytes: Buffer) =>
    api(`/repository/${p}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/octet-stream' },
      body: bytes,
    });
  const failures: string[] = [];
  const timings: Record<string, number> = {};
  const timed = async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
    const t0 = Date.now();
    try {
      return await fn();
    } finally {
      timings[what] = (timings[what] ?? 0) + (Date.now() - t0);
    }
  };
  try {
    for (const [key, packageType] of [
      ['npm-local', 'npm'],
      ['pypi-local', 'pypi'],
      ['maven-local', 'maven'],
      ['docker-local', 'docker'],
    ])
      await api(`/api/repositories/${key}`, { method: 'PUT', ...json({ rclass: 'local', packageType }) });

    // The baseline that stays: a quarter of the volume, in a generic repository.
    const baselineFiles = Math.max(1, Math.round(VOLUME / FILE / 4));
    for (let i = 0; i < baselineFiles; i++) await put(`generic-local/kept/base-${i}.bin`, randomBytes(FILE));
    // Whatever the server wrote at start-up and the baseline: nothing of it is collectable.
    await api('/api/system/storage/gc', { method: 'POST' });
    const start = du(store);

    // 1. Push: npm publish, PyPI upload, Maven PUT, OCI blobs + manifest.
    const mavenJars: Buffer[] = [];
    await timed('push', async () => {
      for (let i = 0; i < PER_FORMAT; i++) {
        const res = await httpPublish(
          `${granary.url}/repository/npm-local/`,
          AUTH,
          { name: `lifecycle-${i}`, version: '1.0.0' },
          // base64 of random bytes: the gzip'd tarball is about FILE bytes.
          { 'data.txt': randomBytes(Math.floor(FILE * 0.75)).toString('base64') },
        );
        if (res.status !== 201 && res.status !== 200)
          throw new Error(`npm publish lifecycle-${i}: ${res.status} ${await res.text()}`);
      }
      for (let i = 0; i < PER_FORMAT; i++) {
        const wheel = await bigWheel(`lifecycle_${i}`, '1.0.0', randomBytes(FILE));
        const form = await uploadForm(wheel);
        await api('/repository/pypi-local/', {
          method: 'POST',
          headers: { 'content-type': form.contentType },
          body: form.body,
        });
      }
      for (let i = 0; i < PER_FORMAT; i++) {
        const jar = randomBytes(FILE);
        if (mavenJars.length < UPLOADS / 2) mavenJars.push(jar);
        await put(`maven-local/com/acme/lifecycle/lib-${i}/1.0/lib-${i}-1.0.jar`, jar);
      }
      for (let i = 0; i < PER_FORMAT; i++) {
        const image = testImage({ layerSizes: [FILE] });
        for (const blob of [image.config, ...image.layers])
          await api(`/v2/docker-local/lifecycle-${i}/blobs/uploads/?digest=${blob.digest}`, {
            method: 'POST',
            headers: { 'content-type': 'application/octet-stream' },
            body: blob.bytes,
          });
        await api(`/v2/docker-local/lifecycle-${i}/manifests/latest`, {
          method: 'PUT',
          headers: { 'content-type': image.mediaType },
          body: image.manifest,
        });
      }
    });
    const pushed = du(store);

    // 2. Delete it all, three ways.
    await timed('delete', async () => {
      // The clients' own deletes: `npm unpublish pkg --force` and an OCI manifest DELETE (then the OCI GC).
      for (let i = 0; i < PER_FORMAT; i++) {
        const doc = (await (await api(`/repository/npm-local/lifecycle-${i}`)).json()) as { _rev: string };
        await api(`/repository/npm-local/lifecycle-${i}/-rev/${doc._rev}`, { method: 'DELETE' });
        const manifest = await api(`/v2/docker-local/lifecycle-${i}/manifests/latest`, {
          method: 'HEAD',
          headers: { accept: 'application/vnd.oci.image.manifest.v1+json' },
        });
        const digest = manifest.headers.get('docker-content-digest');
        await api(`/v2/docker-local/lifecycle-${i}/manifests/${digest}`, { method: 'DELETE' });
      }
      await api('/api/docker/gc', { method: 'POST' });
      // The console's REST delete: the Maven group folder.
      await api('/repository/maven-local/com/acme/lifecycle', { method: 'DELETE' });
      // A cleanup policy: keep no version of any PyPI package.
      const policy = (await (
        await api('/api/retention/policies', {
          method: 'POST',
          ...json({
            name: 'lifecycle-bench',
            repositories: ['pypi-local'],
            rules: { keepLastVersions: 0, keepReferenced: false },
            action: 'delete',
          }),
        })
      ).json()) as { id: string };
      await api(`/api/retention/policies/${policy.id}/run`, { method: 'POST' });
      for (let waited = 0; ; waited += 200) {
        const p = (await (await api(`/api/retention/policies/${policy.id}`)).json()) as {
          lastRunAt: string | null;
          lastResult: { candidates: number; done: number; failed: number } | null;
        };
        if (p.lastRunAt) {
          if (p.lastResult?.done !== PER_FORMAT || p.lastResult.failed > 0)
            failures.push(
              `the cleanup policy removed ${JSON.stringify(p.lastResult)}, not ${PER_FORMAT} versions`,
            );
          break;
        }
        if (waited > 120_000) throw new Error('the cleanup policy did not run within 2 minutes');
        await new Promise((r) => setTimeout(r, 200));
      }
      await api('/api/trash/empty', { method: 'POST' });
    });
    const deleted = du(store);

    // 3. The GC, with 20 uploads beside it: half of them the bytes of deleted jars (their blobs are what the
    // GC is deleting right now: a dedup hit racing the delete), half new content.
    const uploads = Array.from({ length: UPLOADS }, (_, i): [string, Buffer] => [
      `generic-local/during/${i}.bin`,
      i % 2 === 0 && mavenJars.length > 0 ? mavenJars[(i / 2) % mavenJars.length]! : randomBytes(MiB),
    ]);
    // Each upload sends its first half at once and the rest when the GC is seen running (or has answered),
    // so all 20 are in flight when it starts and end while it deletes.
    let release = () => {};
    const running = new Promise<void>((resolve) => {
      release = resolve;
    });
    const spans: [number, number][] = [];
    const gcStarted = Date.now();
    const gcCall = api('/api/system/storage/gc', { method: 'POST' }).then((r) => r.json());
    void gcCall.finally(release).catch(() => {});
    void (async () => {
      for (let i = 0; i < 200; i++) {
        const status = (await (await api('/ui/api/v1/storage/gc')).json()) as { running: boolean };
        if (status.running) break;
        await new Promise((r) => setTimeout(r, 25));
      }
      release();
    })().catch(release);
    const [gcRes, ...puts] = await Promise.allSettled([
      gcCall,
      ...uploads.map(async ([p, bytes], i) => {
        const t0 = Date.now();
        const half = Math.floor(bytes.length / 2);
        const body = new ReadableStream<Uint8Array>({
          async start(controller) {
            controller.enqueue(bytes.subarray(0, half));
            await running;
            controller.enqueue(bytes.subarray(half));
            controller.close();
          },
        });
        try {
          return await api(`/repository/${p}`, {
            method: 'PUT',
            headers: { 'content-type': 'application/octet-stream', 'content-length': String(bytes.length) },
            body,
            duplex: 'half',
          } as RequestInit);
        } finally {
          spans[i] = [t0, Date.now()];
        }
      }),
    ]);
    const gcWallMs = Date.now() - gcStarted;
    if (gcRes.status === 'rejected') throw gcRes.reason;
    const gc = gcRes.value as {
      reclaimedBlobs: number;
      reclaimedBytes: number;
      durationMs: number;
      startedAt: string;
    };
    // Uploads in flight while the GC ran (same machine, same clock).
    const gcFrom = Date.parse(gc.startedAt);
    const overlapped = spans.filter(([a, b]) => a < gcFrom + gc.durationMs && b > gcFrom).length;
    let uploadsOk = 0;
    for (const [i, r] of puts.entries()) {
      if (r.status === 'rejected') {
        failures.push(`upload ${uploads[i]![0]} failed: ${(r.reason as Error).message.slice(0, 200)}`);
        continue;
      }
      const got = Buffer.from(await (await api(`/repository/${uploads[i]![0]}`)).arrayBuffer());
      if (sha256(got) === sha256(uploads[i]![1])) uploadsOk += 1;
      else failures.push(`${uploads[i]![0]} downloads other bytes than were uploaded`);
    }

    // 4. The uploads go too; then the store must be back where it started.
    for (const [p] of uploads) await api(`/repository/${p}`, { method: 'DELETE' });
    await api('/api/trash/empty', { method: 'POST' });
    await api('/api/system/storage/gc', { method: 'POST' });
    const end = du(store);
    const drift = (end.files - start.files) / start.files;
    if (Math.abs(drift) > 0.01)
      failures.push(`the store is ${(drift * 100).toFixed(2)} % off its starting size (limit ± 1 %)`);

    const mib = (n: number) => `${(n / MiB).toFixed(1)} MiB`;
    const volume = pushed.files - start.files;
    console.log(
      `\nL1 storage lifecycle (issue 21 acceptance): ${mib(volume)} pushed across npm, PyPI, Maven and OCI (${PER_FORMAT} × ${mib(FILE)} each), deleted three ways, trash emptied, GC with ${UPLOADS} uploads beside it`,
    );
    console.log(
      `  store    files ${mib(start.files)} at the start, ${mib(pushed.files)} pushed, ${mib(deleted.files)} deleted and trash emptied (before the GC), ${mib(end.files)} at the end: ${drift >= 0 ? '+' : ''}${(drift * 100).toFixed(3)} % (limit ± 1 %)`,
    );
    console.log(
      `           du -sb ${mib(start.bytes)} → ${mib(end.bytes)}, du -sk ${mib(start.allocated)} → ${mib(end.allocated)} (the difference to the files: empty fan-out folders)`,
    );
    console.log(
      `  GC       ${(gc.durationMs / 1000).toFixed(1)} s (request ${(gcWallMs / 1000).toFixed(1)} s), reclaimed ${gc.reclaimedBlobs} blobs, ${mib(gc.reclaimedBytes)}; push ${(timings.push! / 1000).toFixed(1)} s, deletes ${(timings.delete! / 1000).toFixed(1)} s`,
    );
    console.log(
      `  uploads  ${uploadsOk}/${UPLOADS} beside the GC succeeded and download with identical bytes (sha256); ${overlapped} were in flight while it ran`,
    );
    console.log(
      `  load average ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(', ')}`,
    );
    for (const f of failures) console.log(`  FAIL     ${f}`);
    console.log(`  result   ${failures.length === 0 ? 'pass' : 'FAIL'}`);
    if (failures.length > 0) process.exitCode = 1;
  } finally {
    await granary.stop();
    await rm(home, { recursive: true, force: true });
  }
}
