import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { zipBomb, zipDirectoryBomb } from '../../platform/archives/archive-bombs.ts';
import type { BlobStore } from '../../platform/blobs/index.ts';
import { ARCHIVE_SCAN_MAX, readZipEntries } from './archive-entries.ts';

/** A blob store holding one zip in memory, counting the bytes read from it. */
function storeOf(zip: Buffer) {
  const read = { bytes: 0 };
  const blobs = {
    async get(_sha256: string, range?: { start: number; end: number }) {
      const part = range ? zip.subarray(range.start, range.end + 1) : zip;
      read.bytes += part.length;
      return Readable.from([part]);
    },
  } as unknown as BlobStore;
  return { blobs, read };
}

describe('archive entries (issue 12 §1)', () => {
  it('issue 12 §1: a zip directory of records never indexed (folders) is read no further than the scan limit', async () => {
    const zip = zipDirectoryBomb(ARCHIVE_SCAN_MAX * 4);
    const { blobs, read } = storeOf(zip);
    expect(await readZipEntries(blobs, 'x', zip.length)).toEqual([]);
    // Records are all alike (46 bytes and a name): the limit (a quarter) was read, not all of it.
    expect(read.bytes).toBeLessThan(zip.length / 2);
  });

  it('issue 12 §1: a jar holding a 3 GiB entry of zeros is listed from its directory, never inflated', async () => {
    const jar = zipBomb([
      { name: 'org/acme/Bomb.class', content: 'class' },
      { name: 'org/acme/zeros.bin', zeros: 3 * 1024 ** 3 },
    ]);
    const { blobs, read } = storeOf(jar);
    expect(await readZipEntries(blobs, 'x', jar.length)).toEqual([
      'org/acme/Bomb.class',
      'org/acme/zeros.bin',
    ]);
    expect(read.bytes).toBeLessThanOrEqual(jar.length);
  });
});
