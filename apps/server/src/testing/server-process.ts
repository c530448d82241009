import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { seedPgliteHome } from './pglite-seed.ts';

const MAIN = path.resolve(import.meta.dirname, '../main.ts');

/** A free port on loopback (tests share the machine: never a fixed port). */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

export interface ServerProcess {
  child: ChildProcess;
  /** The last 4,000 characters the process printed (stdout and stderr). */
  out(): string;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
}

/**
 * The real server process (`main.ts`, as `npm start` runs it) on loopback with its own home and the
 * embedded database; `env` adds or overrides settings.
 */
export function startServerProcess(
  home: string,
  port: number,
  env: Record<string, string> = {},
): ServerProcess {
  let out = '';
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    env: {
      ...process.env,
      GRANARY_HOME: home,
      GRANARY_PORT: String(port),
      GRANARY_HOST: '127.0.0.1',
      GRANARY_ADMIN_PASSWORD: '',
      GRANARY_DATABASE_URL: '',
      GRANARY_BLOBSTORE_URL: '',
      GRANARY_LOG_STDOUT: 'false',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const collect = (d: Buffer) => {
    out = (out + d.toString()).slice(-4000);
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, out: () => out, exited };
}

/** Waits until `GET /api/system/ping` answers OK; fails with the server's output if it exits first. */
export async function waitForPing(port: number, proc: ServerProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc.child.exitCode !== null) throw new Error(`server exited: ${proc.out()}`);
    const ok = await fetch(`http://127.0.0.1:${port}/api/system/ping`)
      .then((r) => r.text())
      .catch(() => '');
    if (ok === 'OK') return;
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`server did not answer ping in ${timeoutMs} ms: ${proc.out()}`);
}

/** A real server process for client suites: its URLs, the admin's Basic credentials, and cleanup. */
export interface TestServer {
  proc: ServerProcess;
  port: number;
  home: string;
  /** `127.0.0.1:{port}` */
  host: string;
  /** `http://127.0.0.1:{port}` */
  url: string;
  /** `Basic …` of the admin */
  auth: string;
  /** `PUT /api/repositories/{key}` as the admin; throws unless it was created. */
  createRepository(key: string, body: Record<string, unknown>): Promise<void>;
  /** SIGTERM, wait for the exit, remove the home folder. */
  stop(): Promise<void>;
}

/** Starts `main.ts` on a free loopback port with its own temp home and the given admin password. */
export async function startTestServer(
  adminPassword: string,
  env: Record<string, string> = {},
  // The machine is shared: a first start (embedded database creation) can take long under load.
  timeoutMs = 240_000,
): Promise<TestServer> {
  const home = await mkdtemp(path.join(os.tmpdir(), 'granary-client-'));
  await seedPgliteHome(home);
  const port = await freePort();
  const proc = startServerProcess(home, port, { GRANARY_ADMIN_PASSWORD: adminPassword, ...env });
  await waitForPing(port, proc, timeoutMs);
  const url = `http://127.0.0.1:${port}`;
  const auth = `Basic ${Buffer.from(`admin:${adminPassword}`).toString('base64')}`;
  return {
    proc,
    port,
    home,
    host: `127.0.0.1:${port}`,
    url,
    auth,
    async createRepository(key, body) {
      const res = await fetch(`${url}/api/repositories/${key}`, {
        method: 'PUT',
        headers: { authorization: auth, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (res.status !== 201) throw new Error(`creating ${key}: ${res.status} ${await res.text()}`);
    },
    async stop() {
      if (proc.child.exitCode === null) {
        proc.child.kill('SIGTERM');
        await proc.exited;
      }
      await rm(home, { recursive: true, force: true });
    },
  };
}
