// PyPI (issue 6): pip install with a cold cache and simple-page reads, Granary side by side with nginx
// serving the same wheels as a static PEP 503 index in the same run (the static-file limit; no PyPI
// repository manager is among the Debian packages). twine upload is timed for Granary alone: a static
// server takes no uploads.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { makeWheel } from '../../apps/server/src/formats/pypi/test-dists.ts';
import { startNginx } from '../lib/nginx.ts';
import { startGranary } from '../lib/servers.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const PACKAGES = Number(process.env.BENCH_PYPI_PACKAGES ?? 30);
const PASSWORD = 'bench-password';
const AUTH = `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}`;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const range = (values: number[], digits = 2) =>
  `${median(values).toFixed(digits)} (${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)})`;

function exec(cmd: string, args: string[], cwd: string): Promise<void> {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: cwd };
  delete env.PIP_FIND_LINKS;
  return new Promise((resolve, reject) =>
    execFile(cmd, args, { cwd, env, timeout: 600_000, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) =>
      err ? reject(new Error(`${cmd} failed: ${stdout}\n${stderr}`)) : resolve(),
    ),
  );
}

async function timed(fn: () => Promise<void>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e9;
}

export async function run(): Promise<void> {
  const work = await mkdtemp(path.join(os.tmpdir(), 'granary-bench-pypi-'));
  const wheels = await Promise.all(
    Array.from({ length: PACKAGES }, (_, i) => makeWheel({ name: `bench-pkg-${i}`, version: '1.0.0' })),
  );
  // One project with 20 versions, for page reads.
  const history = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      makeWheel({ name: 'bench-history', version: `1.${i}.0`, requiresPython: '>=3.8' }),
    ),
  );
  const paths: string[] = [];
  for (const w of [...wheels, ...history]) {
    const p = path.join(work, w.filename);
    await writeFile(p, w.bytes);
    paths.push(p);
  }
  // The static index nginx serves: /simple/{name}/index.html linking /files/{wheel}#sha256=.
  const files: Record<string, Buffer> = {};
  const groups = new Map<string, typeof wheels>();
  for (const w of [...wheels, ...history]) {
    const name = w.filename.split('-')[0]!.replace(/_/g, '-');
    groups.set(name, [...(groups.get(name) ?? []), w]);
  }
  for (const [name, list] of groups) {
    const links = list
      .map(
        (w) =>
          `<a href="/${w.filename}#sha256=${createHash('sha256').update(w.bytes).digest('hex')}" data-requires-python="&gt;=3.8">${w.filename}</a><br/>`,
      )
      .join('\n');
    files[`${name}.html`] = Buffer.from(`<!DOCTYPE html><html><body>\n${links}\n</body></html>\n`);
  }
  for (const w of [...wheels, ...history]) files[w.filename] = w.bytes;
  // pip reads nginx's files as one flat --find-links page (startNginx serves a flat folder).
  files['index.html'] = Buffer.concat([...groups.keys()].map((n) => files[`${n}.html`]!));
  const nginx = await startNginx(files);
  const granary = await startGranary();
  try {
    await fetch(`${granary.url}/api/repositories/bench-py`, {
      method: 'PUT',
      headers: { authorization: AUTH, 'content-type': 'application/json' },
      body: JSON.stringify({ rclass: 'local', packageType: 'pypi' }),
    });
    console.log(`\nPyPI: twine upload of ${paths.length} wheels to Granary (one twine process)`);
    const upload = await timed(() =>
      exec(
        'twine',
        [
          'upload',
          '--non-interactive',
          '--disable-progress-bar',
          '--repository-url',
          `${granary.url}/repository/bench-py/`,
          '-u',
          'admin',
          '-p',
          PASSWORD,
          ...paths,
        ],
        work,
      ),
    );
    console.log(`  granary  ${upload.toFixed(2)} s, ${(paths.length / upload).toFixed(1)} files/s`);

    const requirements = path.join(work, 'requirements.txt');
    await writeFile(requirements, wheels.map((_, i) => `bench-pkg-${i}==1.0.0`).join('\n'));
    const index = {
      granary: `${granary.url.replace('http://', `http://admin:${PASSWORD}@`)}/repository/bench-py/simple/`,
      ...(nginx ? { nginx: `${nginx.url}/index.html` } : {}),
    };
    console.log(`\nPyPI: pip install of ${PACKAGES} packages, cold cache, ${RUNS} runs (seconds)`);
    const seconds = new Map<string, number[]>();
    for (let r = 0; r < RUNS; r++)
      for (const [name, url] of Object.entries(index)) {
        const target = path.join(work, `site-${name}-${r}`);
        const args = name === 'nginx' ? ['--no-index', '--find-links', url] : ['--index-url', url];
        const s = await timed(() =>
          exec(
            '/usr/bin/python3',
            [
              '-m',
              'pip',
              'install',
              '--isolated',
              '--no-cache-dir',
              '--disable-pip-version-check',
              '--quiet',
              '--target',
              target,
              ...args,
              '-r',
              requirements,
            ],
            work,
          ),
        );
        seconds.set(name, [...(seconds.get(name) ?? []), s]);
      }
    for (const [name, values] of seconds) console.log(`  ${name.padEnd(8)} ${range(values)} s`);
    if (seconds.has('nginx'))
      console.log(
        `  ratio    ${(median(seconds.get('granary')!) / median(seconds.get('nginx')!)).toFixed(2)}× nginx time`,
      );

    console.log(`\nPyPI: simple page of a 20-file project, 10 connections, ${RUNS}×${SECONDS} s (req/s)`);
    const pages = {
      'granary html': {
        url: `${granary.url}/repository/bench-py/simple/bench-history/`,
        headers: { authorization: AUTH },
      },
      'granary json': {
        url: `${granary.url}/repository/bench-py/simple/bench-history/`,
        headers: { authorization: AUTH, accept: 'application/vnd.pypi.simple.v1+json' },
      },
      ...(nginx ? { nginx: { url: `${nginx.url}/bench-history.html`, headers: {} } } : {}),
    };
    const rates = new Map<string, number>();
    for (const [name, { url, headers }] of Object.entries(pages)) {
      const values: number[] = [];
      for (let r = 0; r < RUNS; r++) {
        const result = await autocannon({ url, connections: 10, duration: SECONDS, headers });
        if (result.non2xx > 0) throw new Error(`${name}: ${result.non2xx} answers were not 2xx`);
        values.push(result.requests.average);
      }
      rates.set(name, median(values));
      console.log(`  ${name.padEnd(13)} ${range(values, 0)} req/s`);
    }
    if (nginx)
      console.log(`  ratio        ${(rates.get('granary html')! / rates.get('nginx')!).toFixed(2)}× nginx`);
  } finally {
    await granary.stop();
    await nginx?.stop();
    await rm(work, { recursive: true, force: true });
  }
}
