import { createHash, randomBytes } from 'node:crypto';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BlobNotFoundError, type BlobStore, ChecksumMismatchError } from './index.ts';

/** What the shared suite needs from one implementation. */
export interface BlobStoreFixture {
  store: BlobStore;
  home: string;
  /** Every stored object (file path under `home/blobs`, or bucket key), read without the store. */
  storedObjects(): Promise<string[]>;
  /** What `storedObjects` names a blob with this layout path (`ab/cd/abcd…`). */
  objectName(layoutPath: string): string;
  cleanup(): Promise<void>;
}

export interface BlobStoreSuiteOptions {
  /** Size of the streamed write that must not be buffered. */
  bigWriteBytes: number;
  /** How much the process may retain while writing it: a bound that does not depend on the size. */
  maxGrowthBytes: number;
}

const MIB = 1024 * 1024;

export function digests(bytes: Uint8Array): { sha256: string; sha1: string; md5: string; size: number } {
  return {
    sha256: createHash('sha256').update(bytes).digest('hex'),
    sha1: createHash('sha1').update(bytes).digest('hex'),
    md5: createHash('md5').update(bytes).digest('hex'),
    size: bytes.length,
  };
}

/** Yields `bytes` in chunks of the given sizes (cycled), as a network body would arrive. */
export async function* chunked(
  bytes: Uint8Array,
  sizes: number[] = [1, 1000, 65536, 7],
): AsyncGenerator<Uint8Array> {
  let offset = 0;
  let i = 0;
  while (offset < bytes.length) {
    const size = sizes[i % sizes.length]!;
    yield bytes.slice(offset, offset + size);
    offset += size;
    i += 1;
    await Promise.resolve();
  }
}

export async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of stream) parts.push(Buffer.from(part as Uint8Array));
  return Buffer.concat(parts);
}

/** Byte-exact comparison that stays fast on large buffers and names the first differing offset. */
export function expectBytes(actual: Uint8Array, expected: Uint8Array): void {
  expect(actual.length, 'length').toBe(expected.length);
  const a = Buffer.from(actual.buffer, actual.byteOffset, actual.length);
  if (a.equals(expected)) return;
  const at = a.findIndex((byte, i) => byte !== expected[i]);
  expect.fail(`bytes differ from offset ${at}`);
}

export async function tempEntries(home: string): Promise<string[]> {
  try {
    return await readdir(join(home, 'tmp', 'blobs'));
  } catch {
    return [];
  }
}

async function listAll(store: BlobStore): Promise<string[]> {
  const shas: string[] = [];
  for await (const sha of store.list()) shas.push(sha);
  return shas.sort();
}

function layoutPath(sha256: string): string {
  return `${sha256.slice(0, 2)}/${sha256.slice(2, 4)}/${sha256}`;
}

