import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import tar from 'tar-stream';
import yauzl from 'yauzl';
import {
  ArchiveError,
  ArchiveLimitError,
  type ArchiveLimits,
  inflateChunkBytes,
  readAtMost,
  type TarEntry,
} from '../../../platform/archives/bounded-archive.ts';

/**
 * The scanner's archive readers, following `platform/archives` (the same limits and errors): a tar
 * that may or may not be gzip-compressed (image layers are either), read streaming; and several
 * entries of a zip held in memory (wheels, jars). Nothing is written to disk; entry names are only
 * matched, never used as paths.
 */

const GZIP_MAGIC = [0x1f, 0x8b];

/** The source with its first bytes looked at: whether it is gzip, and a stream of all of it again. */
async function sniff(source: Readable): Promise<{ gzip: boolean; stream: Readable }> {
  const iterator = source[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const chunks: Buffer[] = [];
  let length = 0;
  let done = false;
  while (length < 2) {
    const next = await iterator.next();
    if (next.done) {
      done = true;
      break;
    }
    chunks.push(next.value);
    length += next.value.length;
  }
  const head = Buffer.concat(chunks);
  const gzip = head[0] === GZIP_MAGIC[0] && head[1] === GZIP_MAGIC[1];
  const rest = async function* () {
    if (head.length > 0) yield head;
    if (done) return;
    for (;;) {
      const next = await iterator.next();
      if (next.done) return;
      yield next.value;
    }
  };
  const stream = Readable.from(rest(), { objectMode: false });
  stream.once('close', () => source.destroy());
  return { gzip, stream };
}

/**
 * The entries of a tar, gzip-compressed or not (told by its first bytes), streaming as
 * `tarGzEntries` does: an entry's bytes are read only when asked for; entries, declared and inflated
 * bytes and the ratio (inflated ÷ read) are bounded by `limits`.
 */
export async function* tarEntries(
  source: Readable,
  limits: ArchiveLimits,
  /** the stored (compressed) size when known: sizes gunzip's chunks */
  compressedBytes?: number,
): AsyncGenerator<TarEntry, void, undefined> {
  let failure: Error | undefined;
  const fail = (err: Error) => {
    failure ??= err;
    return failure;
  };
  let sniffed: { gzip: boolean; stream: Readable };
  try {
    sniffed = await sniff(source);
  } catch (err) {
    source.destroy();
    throw new ArchiveError(`not a tar archive (${(err as Error).message})`);
  }
  const input = sniffed.stream;
  let compressed = 0;
  let inflated = 0;
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
      if (sniffed.gzip && inflated > limits.ratioFloor && inflated > compressed * limits.ratio)
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
  const stages = sniffed.gzip
    ? [countIn, createGunzip({ chunkSize: inflateChunkBytes(compressedBytes) }), countOut]
    : [countIn, countOut];
  // Every stream's error lands here (and ends the iteration below); none is left unhandled.
  const piped = pipeline([input, ...stages, extract]).catch((err: Error) => {
    fail(err);
  });
  const wrap = (err: unknown) =>
    err instanceof ArchiveError
      ? err
      : new ArchiveError(`not a readable tar archive (${(err as Error)?.message ?? String(err)})`);
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
      const name = header.name.replace(/^\.?\//, '');
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
            throw wrap(failure ?? err);
          }
        },
      };
      if (!read) stream.resume();
    }
    await piped;
    if (failure) throw failure;
  } catch (err) {
    throw wrap(failure ?? err);
  } finally {
    extract.destroy();
    input.destroy();
    source.destroy();
    await piped;
  }
}

function openZip(buffer: Buffer): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) =>
    yauzl.fromBuffer(
      buffer,
      // strictFileNames off: names are only compared, and jars in the wild carry odd ones.
      { lazyEntries: true, validateEntrySizes: true, strictFileNames: false, autoClose: false },
      (err, zip) =>
        err || !zip ? reject(new ArchiveError(`not a zip archive (${err?.message})`)) : resolve(zip),
    ),
  );
}

/**
 * The entries of a zip in memory that `pick` chooses by name (at most `maxPicked`), each read whole
 * (at most `entryBytes`). Refuses, as `zipEntry` does, too many entries, more declared bytes than
 * `totalBytes`, and an entry or the whole archive expanding more than the ratios allow.
 */
export async function zipEntries(
  buffer: Buffer,
  limits: ArchiveLimits,
  pick: (name: string, size: number) => boolean,
  maxPicked = 1000,
): Promise<Map<string, Buffer>> {
  const zip = await openZip(buffer);
  try {
    if (zip.entryCount > limits.entries)
      throw new ArchiveLimitError(`the archive has ${zip.entryCount} entries (at most ${limits.entries})`);
    const found = new Map<string, Buffer>();
    let declared = 0;
    await new Promise<void>((resolve, reject) => {
      const next = (entry: yauzl.Entry) => {
        declared += entry.uncompressedSize;
        if (declared > limits.totalBytes)
          throw new ArchiveLimitError(`the archive unpacks to more than ${limits.totalBytes} bytes`);
        const ratio = entry.compressedSize > 0 ? entry.uncompressedSize / entry.compressedSize : Infinity;
        const over =
          entry.uncompressedSize > limits.ratioFloor && ratio > limits.ratio
            ? limits.ratio
            : limits.entryRatio !== undefined && ratio > limits.entryRatio
              ? limits.entryRatio
              : undefined;
        if (entry.uncompressedSize > 0 && over !== undefined)
          throw new ArchiveLimitError(
            `${entry.fileName}'s compression ratio is over ${over} (a decompression bomb)`,
          );
        return pick(entry.fileName, entry.uncompressedSize);
      };
      zip.on('entry', (entry: yauzl.Entry) => {
        let wanted: boolean;
        try {
          wanted = next(entry) && !entry.fileName.endsWith('/') && found.size < maxPicked;
        } catch (err) {
          return reject(err);
        }
        if (!wanted) return zip.readEntry();
        if (entry.uncompressedSize > limits.entryBytes)
          return reject(new ArchiveLimitError(`${entry.fileName} is larger than ${limits.entryBytes} bytes`));
        zip.openReadStream(entry, (err, stream) => {
          if (err || !stream)
            return reject(new ArchiveError(`${entry.fileName} is not readable (${err?.message})`));
          readAtMost(stream, limits.entryBytes, entry.fileName).then(
            (bytes) => {
              found.set(entry.fileName, bytes);
              zip.readEntry();
            },
            (e: Error) =>
              reject(e instanceof ArchiveError ? e : new ArchiveError(`${entry.fileName}: ${e.message}`)),
          );
        });
      });
      zip.on('end', () => resolve());
      zip.on('error', (err: Error) => reject(new ArchiveError(`not a readable zip (${err.message})`)));
      zip.readEntry();
    });
    if (declared > limits.ratioFloor && declared > buffer.length * limits.ratio)
      throw new ArchiveLimitError(
        `the archive's compression ratio is over ${limits.ratio} (a decompression bomb)`,
      );
    return found;
  } finally {
    zip.close();
  }
}

/** Whether bytes start as a zip (local file header, or an empty archive's end record). */
export const looksLikeZip = (head: Buffer) =>
  head.length >= 4 && head[0] === 0x50 && head[1] === 0x4b && (head[2] === 3 || head[2] === 5);
/** Whether bytes start as gzip. */
export const looksLikeGzip = (head: Buffer) =>
  head.length >= 2 && head[0] === GZIP_MAGIC[0] && head[1] === GZIP_MAGIC[1];
