import type { Readable } from 'node:stream';
import {
  ArchiveError,
  type ArchiveLimits,
  readAtMost,
  tarGzEntries,
  zipEntry,
} from '../../platform/archives/bounded-archive.ts';
import { type DistFilename, parseDistFilename } from './names.ts';

/**
 * Reads the core metadata file of a distribution held in memory: `*.dist-info/METADATA` of a wheel,
 * `{top}/PKG-INFO` of an sdist (.tar.gz or .zip). Bounded: archive size, entry count, the metadata
 * file's size, the bytes unpacked and the compression ratio; nothing is ever written to disk.
 */

export const LIMITS = {
  /** largest distribution file accepted (PyPI's default upload limit) */
  archiveBytes: 100 * 1024 * 1024,
  entries: 20_000,
  metadataBytes: 8 * 1024 * 1024,
  /** uncompressed ÷ compressed, for one entry and for the whole archive */
  ratio: 200,
  /** bytes unpacked (a tar stream read while looking for PKG-INFO; a zip's declared sizes) */
  tarBytes: 1024 * 1024 * 1024,
};

const ARCHIVE_LIMITS: ArchiveLimits = {
  entries: LIMITS.entries,
  entryBytes: LIMITS.metadataBytes,
  totalBytes: LIMITS.tarBytes,
  ratio: LIMITS.ratio,
  ratioFloor: 64 * 1024 * 1024,
  /** a wheel's entry expanding 1,000 times is refused however small */
  entryRatio: LIMITS.ratio * 5,
};

/** Not the distribution its name says; `cause` is the ArchiveError when the archive itself failed. */
export class DistributionError extends Error {}

async function archiveRead<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    if (err instanceof ArchiveError) throw new DistributionError(err.message, { cause: err });
    throw err;
  }
}

/** `{top}/PKG-INFO` of a gzip-compressed tar, reading no further than needed. */
async function tarEntry(buffer: Buffer): Promise<Buffer> {
  for await (const entry of tarGzEntries(buffer, ARCHIVE_LIMITS)) {
    const parts = entry.name.split('/');
    if (entry.type === 'file' && parts.length === 2 && parts[1] === 'PKG-INFO' && parts[0])
      return entry.read();
  }
  throw new DistributionError('no PKG-INFO in the archive');
}

/** The core metadata bytes of a distribution, by its file name's kind. */
export async function readCoreMetadata(buffer: Buffer, dist: DistFilename): Promise<Buffer> {
  if (buffer.length > LIMITS.archiveBytes)
    throw new DistributionError(`the file is larger than ${LIMITS.archiveBytes} bytes`);
  if (dist.kind === 'wheel')
    return archiveRead(() =>
      zipEntry(buffer, ARCHIVE_LIMITS, (n) => /^[^/]+\.dist-info\/METADATA$/.test(n), '.dist-info/METADATA'),
    );
  if (dist.extension === '.zip')
    return archiveRead(() =>
      zipEntry(buffer, ARCHIVE_LIMITS, (n) => /^[^/]+\/PKG-INFO$/.test(n), 'PKG-INFO'),
    );
  return archiveRead(() => tarEntry(buffer));
}

/** Reads a stored file whole, bounded by the archive limit. */
export function readBounded(stream: Readable, max = LIMITS.archiveBytes): Promise<Buffer> {
  return archiveRead(() => readAtMost(stream, max, 'the file'));
}

export { parseDistFilename };
