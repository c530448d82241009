// Maven deploy and resolve (issue 7), Granary side by side with nginx serving and accepting (WebDAV PUT)
// the same Maven layout in the same run — a plain HTTP Maven repository, the static-file limit. There is
// no Maven repository manager among the Debian packages to compare with.
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { reqPerSec as loadRate } from '../lib/load.ts';
import { nginxBinary } from '../lib/nginx.ts';
import { freePort, startGranary } from '../lib/servers.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ARTIFACTS = Number(process.env.BENCH_MAVEN_ARTIFACTS ?? 30);
const AUTH = `Basic ${Buffer.from('admin:bench-password').toString('base64')}`;
const JAR = randomBytes(64 * 1024);
const hex = (algorithm: string, bytes: Buffer | string) => createHash(algorithm).update(bytes).digest('hex');

interface Target {
  name: string;
  /** repository base URL */
  base: string;
  headers: Record<string, string>;
  stop(): Promise<void>;
}

/** nginx with WebDAV PUT (create_full_put_path) on a free loopback port: a static Maven repository. */
async function startNginxDav(): Promise<Target | null> {
  const bin = nginxBinary();
  if (!bin) return null;
  const dir = await mkdtemp(path.join(os.tmpdir(), 'granary-bench-mvn-nginx-'));
  await chmod(dir, 0o777);
  const root = path.join(dir, 'www');
  // Run as root, nginx's workers drop to an unprivileged user: they must be able to write here.
  for (const d of [root, path.join(dir, 'tmp')]) {
    await mkdir(d);
    await chmod(d, 0o777);
  }
  const port = await freePort();
  const conf = path.join(dir, 'nginx.conf');
  await writeFile(
    conf,
    `daemon off; worker_processes 1; pid ${dir}/nginx.pid; error_log ${dir}/error.log;
events { worker_connections 1024; }
http { access_log off; sendfile on; keepalive_requests 100000; client_max_body_size 100m;
  client_body_temp_path ${dir}/tmp; proxy_temp_path ${dir}/tmp; fastcgi_temp_path ${dir}/tmp;
  uwsgi_temp_path ${dir}/tmp; scgi_temp_path ${dir}/tmp;
  server { listen 127.0.0.1:${port}; root ${root};
    location / { dav_methods PUT; create_full_put_path on; dav_access user:rw group:rw all:r; } } }
`,
  );
  const child: ChildProcess = spawn(bin, ['-c', conf, '-p', dir], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  while (
    !(await fetch(`${url}/`).then(
      () => true,
      () => false,
    ))
  ) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error('nginx did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    name: 'nginx',
    base: url,
    headers: {},
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGQUIT');
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function request(t: Target, method: string, p: string, body?: Buffer | string): Promise<string> {
  const res = await fetch(`${t.base}/${p}`, { method, headers: t.headers, body });
  const text = await res.text();
  if (res.status >= 400 && !(method === 'GET' && res.status === 404))
    throw new Error(`${t.name}: ${method} ${p} → ${res.status} ${text.slice(0, 200)}`);
  return text;
}

/** What mvn deploy sends for one release (resolver 1.6): file + .sha1 + .md5 each, metadata read then written. */
async function deployLikeMvn(t: Target, artifactId: string, version: string): Promise<void> {
  const ga = `org/granary/bench/${artifactId}`;
  const dir = `${ga}/${version}`;
  const pom = `<project><modelVersion>4.0.0</modelVersion><groupId>org.granary.bench</groupId><artifactId>${artifactId}</artifactId><version>${version}</version></project>`;
  for (const [name, bytes] of [
    [`${artifactId}-${version}.jar`, JAR],
    [`${artifactId}-${version}.pom`, Buffer.from(pom)],
  ] as const) {
    await request(t, 'PUT', `${dir}/${name}`, bytes);
    await request(t, 'PUT', `${dir}/${name}.sha1`, hex('sha1', bytes));
    await request(t, 'PUT', `${dir}/${name}.md5`, hex('md5', bytes));
  }
  await request(t, 'GET', `${ga}/maven-metadata.xml`);
  const meta = `<metadata><groupId>org.granary.bench</groupId><artifactId>${artifactId}</artifactId><versioning><release>${version}</release><versions><version>${version}</version></versions><lastUpdated>20240101000000</lastUpdated></versioning></metadata>`;
  await request(t, 'PUT', `${ga}/maven-metadata.xml`, meta);
  await request(t, 'PUT', `${ga}/maven-metadata.xml.sha1`, hex('sha1', meta));
  await request(t, 'PUT', `${ga}/maven-metadata.xml.md5`, hex('md5', meta));
}

const reqPerSec = (url: string, headers: Record<string, string>) => loadRate(url, headers, SECONDS);

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export async function run(): Promise<void> {
  const granaryServer = await startGranary();
  const nginx = await startNginxDav();
  try {
    const created = await fetch(`${granaryServer.url}/api/repositories/bench-maven`, {
      method: 'PUT',
      headers: { authorization: AUTH, 'content-type': 'application/json' },
      body: JSON.stringify({ rclass: 'local', packageType: 'maven' }),
    });
    if (created.status !== 201)
      throw new Error(`create repository: ${created.status} ${await created.text()}`);
    const granary: Target = {
      name: 'granary',
      base: `${granaryServer.url}/repository/bench-maven`,
      headers: { authorization: AUTH },
      stop: granaryServer.stop,
    };
    const targets = [granary, ...(nginx ? [nginx] : [])];

    console.log(
      `\nMV1 deploy ${ARTIFACTS} releases as mvn deploy does (jar 64 KiB + POM, .sha1/.md5 each, metadata read and written; 11 requests each, sequential), ${RUNS} runs`,
    );
    const deploySecs = new Map<string, number[]>();
    for (let r = 0; r < RUNS; r++)
      for (const t of targets) {
        const start = performance.now();
        for (let i = 0; i < ARTIFACTS; i++) await deployLikeMvn(t, `lib${i}`, `1.0.${r}`);
        deploySecs.set(t.name, [...(deploySecs.get(t.name) ?? []), (performance.now() - start) / 1000]);
      }
    for (const t of targets) {
      const s = deploySecs.get(t.name)!;
      console.log(
        `  ${t.name.padEnd(8)} ${median(s).toFixed(2)} s (${Math.min(...s).toFixed(2)}–${Math.max(...s).toFixed(2)}), ${((ARTIFACTS * 11) / median(s)).toFixed(0)} requests/s`,
      );
    }
    if (nginx)
      console.log(
        `  ratio    ${(median(deploySecs.get('granary')!) / median(deploySecs.get('nginx')!)).toFixed(2)}× nginx time`,
      );

    for (const [label, p] of [
      ['MV2 resolve GET maven-metadata.xml', 'org/granary/bench/lib0/maven-metadata.xml'],
      ['MV3 resolve GET jar.sha1', 'org/granary/bench/lib0/1.0.0/lib0-1.0.0.jar.sha1'],
      ['MV4 resolve GET 64 KiB jar', 'org/granary/bench/lib0/1.0.0/lib0-1.0.0.jar'],
    ] as const) {
      console.log(`\n${label}, 10 connections, ${RUNS}×${SECONDS} s`);
      const rates = new Map<string, number>();
      for (const t of targets) {
        const url = `${t.base}/${p}`;
        await reqPerSec(url, t.headers);
        const values: number[] = [];
        for (let r = 0; r < RUNS; r++) values.push(await reqPerSec(url, t.headers));
        rates.set(t.name, median(values));
        console.log(
          `  ${t.name.padEnd(8)} ${Math.round(median(values))} req/s (${Math.round(Math.min(...values))}–${Math.round(Math.max(...values))})`,
        );
      }
      if (nginx) console.log(`  ratio    ${(rates.get('granary')! / rates.get('nginx')!).toFixed(2)}× nginx`);
    }
  } finally {
    await granaryServer.stop();
    await nginx?.stop();
  }
}
