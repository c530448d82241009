import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BLOB_CACHE_MAX_ENTRY_BYTES, BlobCache } from './blob-cache.ts';
import { createBlobStore } from './index.ts';
import type { BlobStore } from './types.ts';

describe('blob cache: small blobs from memory, bounded', () => {
  let home: string;
  let store: BlobStore;
  beforeAll(async () => {
    home = await mkdtemp(path.join(os.tmpdir(), 'granary-blob-cache-'));
    store = await createBlobStore({ home });
  });
  afterAll(async () => {
    await store.close();
    await rm(home, { recursive: true, force: true });
  });
  const put = async (bytes: Buffer) => store.put(Readable.from([bytes]));

  it('returns the blob bytes, and the same buffer on the next read', async () => {
    const cache = new BlobCache(store, 1024 * 1024);
    const bytes = Buffer.from('hello cache');
    const { sha256, size } = await put(bytes);
    const first = await cache.read(sha256, size);
    expect(first?.equals(bytes)).toBe(true);
    expect(await cache.read(sha256, size)).toBe(first);
    expect(cache.sizeBytes).toBe(bytes.length);
  });

  it('keeps within its capacity, dropping the least recently read first', async () => {
    const cache = new BlobCache(store, 4000);
    const blobs = await Promise.all([1, 2, 3].map((n) => put(Buffer.alloc(900, n))));
    for (const b of blobs) await cache.read(b.sha256, b.size);
    await cache.read(blobs[0]!.sha256, blobs[0]!.size); // 1 is now the most recent
    const fourth = await put(Buffer.alloc(900, 4));
    const fifth = await put(Buffer.alloc(900, 5));
    await cache.read(fourth.sha256, fourth.size);
    await cache.read(fifth.sha256, fifth.size);
    expect(cache.sizeBytes).toBeLessThanOrEqual(4000);
    const before = cache.sizeBytes;
    // blob 2 (least recent) was dropped: reading it loads it again and the total changes
    await cache.read(blobs[1]!.sha256, blobs[1]!.size);
    expect(cache.sizeBytes).toBeLessThanOrEqual(4000);
    expect(cache.sizeBytes).toBe(before);
  });

  it('does not hold blobs over the entry limit, nor any when its capacity is 0', async () => {
    const cache = new BlobCache(store, 64 * 1024 * 1024);
    expect(await cache.read('0'.repeat(64), BLOB_CACHE_MAX_ENTRY_BYTES + 1)).toBeNull();
    const off = new BlobCache(store, 0);
    const b = await put(Buffer.from('x'));
    expect(await off.read(b.sha256, b.size)).toBeNull();
  });
});
