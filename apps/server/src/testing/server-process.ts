import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';

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