/** `gc()` without starting node with --expose-gc: measure what is retained, not garbage not yet collected. */
function exposedGc(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

function retainedBytes(): number {
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
}

/** Runs the same behaviour checks against one implementation of BlobStore. */
export function describeBlobStore(
  name: string,
  setup: () => Promise<BlobStoreFixture>,
  options: BlobStoreSuiteOptions,
): void {
  describe(`${name} blob store`, () => {
    let f: BlobStoreFixture;

    beforeEach(async () => {
      f = await setup();
    });

    afterEach(async () => {
      await f.cleanup();
    });

    async function expectNothingStored(): Promise<void> {
      expect(await f.storedObjects()).toEqual([]);
      expect(await listAll(f.store)).toEqual([]);
      expect(await tempEntries(f.home)).toEqual([]);
    }

    it('round-trips bytes with sha256, sha1, md5 and size computed in one pass', async () => {
      const bytes = randomBytes(300_000);
      const want = digests(bytes);

      const info = await f.store.put(chunked(bytes));

      expect(info).toEqual({ ...want, created: true });
      expectBytes(await readAll(await f.store.get(want.sha256)), bytes);
      expect(await f.store.stat(want.sha256)).toEqual({ size: bytes.length });
      expect(await f.storedObjects()).toEqual([f.objectName(layoutPath(want.sha256))]);
      expect(await tempEntries(f.home)).toEqual([]);
    });

    it('accepts a Node readable stream as the source', async () => {
      const bytes = randomBytes(200_000);
      const info = await f.store.put(Readable.from([bytes.subarray(0, 1234), bytes.subarray(1234)]));
      expect(info.sha256).toBe(digests(bytes).sha256);
      expectBytes(await readAll(await f.store.get(info.sha256)), bytes);
    });

    it('stores an empty blob', async () => {
      const info = await f.store.put(chunked(new Uint8Array(0)));
      expect(info).toEqual({ ...digests(new Uint8Array(0)), created: true });
      expect(info.sha256).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
      expect((await readAll(await f.store.get(info.sha256))).length).toBe(0);
      expect(await f.store.stat(info.sha256)).toEqual({ size: 0 });
    });

    it('reads inclusive byte ranges', async () => {
      const bytes = randomBytes(100_000);
      const { sha256 } = await f.store.put(chunked(bytes));

      expectBytes(await readAll(await f.store.get(sha256, { start: 10, end: 19 })), bytes.subarray(10, 20));
      expectBytes(await readAll(await f.store.get(sha256, { start: 0, end: 0 })), bytes.subarray(0, 1));
      expectBytes(
        await readAll(await f.store.get(sha256, { start: 99_990, end: 99_999 })),
        bytes.subarray(99_990),
      );
      // An end past the last byte is clamped, as HTTP does.
      expectBytes(
        await readAll(await f.store.get(sha256, { start: 99_000, end: 5_000_000 })),
        bytes.subarray(99_000),
      );
      await expect(f.store.get(sha256, { start: 100_000, end: 100_010 })).rejects.toThrow(RangeError);
      await expect(f.store.get(sha256, { start: 20, end: 10 })).rejects.toThrow(RangeError);
      await expect(f.store.get(sha256, { start: -1, end: 10 })).rejects.toThrow(RangeError);
    });

    it('stores identical content once', async () => {
      const bytes = randomBytes(150_000);
      const first = await f.store.put(chunked(bytes, [4096]));
      const second = await f.store.put(chunked(bytes, [333, 70_000]));

      expect(first.created).toBe(true);
      expect(second).toEqual({ ...digests(bytes), created: false });
      expect(await f.storedObjects()).toEqual([f.objectName(layoutPath(first.sha256))]);
      expect(await listAll(f.store)).toEqual([first.sha256]);
      expect(await tempEntries(f.home)).toEqual([]);
      expectBytes(await readAll(await f.store.get(first.sha256)), bytes);
    });

    it('stores identical content once when two writes race', async () => {
      const bytes = randomBytes(500_000);
      const results = await Promise.all([
        f.store.put(chunked(bytes)),
        f.store.put(chunked(bytes, [100_000])),
      ]);
      expect(results.map((r) => r.sha256)).toEqual([digests(bytes).sha256, digests(bytes).sha256]);
      expect(await f.storedObjects()).toEqual([f.objectName(layoutPath(digests(bytes).sha256))]);
      expectBytes(await readAll(await f.store.get(digests(bytes).sha256)), bytes);
      expect(await tempEntries(f.home)).toEqual([]);
    });

    it('verifies expected checksums and size, case-insensitively', async () => {
      const bytes = randomBytes(10_000);
      const want = digests(bytes);
      const info = await f.store.put(chunked(bytes), {
        sha256: want.sha256.toUpperCase(),
        sha1: want.sha1,
        md5: want.md5.toUpperCase(),
        size: bytes.length,
      });
      expect(info).toEqual({ ...want, created: true });
    });

    for (const checksum of ['sha256', 'sha1', 'md5'] as const) {
      it(`refuses a ${checksum} mismatch and stores nothing`, async () => {
        const bytes = randomBytes(50_000);
        const want = digests(bytes);
        const wrong = digests(randomBytes(10))[checksum];

        const error = await f.store.put(chunked(bytes), { [checksum]: wrong }).catch((e: unknown) => e);

        expect(error).toBeInstanceOf(ChecksumMismatchError);
        expect(error).toMatchObject({ checksum, expected: wrong, actual: want[checksum] });
        await expectNothingStored();
        expect(await f.store.stat(want.sha256)).toBeNull();
      });
    }

    it('refuses a size mismatch, too short or too long, and stores nothing', async () => {
      const bytes = randomBytes(50_000);
      const short = await f.store.put(chunked(bytes), { size: 50_001 }).catch((e: unknown) => e);
      expect(short).toBeInstanceOf(ChecksumMismatchError);
      expect(short).toMatchObject({ checksum: 'size', expected: 50_001, actual: 50_000 });
      await expectNothingStored();

      const long = await f.store.put(chunked(bytes), { size: 49_999 }).catch((e: unknown) => e);
      expect(long).toBeInstanceOf(ChecksumMismatchError);
      expect(long).toMatchObject({ checksum: 'size', expected: 49_999 });
      await expectNothingStored();
    });

    it('stats, lists and deletes', async () => {
      const contents = [randomBytes(10), randomBytes(2000), randomBytes(70_000)];
      const shas: string[] = [];
      for (const bytes of contents) shas.push((await f.store.put(chunked(bytes))).sha256);

      expect(await listAll(f.store)).toEqual([...shas].sort());
      for (const [i, sha] of shas.entries())
        expect(await f.store.stat(sha)).toEqual({ size: contents[i]!.length });

      await f.store.delete(shas[1]!);
      expect(await f.store.stat(shas[1]!)).toBeNull();
      await expect(f.store.get(shas[1]!)).rejects.toThrow(BlobNotFoundError);
      expect(await listAll(f.store)).toEqual([shas[0]!, shas[2]!].sort());
      expect((await f.storedObjects()).length).toBe(2);
      await f.store.delete(shas[1]!); // absent is fine
      expectBytes(await readAll(await f.store.get(shas[2]!)), contents[2]!);
    });

    it('answers null / BlobNotFoundError for a blob never stored', async () => {
      const sha = digests(randomBytes(8)).sha256;
      expect(await f.store.stat(sha)).toBeNull();
      await expect(f.store.get(sha)).rejects.toThrow(BlobNotFoundError);
      await expect(f.store.get(sha, { start: 0, end: 1 })).rejects.toThrow(BlobNotFoundError);
      expect(await listAll(f.store)).toEqual([]);
    });

    it('leaves nothing when the source fails mid-stream', async () => {
      const boom = new Error('client went away');
      async function* failing(): AsyncGenerator<Uint8Array> {
        for (let i = 0; i < 3; i += 1) yield randomBytes(MIB);
        throw boom;
      }
      await expect(f.store.put(failing())).rejects.toBe(boom);
      await expectNothingStored();

      // The stream fails once the store is reading it (a client hanging up mid-upload);
      // failing on a timer instead raced a slow machine: the error could come before
      // put() had attached its listeners, an uncaught exception rather than a refusal.
      let reads = 0;
      const stream = new Readable({
        read() {
          reads += 1;
          if (reads === 1) this.push(randomBytes(100_000));
          else setImmediate(() => this.destroy(new Error('socket hang up')));
        },
      });
      await expect(f.store.put(stream)).rejects.toThrow('socket hang up');
      await expectNothingStored();
    });

    it('refuses invalid sha256 arguments', async () => {
      const bad = [
        '../../../etc/passwd',
        `${'a'.repeat(62)}/x`,
        'A'.repeat(64),
        'a'.repeat(63),
        `${'a'.repeat(64)}\n`,
        '',
        `../${'a'.repeat(61)}`,
      ];
      for (const value of bad) {
        await expect(f.store.stat(value)).rejects.toThrow(TypeError);
        await expect(f.store.get(value)).rejects.toThrow(TypeError);
        await expect(f.store.delete(value)).rejects.toThrow(TypeError);
      }
    });

    it('purges leftovers of interrupted writes from the temp area', async () => {
      const { sha256 } = await f.store.put(chunked(randomBytes(1000)));
      await writeFile(join(f.home, 'tmp', 'blobs', 'leftover.part'), randomBytes(4096));
      expect(await tempEntries(f.home)).toEqual(['leftover.part']);

      const { removed } = await f.store.purgeTemp();

      expect(removed).toBeGreaterThanOrEqual(1);
      expect(await tempEntries(f.home)).toEqual([]);
      expect(await f.store.stat(sha256)).toEqual({ size: 1000 }); // blobs are untouched
    });

    it(`streams a ${options.bigWriteBytes / MIB} MiB write without buffering it`, async () => {
      const total = options.bigWriteBytes;
      const base = randomBytes(MIB);
      const want = createHash('sha256');
      async function* generate(): AsyncGenerator<Uint8Array> {
        for (let i = 0; i < total / MIB; i += 1) {
          const chunk = Buffer.from(base); // a fresh buffer per chunk, as a socket would deliver
          chunk.writeUInt32BE(i, 0);
          want.update(chunk);
          yield chunk;
        }
      }

      const gc = exposedGc();
      gc();
      const baseline = retainedBytes();
      let peak = baseline;
      const sampler = setInterval(() => {
        gc();
        peak = Math.max(peak, retainedBytes());
      }, 100);
      let info: Awaited<ReturnType<BlobStore['put']>>;
      try {
        info = await f.store.put(generate());
      } finally {
        clearInterval(sampler);
      }
      const growth = peak - baseline;

      expect(info.size).toBe(total);
      expect(info.sha256).toBe(want.digest('hex'));
      expect(options.maxGrowthBytes).toBeLessThanOrEqual(total / 2);
      expect(growth).toBeLessThan(options.maxGrowthBytes);
      // Read it back as a stream too, hashing as we go.
      const back = createHash('sha256');
      let size = 0;
      for await (const part of await f.store.get(info.sha256)) {
        back.update(part as Uint8Array);
        size += (part as Uint8Array).length;
      }
      expect(size).toBe(total);
      expect(back.digest('hex')).toBe(info.sha256);
      expect(await tempEntries(f.home)).toEqual([]);
    });
  });
}
