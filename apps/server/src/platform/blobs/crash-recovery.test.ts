import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp } from '../../testing/index.ts';
import { createBlobStore } from './index.ts';

const CHILD_SCRIPT = fileURLToPath(new URL('./crash-writer.ts', import.meta.url));
const SERVER_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const MIB = 1024 * 1024;

async function tempBytes(dir: string): Promise<number> {
  let total = 0;
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    total += (await stat(join(dir, name)).catch(() => ({ size: 0 }))).size;
  }
  return total;
}

async function filesUnder(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => !entry.isDirectory()).map((entry) => join(entry.parentPath, entry.name));
}

describe('filesystem blob store after a crash', () => {
  let home: string | undefined;
  let child: ChildProcess | undefined;

  afterEach(async () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    if (home) await rm(home, { recursive: true, force: true });
  });

  it('a write killed with SIGKILL mid-stream leaves nothing visible, and purgeTemp cleans up', async () => {
    home = await mkdtemp(join(tmpdir(), 'granary-blobs-crash-'));
    const tempDir = join(home, 'tmp', 'blobs');
    const output: string[] = [];
    const started = spawn(process.execPath, ['--import', 'tsx', CHILD_SCRIPT, home, '500'], {
      cwd: SERVER_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = started;
    started.stdout?.on('data', (data: Buffer) => output.push(data.toString()));
    started.stderr?.on('data', (data: Buffer) => output.push(data.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      started.once('exit', (code, signal) => resolve({ code, signal })),
    );

    // Kill once the temp file holds a good part of the write.
    const deadline = Date.now() + 15_000;
    let written = 0;
    while (Date.now() < deadline && started.exitCode === null) {
      written = await tempBytes(tempDir);
      if (written > 16 * MIB) break;
      await sleep(10);
    }
    expect(written, `child output: ${output.join('')}`).toBeGreaterThan(16 * MIB);
    started.kill('SIGKILL');
    const { signal } = await exited;
    expect(signal, `child output: ${output.join('')}`).toBe('SIGKILL');
    expect(output.join('')).not.toContain('finished');

    // A new store on the same home, as after a restart.
    const store = await createBlobStore({ home });
    const listed: string[] = [];
    for await (const sha of store.list()) listed.push(sha);
    expect(listed).toEqual([]);
    expect(await filesUnder(join(home, 'blobs'))).toEqual([]);
    const leftovers = await readdir(tempDir);
    expect(leftovers.length).toBe(1);
    expect(await tempBytes(tempDir)).toBeGreaterThan(16 * MIB);

    expect(await store.purgeTemp()).toEqual({ removed: 1 });
    expect(await readdir(tempDir)).toEqual([]);
    await store.close();
  });

  it('the server, restarted on a home where a 500 MB write was killed, purges the leftovers at start and shows nothing', async () => {
    home = await mkdtemp(join(tmpdir(), 'granary-server-crash-'));
    const tempDir = join(home, 'tmp', 'blobs');
    const started = spawn(process.execPath, ['--import', 'tsx', CHILD_SCRIPT, home, '500'], {
      cwd: SERVER_ROOT,
      stdio: 'ignore',
    });
    child = started;
    const exited = new Promise((resolve) => started.once('exit', resolve));
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline && started.exitCode === null && (await tempBytes(tempDir)) <= 16 * MIB) {
      await sleep(10);
    }
    started.kill('SIGKILL');
    await exited;
    expect(await tempBytes(tempDir)).toBeGreaterThan(16 * MIB);

    const server = await createTestApp({}, { home });
    try {
      expect(await readdir(tempDir)).toEqual([]);
      const listed: string[] = [];
      for await (const sha of server.app.granary.blobs.list()) listed.push(sha);
      expect(listed).toEqual([]);
      server.app.granary.logging.flush();
    } finally {
      await server.close();
    }
  });
});
