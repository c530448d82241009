// Soak (issue 12 acceptance): 30 minutes of mixed traffic against one Granary process — npm installs
// (the real npm CLI with a cold cache, and the packument + tarball reads an install makes), npm
// publishes, OCI pulls (manifest + blobs, as docker/skopeo pull), artifact and package searches —
// with the server's RSS sampled every minute. Reports the slope after warm-up: more than 1 MiB/min
// is a leak to find. BENCH_SOAK_MINUTES sets the length (0 skips it); BENCH_ONLY=soak runs it alone.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { testImage } from '../../apps/server/src/formats/docker/oci-testing.ts';
import { httpPublish } from '../../apps/server/src/formats/npm/test-support.ts';
import { rssMiB, startGranary } from '../lib/servers.ts';

const exec = promisify(execFile);
const MINUTES = Number(process.env.BENCH_SOAK_MINUTES ?? 30);
const WARMUP_MINUTES = Math.min(5, Math.floor(MINUTES / 3));
const PACKAGES = 20;

/** Least-squares slope of y over x. */
export function slope(points: { x: number; y: number }[]): number {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  const num = points.reduce((s, p) => s + (p.x - mx) * (p.y - my), 0);
  const den = points.reduce((s, p) => s + (p.x - mx) ** 2, 0);
  return den === 0 ? 0 : num / den;
}

function npmEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k)) env[k] = v;
  return { ...env, HOME: home, npm_config_update_notifier: 'false', npm_config_fund: 'false' };
}

async function check(res: Response | Promise<Response>, what: string): Promise<Response> {
  const r = await res;
  if (!r.ok) throw new Error(`${what}: ${r.status} ${await r.text().catch(() => '')}`);
  return r;
}

