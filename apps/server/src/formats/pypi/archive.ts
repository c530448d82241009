import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import tar from 'tar-stream';
import yauzl from 'yauzl';
import { type DistFilename, parseDistFilename } from './names.ts';

/**
 * Reads the core metadata file of a distribution held in memory: `*.dist-info/METADATA` of a wheel,
 * `{top}/PKG-INFO` of an sdist (.tar.gz or .zip). Bounded: archive size, entry count, the metadata
 * file's size, and the compression ratio; nothing is ever written to disk.
 */

export const LIMITS = {
  /** largest distribution file accepted (PyPI's default upload limit) */
  archiveBytes: 100 * 1024 * 1024,
  entries: 20_000,
  metadataBytes: 8 * 1024 * 1024,
  /** uncompressed ÷ compressed, for one entry and for a gzip stream */
  ratio: 200,
  /** bytes of a tar stream read while looking for PKG-INFO */
  tarBytes: 1024 * 1024 * 1024,
};

export class DistributionError extends Error {}

function openZip(buffer: Buffer): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) =>
    yauzl.fromBuffer(
      buffer,
      { lazyEntries: true, validateEntrySizes: true, strictFileNames: true },
      (err, zip) =>
        err || !zip
          ? reject(new DistributionError(`not a zip archive (${err?.message ?? 'unreadable'})`))
          : resolve(zip),
    ),
  );
}

async function readStream(stream: Readable, max: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    total += (chunk as Buffer).length;
    if (total > max) {
      stream.destroy();
      throw new DistributionError(`the metadata file is larger than ${max} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** The content of the one zip entry `pick` chooses (by name); refuses too many entries and zip bombs. */
async function zipEntry(buffer: Buffer, pick: (name: string) => boolean, what: string): Promise<Buffer> {
  const zip = await openZip(buffer);
  try {
    if (zip.entryCount > LIMITS.entries)
      throw new DistributionError(`the archive has ${zip.entryCount} entries (at most ${LIMITS.entries})`);
    const found: yauzl.Entry[] = [];
    let declared = 0;
    await new Promise<void>((resolve, reject) => {
      zip.on('entry', (entry: yauzl.Entry) => {
        declared += entry.uncompressedSize;
        if (entry.compressedSize > 0 && entry.uncompressedSize / entry.compressedSize > LIMITS.ratio * 5) {
          reject(new DistributionError(`entry ${entry.fileName} has a suspicious compression ratio`));
          return;
        }
        if (pick(entry.fileName)) found.push(entry);
        zip.readEntry();
      });
      zip.on('end', () => resolve());
      zip.on('error', (err: Error) => reject(new DistributionError(`broken zip archive (${err.message})`)));
      zip.readEntry();
    });
    if (declared > buffer.length * LIMITS.ratio + LIMITS.metadataBytes)
      throw new DistributionError('the archive expands too much (compression ratio)');
    if (found.length === 0) throw new DistributionError(`no ${what} in the archive`);
    if (found.length > 1) throw new DistributionError(`more than one ${what} in the archive`);
    const entry = found[0]!;
    if (entry.uncompressedSize > LIMITS.metadataBytes)
      throw new DistributionError(`${what} is larger than ${LIMITS.metadataBytes} bytes`);
    const stream = await new Promise<Readable>((resolve, reject) =>
      zip.openReadStream(entry, (err, s) =>
        err || !s ? reject(new DistributionError(`${what}: ${err?.message}`)) : resolve(s),
      ),
    );
    return await readStream(stream, LIMITS.metadataBytes);
  } finally {
    zip.close();
  }
}

/** `{top}/PKG-INFO` of a gzip-compressed tar, reading no further than needed. */
async function tarEntry(buffer: Buffer): Promise<Buffer> {
  const gunzip = createGunzip();
  const extract = tar.extract();
  let inflated = 0;
  const limit = Math.min(LIMITS.tarBytes, Math.max(buffer.length * LIMITS.ratio, 64 * 1024 * 1024));
  gunzip.on('data', (chunk: Buffer) => {
    inflated += chunk.length;
    if (inflated > limit)
      gunzip.destroy(new DistributionError('the archive expands too much (compression ratio)'));
  });
  const source = Readable.from([buffer]);
  source.pipe(gunzip).pipe(extract);
  const fail = (err: Error) =>
    extract.destroy(
      err instanceof DistributionError
        ? err
        : new DistributionError(`not a gzip-compressed tar archive (${err.message})`),
    );
  gunzip.on('error', fail);
  let entries = 0;
  let found: Buffer | undefined;
  try {
    for await (const entry of extract) {
      entries += 1;
      if (entries > LIMITS.entries)
        throw new DistributionError(`the archive has more than ${LIMITS.entries} entries`);
      const name = entry.header.name.replace(/^\.\//, '');
      const parts = name.split('/');
      if (entry.header.type === 'file' && parts.length === 2 && parts[1] === 'PKG-INFO' && parts[0]) {
        if ((entry.header.size ?? 0) > LIMITS.metadataBytes)
          throw new DistributionError(`PKG-INFO is larger than ${LIMITS.metadataBytes} bytes`);
        found = await readStream(entry as unknown as Readable, LIMITS.metadataBytes);
        break;
      }
      entry.resume();
    }
  } catch (err) {
    if (err instanceof DistributionError) throw err;
    throw new DistributionError(`not a gzip-compressed tar archive (${(err as Error).message})`);
  } finally {
    source.destroy();
    gunzip.destroy();
    extract.destroy();
  }
  if (!found) throw new DistributionError('no PKG-INFO in the archive');
  return found;
}

/** The core metadata bytes of a distribution, by its file name's kind. */
export async function readCoreMetadata(buffer: Buffer, dist: DistFilename): Promise<Buffer> {
  if (buffer.length > LIMITS.archiveBytes)
    throw new DistributionError(`the file is larger than ${LIMITS.archiveBytes} bytes`);
  if (dist.kind === 'wheel')
    return zipEntry(buffer, (n) => /^[^/]+\.dist-info\/METADATA$/.test(n), '.dist-info/METADATA');
  if (dist.extension === '.zip') return zipEntry(buffer, (n) => /^[^/]+\/PKG-INFO$/.test(n), 'PKG-INFO');
  return tarEntry(buffer);
}

/** Reads a stored file whole, bounded by the archive limit. */
export async function readBounded(stream: Readable, max = LIMITS.archiveBytes): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    total += (chunk as Buffer).length;
    if (total > max) {
      stream.destroy();
      throw new DistributionError(`the file is larger than ${max} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

export { parseDistFilename };
