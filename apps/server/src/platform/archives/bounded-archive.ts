import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import tar from 'tar-stream';
import yauzl from 'yauzl';
import { InvalidError } from '../errors.ts';
import { type ByteSource, readBounded } from '../streams/read-bounded.ts';

/**
 * Reading untrusted archives (package tarballs, wheels, sdists) within limits. Every reader here
 * stops at its limits with an ArchiveLimitError, reports an unreadable archive with an ArchiveError,
 * keeps in memory only the entries asked for (each bounded), never writes to disk, and never lets a
 * stream emit an unhandled 'error' (which would end the process).
 *
 * Both errors are 400s (InvalidError) wherever they escape to: a client's upload. A remote
 * repository turns an ArchiveLimitError into a 502: the upstream's file is not cached.
 */

/** The archive cannot be read (not gzip, not tar, not zip, truncated). */
export class ArchiveError extends InvalidError {}

/**
 * An entry name that would land outside the folder an archive is unpacked into: absolute, a drive
 * letter, a backslash, or a `..` segment (a crate, a Terraform module, a Swift source archive).
 */
export const escapesFolder = (name: string) =>
  name.startsWith('/') || name.includes('\\') || /^[A-Za-z]:/.test(name) || name.split('/').includes('..');

/** The archive is over one of the server's limits (a decompression bomb, or simply too big to read). */
export class ArchiveLimitError extends ArchiveError {}

export interface ArchiveLimits {
  /** entries in the archive */
  entries: number;
  /** bytes of one entry read into memory */
  entryBytes: number;
  /** bytes decompressed in all (a tar stream), or declared by all entries (a zip's directory) */
  totalBytes: number;
  /** decompressed ÷ compressed bytes, once more than `ratioFloor` bytes came out */
  ratio: number;
  /** bytes that may come out whatever the ratio (small, very compressible archives are fine) */
  ratioFloor: number;
  /** a zip entry's own uncompressed ÷ compressed size, however small it is (default: none) */
  entryRatio?: number;
}

/** The ArchiveLimitError `err` is or was caused by (a format's own error wrapping it), if any. */
export function archiveLimitOf(err: unknown): ArchiveLimitError | undefined {
  if (err instanceof ArchiveLimitError) return err;
  const cause = (err as { cause?: unknown } | null)?.cause;
  return cause instanceof ArchiveLimitError ? cause : undefined;
}

/** The error a limit or a bad archive is reported as, with what was read when it was not one of ours. */
function archiveError(err: unknown, what: string): ArchiveError {
  if (err instanceof ArchiveError) return err;
  return new ArchiveError(`not a ${what} (${(err as Error)?.message ?? String(err)})`);
}

/** Reads a stream whole, refusing more than `max` bytes (`what` names it in the error). */
export function readAtMost(stream: ByteSource, max: number, what: string): Promise<Buffer> {
  return readBounded(stream, max, () => new ArchiveLimitError(`${what} is larger than ${max} bytes`));
}

/**
 * The output chunk of gunzip for an archive of `compressed` bytes (unknown: 256 KiB). zlib's
 * default 16 KiB chunks cost a 50 MiB image layer ~3,200 trips through gunzip, the counters and
 * tar-stream: scanning it took ~290 ms of CPU, against ~50 ms with 1 MiB chunks (issue 24: the scan
 * of a pushed image ran beside the next pull). A small archive keeps a small chunk: each gunzip
 * allocates one up front.
 */
export function inflateChunkBytes(compressed?: number): number {
  const MIN = 16 * 1024;
  const MAX = 1024 * 1024;
  if (compressed === undefined) return 256 * 1024;
  let size = MIN;
  while (size < MAX && size < compressed) size *= 2;
  return size;
}

/** One entry of a tar stream, as `tarGzEntries` yields it. */
export interface TarEntry {
  /** its path, without a leading `./` */
  name: string;
  type: string;
  /** the size its header declares */
  size: number;
  /** its bytes (at most `entryBytes`); an entry not read is skipped */
  read(): Promise<Buffer>;
}

/**
 * The entries of a gzip-compressed tar, streaming: an entry's bytes are read only when asked for,
 * the others skipped through. Stops with an ArchiveLimitError when the entries, the bytes declared or
 * decompressed, or the compression ratio pass `limits` — the decompressed bytes are counted as they
 * come out of gunzip, so data after the tar's end or inside skipped entries counts too. Leaving the
 * loop early stops reading and releases the source.
 */
