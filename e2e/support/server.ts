import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { seedPgliteHome } from '../../apps/server/src/testing/pglite-seed.ts';

export const ROOT = path.resolve(import.meta.dirname, '../..');
const STARTUP_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 20_000;

export interface RunningServer {
  baseURL: string;
  home: string;
  adminPassword: string;
  stop(): Promise<void>;
}

/** A port the OS says is free: bind 127.0.0.1:0, read the port, release it. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.unref();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => (port ? resolve(port) : reject(new Error('no port assigned'))));
    });
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/**
 * Starts the real server as `npm start` runs it (`apps/server/dist/main.mjs`, built by `npm run build`)
 * on a free loopback port with a fresh
 * GRANARY_HOME, and resolves once `GET /api/system/ping` answers `OK`. Its output goes to `logFile`.
 */
export async function startServer(options: {
  logFile: string;
  adminPassword: string;
  /** Extra settings, e.g. GRANARY_FLAVOUR or GRANARY_LICENSE for a server of another kind. */
  env?: Record<string, string>;
}): Promise<RunningServer> {
  const main = path.join(ROOT, 'apps/server/dist/main.mjs');
  if (!existsSync(main))
    throw new Error(`The server is not built (${main}): run \`npm run build\` before the browser tests`);
  if (!existsSync(path.join(ROOT, 'apps/console/dist/index.html'))) {
    throw new Error('The console is not built: run `npm run build` before the browser tests');
  }

  const port = await freePort();
  const home = await mkdtemp(path.join(tmpdir(), 'granary-e2e-'));
  // A copy of one migrated embedded database rather than a new one per server (apps/server's testing seed).
  await seedPgliteHome(home);
  mkdirSync(path.dirname(options.logFile), { recursive: true });
  const log = createWriteStream(options.logFile);
  let stderr = '';

  const child = spawn(process.execPath, [main], {
    cwd: ROOT,
    env: {
      ...process.env,
      GRANARY_PORT: String(port),
      GRANARY_HOST: '127.0.0.1',
      GRANARY_HOME: home,
      GRANARY_ADMIN_PASSWORD: options.adminPassword,
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.pipe(log, { end: false });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-20_000);
    log.write(chunk);
  });

  const baseURL = `http://127.0.0.1:${port}`;
  const cleanup = async () => {
    await new Promise<void>((resolve) => log.end(resolve));
    await rm(home, { recursive: true, force: true });
  };
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timedOut = await Promise.race([
        exited(child).then(() => false),
        sleep(STOP_TIMEOUT_MS).then(() => true),
      ]);
      if (timedOut) {
        child.kill('SIGKILL');
        await exited(child);
      }
    }
    await cleanup();
  };

  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      await cleanup();
      throw new Error(
        `The server exited (${child.exitCode ?? child.signalCode}) before answering /api/system/ping:\n${stderr}`,
      );
    }
    try {
      const response = await fetch(`${baseURL}/api/system/ping`, { signal: AbortSignal.timeout(2_000) });
      if (response.ok && (await response.text()).trim() === 'OK') break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(
        `The server did not answer /api/system/ping within ${STARTUP_TIMEOUT_MS} ms:\n${stderr}`,
      );
    }
    await sleep(250);
  }

  return { baseURL, home, adminPassword: options.adminPassword, stop };
}
