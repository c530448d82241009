import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ensureServerBuilt, SERVER_BUNDLE } from '../../scripts/build-server.mjs';

export const ROOT = path.resolve(import.meta.dirname, '../..');

export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

export interface RunningServer {
  name: string;
  url: string;
  pid: number;
  stop(): Promise<void>;
}

async function waitFor(url: string, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`exited early: ${log()}`);
    if (
      await fetch(url).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`no answer from ${url}: ${log()}`);
}

function spawnServer(args: string[], env: NodeJS.ProcessEnv): { child: ChildProcess; log: () => string } {
  let log = '';
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => {
    log += d;
  });
  child.stderr!.on('data', (d) => {
    log += d;
  });
  return { child, log: () => log.slice(-4000) };
}

function stopper(child: ChildProcess, cleanup?: () => Promise<void>) {
  return async () => {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    await cleanup?.();
  };
}

/** Granary as `npm start` runs it (plain Node, the bundle), on a free loopback port with its own temp home and embedded database. */
export async function startGranary(env: NodeJS.ProcessEnv = {}): Promise<RunningServer> {
  const home = await mkdtemp(path.join(os.tmpdir(), 'granary-bench-'));
  const port = await freePort();
  // BENCH_SERVER_NODE_ARGS: node options for the server only, e.g. `--cpu-prof --cpu-prof-dir=/tmp/p`.
  const nodeArgs = process.env.BENCH_SERVER_NODE_ARGS?.split(/\s+/).filter(Boolean) ?? [];
  // The server as `npm start` runs it: the bundle (scripts/build-server.mjs), built when stale.
  await ensureServerBuilt({ quiet: true });
  const { child, log } = spawnServer([...nodeArgs, SERVER_BUNDLE], {
    GRANARY_HOME: home,
    GRANARY_PORT: String(port),
    GRANARY_HOST: '127.0.0.1',
    GRANARY_ADMIN_PASSWORD: 'bench-password',
    GRANARY_LOG_STDOUT: 'false',
    ...env,
  });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/api/system/ping`, child, log);
  return {
    name: 'granary',
    url,
    pid: child.pid!,
    stop: stopper(child, () => rm(home, { recursive: true, force: true })),
  };
}

/** A bare Node `http` server answering the same body: the ceiling for a Node process. */
export async function startBareNode(): Promise<RunningServer> {
  const port = await freePort();
  const code = `require('http').createServer((q,s)=>{s.writeHead(200,{'content-type':'text/plain; charset=utf-8'});s.end('OK')}).listen(${port},'127.0.0.1')`;
  const { child, log } = spawnServer(['-e', code], {});
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/`, child, log);
  return { name: 'bare node', url, pid: child.pid!, stop: stopper(child) };
}

/**
 * CPU time a process has used so far, user and system, in milliseconds (Linux /proc; clock ticks of
 * 10 ms, as on every common kernel). The difference over a run says what the work cost the server,
 * which wall time on a shared two-core machine blurs.
 */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Resident memory of a process, from /proc (Linux). */
export function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
}

/**
 * Runs `fn` with a throw-away PostgreSQL server on loopback (scripts/postgres.sh: fsync off, so a
 * floor for what PostgreSQL itself costs), stopped afterwards. Returns why it was skipped (PostgreSQL
 * not installed), or null once `fn` has run.
 */
export async function withPostgres(fn: (url: string) => Promise<void>): Promise<string | null> {
  const script = path.join(ROOT, 'scripts', 'postgres.sh');
  const dir = await mkdtemp(path.join(os.tmpdir(), 'granary-bench-pg-'));
  let url: string;
  try {
    url = execFileSync('bash', [script, 'start', dir], { encoding: 'utf8' }).trim();
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    return (err as Error).message.split('\n')[0]!;
  }
  try {
    await fn(url);
    return null;
  } finally {
    execFileSync('bash', [script, 'stop', dir]);
  }
}
