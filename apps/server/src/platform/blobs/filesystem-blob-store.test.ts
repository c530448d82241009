import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chunked, describeBlobStore, digests } from './blob-store-suite.ts';
import { createBlobStore } from './index.ts';

async function filesUnder(root: string): Promise<string[]> {
  try {
    const entries = await readdir(root, { recursive: true, withFileTypes: true });
    return entries
      .filter((entry) => !entry.isDirectory())
      .map((entry) => join(entry.parentPath, entry.name).slice(root.length + 1))
      .sort();
  } catch {
    return [];
  }
}

describeBlobStore(
  'filesystem',
  async () => {
    const home = await mkdtemp(join(tmpdir(), 'granary-blobs-fs-'));
    const store = await createBlobStore({ home });
    return {
      store,
      home,
      storedObjects: () => filesUnder(join(home, 'blobs')),
      objectName: (layoutPath) => layoutPath,
      cleanup: async () => {
        await store.close();
        await rm(home, { recursive: true, force: true });
      },
    };
  },
  // Measured here: 5–10 MiB retained (the 1 MiB write buffer, a few 1 MiB chunks in flight, test noise).
  { bigWriteBytes: 128 * 1024 * 1024, maxGrowthBytes: 48 * 1024 * 1024 },
);

describe('filesystem blob store specifics', () => {
  it('issue 24 S4: a blob hashed on its way in, or read whole and matched, is not hashed again until its file changes', async () => {
    const home = await mkdtemp(join(tmpdir(), 'granary-blobs-fs-'));
    try {
      const store = await createBlobStore({ home });
      const bytes = Buffer.from('verified once\n');
      const { sha256 } = await store.put(chunked(bytes));
      const path = join(home, 'blobs', sha256.slice(0, 2), sha256.slice(2, 4), sha256);
      const open = async () => {
        const opened = await store.openFile!(sha256);
        await opened.file.close();
        return opened;
      };
      expect((await open()).recentlyVerified).toBe(true);
      // Rewritten in place (same inode, same size): another identity, so the next download hashes it.
      await writeFile(path, Buffer.from('verified ONCE\n'));
      const rewritten = await open();
      expect(rewritten.recentlyVerified).toBe(false);
      rewritten.markVerified();
      expect((await open()).recentlyVerified).toBe(true);
      await store.quarantine(sha256);
      await writeFile(path, bytes);
      expect((await open()).recentlyVerified).toBe(false);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it('is the default and keeps blobs under home/blobs/ab/cd/', async () => {
    const home = await mkdtemp(join(tmpdir(), 'granary-blobs-fs-'));
    try {
      const store = await createBlobStore({ home, url: '' });
      expect(store.kind).toBe('filesystem');
      const bytes = Buffer.from('hello granary\n');
      const { sha256 } = await store.put(chunked(bytes));
      const path = join(home, 'blobs', sha256.slice(0, 2), sha256.slice(2, 4), sha256);
      expect((await stat(path)).size).toBe(bytes.length);
      expect(sha256).toBe(digests(bytes).sha256);
      expect(await readdir(join(home, 'tmp', 'blobs'))).toEqual([]);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it('lists only well-formed blob files', async () => {
    const home = await mkdtemp(join(tmpdir(), 'granary-blobs-fs-'));
    try {
      const store = await createBlobStore({ home });
      const { sha256 } = await store.put(chunked(Buffer.from('x')));
      await mkdir(join(home, 'blobs', 'zz', '00'), { recursive: true });
      await writeFile(join(home, 'blobs', 'zz', '00', 'a'.repeat(64)), 'stray');
      await writeFile(
        join(home, 'blobs', sha256.slice(0, 2), sha256.slice(2, 4), 'b'.repeat(64)),
        'misplaced',
      );
      await writeFile(join(home, 'blobs', 'README'), 'not a blob');
      const listed: string[] = [];
      for await (const sha of store.list()) listed.push(sha);
      expect(listed).toEqual([sha256]);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