export async function run(): Promise<void> {
  if (!(MINUTES > 0)) return;
  const granary = await startGranary();
  const work = await mkdtemp(path.join(os.tmpdir(), 'granary-soak-'));
  const admin = `Basic ${Buffer.from('admin:bench-password').toString('base64')}`;
  const json = { authorization: admin, 'content-type': 'application/json' };
  const counts = { installs: 0, reads: 0, publishes: 0, pulls: 0, searches: 0, errors: 0 };
  const errors: string[] = [];
  try {
    for (const [key, packageType] of [
      ['npm-local', 'npm'],
      ['docker-local', 'docker'],
    ])
      await check(
        fetch(`${granary.url}/api/repositories/${key}`, {
          method: 'PUT',
          headers: json,
          body: JSON.stringify({ rclass: 'local', packageType }),
        }),
        `create ${key}`,
      );
    const registry = `${granary.url}/repository/npm-local/`;
    const versions = new Map<string, number>();
    for (let i = 0; i < PACKAGES; i++) {
      const name = `soak-pkg-${i}`;
      await check(httpPublish(registry, admin, { name, version: '1.0.0' }), `publish ${name}`);
      versions.set(name, 0);
    }
    // One image of three layers, pushed as a client does (POST an upload, PUT it with its digest).
    const image = testImage({ layerSizes: [64 * 1024, 512 * 1024, 2 * 1024 * 1024] });
    for (const blob of [image.config, ...image.layers]) {
      const start = await check(
        fetch(`${granary.url}/v2/docker-local/soak/blobs/uploads/`, {
          method: 'POST',
          headers: { authorization: admin },
        }),
        'start upload',
      );
      const location = new URL(start.headers.get('location')!, granary.url);
      location.searchParams.set('digest', blob.digest);
      await check(
        fetch(location, {
          method: 'PUT',
          headers: { authorization: admin, 'content-type': 'application/octet-stream' },
          body: blob.bytes,
        }),
        'finish upload',
      );
    }
    await check(
      fetch(`${granary.url}/v2/docker-local/soak/manifests/latest`, {
        method: 'PUT',
        headers: { authorization: admin, 'content-type': image.mediaType },
        body: image.manifest,
      }),
      'push manifest',
    );
    const project = path.join(work, 'project');
    await exec('mkdir', ['-p', project]);
    await writeFile(
      path.join(project, 'package.json'),
      JSON.stringify({
        name: 'soak-project',
        version: '1.0.0',
        private: true,
        dependencies: Object.fromEntries([...versions.keys()].slice(0, 10).map((n) => [n, '^1.0.0'])),
      }),
    );
    const token = (
      (await (
        await check(
          fetch(`${registry}-/user/org.couchdb.user:admin`, {
            method: 'PUT',
            headers: json,
            body: JSON.stringify({ name: 'admin', password: 'bench-password' }),
          }),
          'npm login',
        )
      ).json()) as { token: string }
    ).token;
    await writeFile(
      path.join(project, '.npmrc'),
      `registry=${registry}\n${registry.replace(/^http:/, '')}:_authToken=${token}\n`,
    );

    const end = Date.now() + MINUTES * 60_000;
    const attempt = async (what: keyof typeof counts, fn: () => Promise<unknown>) => {
      try {
        await fn();
        counts[what] += 1;
      } catch (err) {
        counts.errors += 1;
        if (errors.length < 10) errors.push(`${what}: ${(err as Error).message.slice(0, 300)}`);
      }
    };
    const bearer = { authorization: `Bearer ${token}` };
    const loops = [
      // An install's reads: every packument, then every tarball.
      async () => {
        for (const name of versions.keys()) {
          const doc = (await (
            await check(fetch(`${registry}${name}`, { headers: bearer }), name)
          ).json()) as {
            versions: Record<string, { dist: { tarball: string } }>;
          };
          for (const v of Object.values(doc.versions).slice(-2))
            await (await check(fetch(v.dist.tarball, { headers: bearer }), v.dist.tarball)).arrayBuffer();
        }
      },
      // Publishes: a new version of a package, in turn.
      async () => {
        const name = `soak-pkg-${counts.publishes % PACKAGES}`;
        const minor = (versions.get(name) ?? 0) + 1;
        versions.set(name, minor);
        await check(httpPublish(registry, admin, { name, version: `1.${minor}.0` }), `publish ${name}`);
        await new Promise((r) => setTimeout(r, 500));
      },
      // OCI pulls: manifest, config and layers.
      async () => {
        await check(
          fetch(`${granary.url}/v2/docker-local/soak/manifests/latest`, {
            headers: { authorization: admin, accept: image.mediaType },
          }),
          'manifest',
        );
        for (const blob of [image.config, ...image.layers])
          await (
            await check(
              fetch(`${granary.url}/v2/docker-local/soak/blobs/${blob.digest}`, {
                headers: { authorization: admin },
              }),
              'blob',
            )
          ).arrayBuffer();
      },
      // Searches: artifact by name and the packages list.
      async () => {
        await check(
          fetch(`${granary.url}/api/search/artifact?name=soak-pkg*`, { headers: { authorization: admin } }),
          'search',
        );
        await check(
          fetch(`${granary.url}/api/search/checksum?sha256=${image.layers[0]!.digest.slice(7)}`, {
            headers: { authorization: admin },
          }),
          'checksum search',
        );
      },
    ];
    const kinds: (keyof typeof counts)[] = ['reads', 'publishes', 'pulls', 'searches'];
    const workers = loops.map(async (loop, i) => {
      while (Date.now() < end) await attempt(kinds[i]!, loop);
    });
    // The real npm CLI: a cold-cache install once a minute.
    const installs = (async () => {
      while (Date.now() < end) {
        await attempt('installs', async () => {
          await rm(path.join(project, 'node_modules'), { recursive: true, force: true });
          await rm(path.join(project, 'package-lock.json'), { force: true });
          await exec('npm', ['install', '--no-audit', '--cache', path.join(work, `cache-${Date.now()}`)], {
            cwd: project,
            env: npmEnv(work),
            timeout: 120_000,
          });
        });
        await new Promise((r) => setTimeout(r, Math.min(60_000, Math.max(0, end - Date.now()))));
      }
    })();
    const samples: { x: number; y: number }[] = [];
    const started = Date.now();
    const sampler = (async () => {
      for (let minute = 0; Date.now() < end; minute++) {
        samples.push({ x: minute, y: rssMiB(granary.pid) });
        await new Promise((r) => setTimeout(r, Math.min(60_000, Math.max(0, end - Date.now()))));
      }
      samples.push({ x: (Date.now() - started) / 60_000, y: rssMiB(granary.pid) });
    })();
    await Promise.all([...workers, installs, sampler]);

    const afterWarmup = samples.filter((s) => s.x >= WARMUP_MINUTES);
    const rate = slope(afterWarmup);
    console.log(
      `\nsoak: ${MINUTES} min of mixed traffic (npm installs and reads, publishes, OCI pulls, searches), RSS every minute`,
    );
    console.log(`  RSS MiB by minute  ${samples.map((s) => s.y).join(' ')}`);
    console.log(
      `  requests           ${counts.installs} npm installs, ${counts.reads} install reads of ${PACKAGES} packages, ${counts.publishes} publishes, ${counts.pulls} image pulls, ${counts.searches} search pairs, ${counts.errors} errors`,
    );
    for (const e of errors) console.log(`  error              ${e}`);
    console.log(
      `  RSS slope          ${rate.toFixed(2)} MiB/min after ${WARMUP_MINUTES} min warm-up (limit 1 MiB/min: ${rate > 1 ? 'LEAK — find it' : 'ok'})`,
    );
  } finally {
    await granary.stop();
    await rm(work, { recursive: true, force: true });
  }
}
