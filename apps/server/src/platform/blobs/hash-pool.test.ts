import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { INLINE_HASH_BYTES, SideHashes } from './hash-pool.ts';

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
});
