import { createHash, randomBytes } from 'node:crypto';
import os from 'node:os';
import { describe, expect, it, vi } from 'vitest';
import { INLINE_HASH_BYTES, SideHashes, workerJobs } from './hash-pool.ts';

const want = (chunks: Buffer[]) => {
  const sha1 = createHash('sha1');
  const md5 = createHash('md5');
  for (const c of chunks) {
    sha1.update(c);
    md5.update(c);
  }
  return { sha1: sha1.digest('hex'), md5: md5.digest('hex') };
};

async function hashAll(chunks: Buffer[]) {
  const side = new SideHashes();
  for (const c of chunks) await side.update(c);
  return side.digest();
}

describe('SHA-1 and MD5 on the side (DESIGN Storage model: three checksums in one pass)', () => {
  it('small uploads: the digests of the bytes, empty input included', async () => {
    const chunks = [randomBytes(10), randomBytes(1000)];
    expect(await hashAll(chunks)).toEqual(want(chunks));
    expect(await hashAll([])).toEqual(want([]));
  });

  it('large uploads hashed on a worker: the same digests, chunks that view a larger buffer included', async () => {
    const big = randomBytes(3 * INLINE_HASH_BYTES);
    // Views into one buffer, as a sliced source yields them.
    const chunks = Array.from({ length: 48 }, (_, i) => big.subarray(i * 65536, (i + 1) * 65536));
    expect(await hashAll(chunks)).toEqual(want(chunks));
  });

  it('many concurrent large uploads each get their own digests; past the 8 MiB ring the upload waits', async () => {
    const inputs = Array.from({ length: 4 }, () =>
      Array.from({ length: 20 }, () => randomBytes(1024 * 1024)),
    );
    const got = await Promise.all(inputs.map((chunks) => hashAll(chunks)));
    expect(got).toEqual(inputs.map(want));
  });

  it('more large uploads at once than rings: the rest hash on their own thread, with the same digests', async () => {
    const inputs = Array.from({ length: 12 }, () => [randomBytes(3 * INLINE_HASH_BYTES)]);
    const got = await Promise.all(inputs.map((chunks) => hashAll(chunks)));
    expect(got).toEqual(inputs.map(want));
  });

  it('an aborted job leaves the worker serving the next one', async () => {
    const side = new SideHashes();
    await side.update(randomBytes(2 * INLINE_HASH_BYTES));
    side.abort();
    const chunks = [randomBytes(2 * INLINE_HASH_BYTES)];
    expect(await hashAll(chunks)).toEqual(want(chunks));
  });

  it.each([
    [4, [1, 1]],
    [2, [1]],
  ])(
    'issue 24: with %i cores a large upload hashes on workers %j (MD5 and SHA-1 apart when a core is spare for each)',
    async (cores, busy) => {
      const spy = vi.spyOn(os, 'availableParallelism').mockReturnValue(cores);
      try {
        const side = new SideHashes();
        const chunks = [randomBytes(2 * INLINE_HASH_BYTES)];
        await side.update(chunks[0]!);
        expect(workerJobs().filter((n) => n > 0)).toEqual(busy);
        expect(await side.digest()).toEqual(want(chunks));
        expect(workerJobs().every((n) => n === 0)).toBe(true);
      } finally {
        spy.mockRestore();
      }
    },
  );

  it('issue 24: a chunk the ring can take is taken at once (no promise); a full ring makes the upload wait', async () => {
    const side = new SideHashes();
    const chunks = Array.from({ length: 12 }, () => randomBytes(1024 * 1024));
    // The first MiB is held; the second starts the workers (copying what was held).
    expect(side.update(chunks[0]!)).toBeUndefined();
    await side.update(chunks[1]!);
    // The workers cannot answer while this loop runs: the 8 MiB ring fills and then the upload waits.
    let taken = 2;
    let wait: Promise<void> | undefined;
    while (!wait && taken < chunks.length) wait = side.update(chunks[taken++]!);
    expect(wait).toBeInstanceOf(Promise);
    expect(taken).toBeGreaterThan(8);
    // The waiting chunk goes in once the workers catch up; the next chunk waits for it (one at a time).
    await wait;
    for (const c of chunks.slice(taken)) await side.update(c);
    expect(await side.digest()).toEqual(want(chunks));
  });
});
