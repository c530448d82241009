import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { collect, tarGzBomb, zipBomb } from './archive-bombs.ts';
import {
  ArchiveError,
  ArchiveLimitError,
  type ArchiveLimits,
  inflateChunkBytes,
  readAtMost,
  tarGzEntries,
  zipEntry,
} from './bounded-archive.ts';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

const LIMITS: ArchiveLimits = {
  entries: 1000,
  entryBytes: 2 * MiB,
  totalBytes: 512 * MiB,
  ratio: 100,
  ratioFloor: 64 * MiB,
};

/** Reads every entry's name, and the bytes of those `want` picks. */
async function readAll(source: Parameters<typeof tarGzEntries>[0], limits = LIMITS, want = /json$/) {
  const out: Record<string, string | null> = {};
  for await (const e of tarGzEntries(source, limits))
    out[e.name] = want.test(e.name) ? (await e.read()).toString() : null;
  return out;
}

/** The error a promise rejects with (fails the test when it resolves). */
async function failure(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a rejection');
}

describe('bounded archive reading (issue 12 §1)', () => {
  it('issue 12 §1: a gzip tar whose first entry declares 3 GiB of zeros (~3 MB) is refused with a limit error, not an unhandled stream error', async () => {
    const bomb = tarGzBomb([{ name: 'package/package.json', zeros: 3 * GiB }]);
    const err = await failure(readAll(bomb));
    expect(err).toBeInstanceOf(ArchiveLimitError);
    expect(err.message).toBe(`the archive unpacks to more than ${512 * MiB} bytes`);
  });

  it('issue 12 §1: the 3 GiB bomb held in memory (an upload) is refused the same way', async () => {
    const bomb = await collect(tarGzBomb([{ name: 'package/package.json', zeros: 3 * GiB }]));
    expect(bomb.length).toBeLessThan(4 * MiB);
    expect(await failure(readAll(bomb))).toBeInstanceOf(ArchiveLimitError);
  });

  it('issue 12 §1: zeros skipped through (an entry never read, under the total) stop at the compression ratio, long before they are all inflated', async () => {
    const started = Date.now();
    const bomb = tarGzBomb([
      { name: 'package/filler.bin', zeros: 400 * MiB },
      { name: 'package/package.json', content: '{"name":"a","version":"1.0.0"}' },
    ]);
    const err = await failure(readAll(bomb));
    expect(err).toBeInstanceOf(ArchiveLimitError);
    expect(err.message).toMatch(/^the archive's compression ratio is over 100 \(a decompression bomb\)$/);
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it('issue 12 §1: zeros after the end of the tar count too', async () => {
    const bomb = tarGzBomb([{ name: 'package/package.json', content: '{"name":"a"}' }], {
      trailingZeros: 600 * MiB,
    });
    const err = await failure(readAll(bomb));
    expect(err).toBeInstanceOf(ArchiveLimitError);
  });

  it('issue 12 §1: an entry read into memory is bounded by its declared size and by what really comes', async () => {
    const big = tarGzBomb([{ name: 'package/package.json', zeros: 3 * MiB }]);
    const err = await failure(readAll(big));
    expect(err).toBeInstanceOf(ArchiveLimitError);
    expect(err.message).toBe(`package/package.json is larger than ${2 * MiB} bytes`);
  });

  it('issue 12 §1: too many entries are refused', async () => {
    const many = tarGzBomb(Array.from({ length: 12 }, (_, i) => ({ name: `p/f${i}`, content: 'x' })));
    const err = await failure(readAll(many, { ...LIMITS, entries: 10 }));
    expect(err).toBeInstanceOf(ArchiveLimitError);
    expect(err.message).toBe('the archive has more than 10 entries');
  });

  it('issue 12 §1: not gzip, or gzip cut short, is an ArchiveError (400), never an unhandled error', async () => {
    const notGzip = await failure(readAll(Buffer.from('this is not an archive')));
    expect(notGzip).toBeInstanceOf(ArchiveError);
    expect(notGzip).not.toBeInstanceOf(ArchiveLimitError);
    expect(notGzip.message).toMatch(/^not a gzip-compressed tar archive/);
    const whole = await collect(
      tarGzBomb([{ name: 'package/package.json', content: '{"name":"a","version":"1.0.0"}' }]),
    );
    const cut = await failure(readAll(whole.subarray(0, whole.length - 30)));
    expect(cut).toBeInstanceOf(ArchiveError);
    const lying = tarGzBomb([{ name: 'package/package.json', content: '{}', declared: 4096 }]);
    expect(await failure(readAll(lying))).toBeInstanceOf(ArchiveError);
    expect((await failure(readAll(gzipSync(Buffer.alloc(700, 7))))).message).toMatch(/^not a gzip/);
  });

  it('issue 12 §1: a well-formed archive is read; leaving the loop early releases the source', async () => {
    const ok = await readAll(
      tarGzBomb([
        { name: 'package/package.json', content: '{"name":"a","version":"1.0.0"}' },
        { name: 'package/index.js', content: 'module.exports = 1;\n' },
        { name: 'package/blank.bin', zeros: 3 * MiB },
      ]),
    );
    expect(ok).toEqual({
      'package/package.json': '{"name":"a","version":"1.0.0"}',
      'package/index.js': null,
      'package/blank.bin': null,
    });
    const source = tarGzBomb([
      { name: 'a/one.json', content: '1' },
      { name: 'a/two.json', content: '2' },
    ]);
    for await (const e of tarGzEntries(source, LIMITS)) {
      expect(await e.read()).toEqual(Buffer.from('1'));
      break;
    }
    expect(source.destroyed).toBe(true);
  });

  it('issue 24: a large archive is inflated in 1 MiB chunks, a small one in 16 KiB; entries spanning the chunks come out whole', async () => {
    expect(inflateChunkBytes(3_000)).toBe(16 * 1024);
    expect(inflateChunkBytes(50 * MiB)).toBe(MiB);
    expect(inflateChunkBytes(undefined)).toBe(256 * 1024);
    // Random bytes do not compress: the archive is as large as its content, so its chunks are 1 MiB
    // and the 3.5 MiB file crosses three of their edges, the file after it a fourth.
    const big = randomBytes(3.5 * MiB);
    const archive = await collect(
      tarGzBomb([
        { name: 'layer/big.bin', content: big },
        { name: 'layer/package.json', content: '{"name":"after","version":"2.0.0"}' },
      ]),
    );
    expect(inflateChunkBytes(archive.length)).toBe(MiB);
    const seen: Record<string, Buffer> = {};
    for await (const e of tarGzEntries(archive, { ...LIMITS, entryBytes: 4 * MiB }))
      seen[e.name] = await e.read();
    expect(seen['layer/big.bin']!.equals(big)).toBe(true);
    expect(seen['layer/package.json']!.toString()).toBe('{"name":"after","version":"2.0.0"}');
  });

  it('issue 12 §1: zip — an entry read that inflates past its limit, a bomb entry and a lying entry are refused', async () => {
    const pick = (n: string) => n === 'd/METADATA';
    const bomb = zipBomb([{ name: 'd/METADATA', zeros: 300 * MiB }]);
    expect(bomb.length).toBeLessThan(MiB);
    const big = await failure(zipEntry(bomb, LIMITS, pick, 'METADATA'));
    expect(big).toBeInstanceOf(ArchiveLimitError);
    expect(big.message).toMatch(/^d\/METADATA's compression ratio is over 100 \(a decompression bomb\)$/);

    const beside = zipBomb([
      { name: 'd/METADATA', content: 'Name: a\n' },
      { name: 'd/zeros.bin', zeros: 3 * GiB },
    ]);
    const total = await failure(zipEntry(beside, LIMITS, pick, 'METADATA'));
    expect(total.message).toBe(`the archive unpacks to more than ${512 * MiB} bytes`);

    const small = zipBomb([{ name: 'd/METADATA', zeros: 3 * MiB }]);
    const over = await failure(zipEntry(small, LIMITS, pick, 'METADATA'));
    expect(over.message).toBe(`METADATA is larger than ${2 * MiB} bytes`);

    // Declares 100 bytes, inflates to 3 MiB: cut at the declared size, an ArchiveError.
    const lying = zipBomb([{ name: 'd/METADATA', zeros: 3 * MiB, declared: 100 }]);
    expect(await failure(zipEntry(lying, LIMITS, pick, 'METADATA'))).toBeInstanceOf(ArchiveError);

    const many = zipBomb(Array.from({ length: 11 }, (_, i) => ({ name: `f${i}`, content: 'x' })));
    const count = await failure(zipEntry(many, { ...LIMITS, entries: 10 }, pick, 'METADATA'));
    expect(count.message).toBe('the archive has 11 entries (at most 10)');

    const fine = zipBomb([
      { name: 'd/METADATA', content: 'Name: a\n' },
      { name: 'd/blank.bin', zeros: 2 * MiB },
    ]);
    expect((await zipEntry(fine, LIMITS, pick, 'METADATA')).toString()).toBe('Name: a\n');
    // With a per-entry ratio (PyPI's 1,000), the same 2 MiB of zeros is refused however small.
    const strict = await failure(zipEntry(fine, { ...LIMITS, entryRatio: 1000 }, pick, 'METADATA'));
    expect(strict.message).toBe("d/blank.bin's compression ratio is over 1000 (a decompression bomb)");
    expect((await failure(zipEntry(Buffer.from('no zip here'), LIMITS, pick, 'METADATA'))).message).toMatch(
      /^not a zip archive/,
    );
  });

  it('issue 12 §1: readAtMost stops at its limit and releases the stream', async () => {
    const stream = Readable.from(
      (function* () {
        for (let i = 0; i < 100; i++) yield Buffer.alloc(64 * 1024);
      })(),
    );
    const err = await failure(readAtMost(stream, MiB, 'the file'));
    expect(err.message).toBe(`the file is larger than ${MiB} bytes`);
    expect(stream.destroyed).toBe(true);
  });
});