export async function* tarGzEntries(
  source: Readable | Buffer,
  limits: ArchiveLimits,
): AsyncGenerator<TarEntry, void, undefined> {
  const input = Buffer.isBuffer(source) ? Readable.from([source]) : source;
  let compressed = 0;
  let inflated = 0;
  let failure: Error | undefined;
  const fail = (err: Error) => {
    failure ??= err;
    return failure;
  };
  const countIn = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      compressed += chunk.length;
      done(null, chunk);
    },
  });
  const countOut = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      inflated += chunk.length;
      if (inflated > limits.totalBytes)
        return done(
          fail(new ArchiveLimitError(`the archive unpacks to more than ${limits.totalBytes} bytes`)),
        );
      if (inflated > limits.ratioFloor && inflated > compressed * limits.ratio)
        return done(
          fail(
            new ArchiveLimitError(
              `the archive's compression ratio is over ${limits.ratio} (a decompression bomb)`,
            ),
          ),
        );
      done(null, chunk);
    },
  });
  const extract = tar.extract();
  // Errors of every stream land here (and end the iteration below); none is left unhandled.
  const gunzip = createGunzip({
    chunkSize: inflateChunkBytes(Buffer.isBuffer(source) ? source.length : undefined),
  });
  const piped = pipeline(input, countIn, gunzip, countOut, extract).catch((err: Error) => {
    fail(err);
  });
  let entries = 0;
  let declared = 0;
  try {
    for await (const stream of extract) {
      const header = stream.header;
      entries += 1;
      if (entries > limits.entries)
        throw new ArchiveLimitError(`the archive has more than ${limits.entries} entries`);
      const size = header.size ?? 0;
      declared += size;
      if (declared > limits.totalBytes)
        throw new ArchiveLimitError(`the archive unpacks to more than ${limits.totalBytes} bytes`);
      const name = header.name.replace(/^\.\//, '');
      let read = false;
      yield {
        name,
        type: header.type ?? 'file',
        size,
        async read() {
          read = true;
          if (size > limits.entryBytes)
            throw new ArchiveLimitError(`${name} is larger than ${limits.entryBytes} bytes`);
          try {
            return await readAtMost(stream, limits.entryBytes, name);
          } catch (err) {
            throw archiveError(failure ?? err, 'gzip-compressed tar archive');
          }
        },
      };
      if (!read) stream.resume();
    }
    await piped;
    if (failure) throw failure;
  } catch (err) {
    throw archiveError(failure ?? err, 'gzip-compressed tar archive');
  } finally {
    extract.destroy();
    input.destroy();
    await piped;
  }
}

function openZip(buffer: Buffer): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) =>
    yauzl.fromBuffer(
      buffer,
      { lazyEntries: true, validateEntrySizes: true, strictFileNames: true, autoClose: false },
      (err, zip) => (err || !zip ? reject(archiveError(err, 'zip archive')) : resolve(zip)),
    ),
  );
}

/**
 * The one entry of a zip held in memory that `pick` chooses by name (`what` names it in errors:
 * none or several is an ArchiveError). Only its central directory and that entry are read. Refuses
 * too many entries, more declared bytes than `totalBytes`, an entry or the whole archive expanding
 * more than `ratio` times (past `ratioFloor`; an entry more than `entryRatio` times at any size), and
 * an entry larger than `entryBytes`.
 */
export async function zipEntry(
  buffer: Buffer,
  limits: ArchiveLimits,
  pick: (name: string) => boolean,
  what: string,
): Promise<Buffer> {
  const zip = await openZip(buffer);
  try {
    if (zip.entryCount > limits.entries)
      throw new ArchiveLimitError(`the archive has ${zip.entryCount} entries (at most ${limits.entries})`);
    const found: yauzl.Entry[] = [];
    let declared = 0;
    await new Promise<void>((resolve, reject) => {
      zip.on('entry', (entry: yauzl.Entry) => {
        declared += entry.uncompressedSize;
        if (declared > limits.totalBytes)
          return reject(new ArchiveLimitError(`the archive unpacks to more than ${limits.totalBytes} bytes`));
        const ratio = entry.compressedSize > 0 ? entry.uncompressedSize / entry.compressedSize : Infinity;
        const over =
          entry.uncompressedSize > limits.ratioFloor && ratio > limits.ratio
            ? limits.ratio
            : limits.entryRatio !== undefined && ratio > limits.entryRatio
              ? limits.entryRatio
              : undefined;
        if (entry.uncompressedSize > 0 && over !== undefined)
          return reject(
            new ArchiveLimitError(
              `${entry.fileName}'s compression ratio is over ${over} (a decompression bomb)`,
            ),
          );
        if (pick(entry.fileName)) found.push(entry);
        zip.readEntry();
      });
      zip.on('end', () => resolve());
      zip.on('error', (err: Error) => reject(archiveError(err, 'readable zip archive')));
      zip.readEntry();
    });
    if (declared > limits.ratioFloor && declared > buffer.length * limits.ratio)
      throw new ArchiveLimitError(
        `the archive's compression ratio is over ${limits.ratio} (a decompression bomb)`,
      );
    if (found.length === 0) throw new ArchiveError(`no ${what} in the archive`);
    if (found.length > 1) throw new ArchiveError(`more than one ${what} in the archive`);
    const entry = found[0]!;
    if (entry.uncompressedSize > limits.entryBytes)
      throw new ArchiveLimitError(`${what} is larger than ${limits.entryBytes} bytes`);
    const stream = await new Promise<Readable>((resolve, reject) =>
      zip.openReadStream(entry, (err, s) =>
        err || !s ? reject(archiveError(err, `readable ${what}`)) : resolve(s),
      ),
    );
    try {
      return await readAtMost(stream, limits.entryBytes, what);
    } catch (err) {
      throw archiveError(err, `readable ${what}`);
    }
  } finally {
    zip.close();
  }
}

/** One entry of a zip, as `zipEntries` yields it. */
export interface ZipEntry {
  /** its name as the archive spells it (never used as a disk path) */
  name: string;
  /** its bytes (at most `entryBytes`); an entry not read is skipped */
  read(): Promise<Buffer>;
}

/**
 * Every file entry of a zip, in directory order, held in memory one at a time — from a buffer, or
 * from a file on disk read at random (`{ path }`), so a large archive is never loaded whole. Checks
 * the whole directory against `limits` before the first entry is yielded (entries, declared bytes,
 * ratios), then each entry's size and CRC as it is read. Leaving the loop early closes the archive.
 */
export async function* zipEntries(
  source: Buffer | { path: string },
  limits: ArchiveLimits,
): AsyncGenerator<ZipEntry> {
  const options = { lazyEntries: true, validateEntrySizes: true, strictFileNames: false, autoClose: false };
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) => {
    const done = (err: Error | null, z?: yauzl.ZipFile) =>
      err || !z ? reject(archiveError(err, 'zip archive')) : resolve(z);
    if (Buffer.isBuffer(source)) yauzl.fromBuffer(source, options, done);
    else yauzl.open(source.path, options, done);
  });
  try {
    if (zip.entryCount > limits.entries)
      throw new ArchiveLimitError(`the archive has ${zip.entryCount} entries (at most ${limits.entries})`);
    let declared = 0;
    const pull = () =>
      new Promise<yauzl.Entry | null>((resolve, reject) => {
        const onEntry = (entry: yauzl.Entry) => {
          cleanup();
          resolve(entry);
        };
        const onEnd = () => {
          cleanup();
          resolve(null);
        };
        const onError = (err: Error) => {
          cleanup();
          reject(archiveError(err, 'readable zip archive'));
        };
        const cleanup = () => {
          zip.off('entry', onEntry);
          zip.off('end', onEnd);
          zip.off('error', onError);
        };
        zip.on('entry', onEntry);
        zip.on('end', onEnd);
        zip.on('error', onError);
        zip.readEntry();
      });
    for (let entry = await pull(); entry !== null; entry = await pull()) {
      declared += entry.uncompressedSize;
      if (declared > limits.totalBytes)
        throw new ArchiveLimitError(`the archive unpacks to more than ${limits.totalBytes} bytes`);
      const ratio = entry.compressedSize > 0 ? entry.uncompressedSize / entry.compressedSize : Infinity;
      if (entry.uncompressedSize > limits.ratioFloor && ratio > limits.ratio)
        throw new ArchiveLimitError(
          `${entry.fileName}'s compression ratio is over ${limits.ratio} (a decompression bomb)`,
        );
      if (entry.fileName.endsWith('/')) continue;
      const current = entry;
      yield {
        name: current.fileName,
        read: async () => {
          if (current.uncompressedSize > limits.entryBytes)
            throw new ArchiveLimitError(`${current.fileName} is larger than ${limits.entryBytes} bytes`);
          const stream = await new Promise<Readable>((resolve, reject) =>
            zip.openReadStream(current, (err, s) =>
              err || !s ? reject(archiveError(err, `readable ${current.fileName}`)) : resolve(s),
            ),
          );
          try {
            return await readAtMost(stream, limits.entryBytes, current.fileName);
          } catch (err) {
            throw archiveError(err, `readable ${current.fileName}`);
          }
        },
      };
    }
  } finally {
    zip.close();
  }
}
