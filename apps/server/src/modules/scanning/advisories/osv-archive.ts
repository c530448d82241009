import { type FileHandle, open } from 'node:fs/promises';
import { crc32, inflateRawSync } from 'node:zlib';
import {
  ArchiveError,
  ArchiveLimitError,
  type ArchiveLimits,
} from '../../../platform/archives/bounded-archive.ts';

/**
 * A fast reader of large OSV archives (`all.zip`, hundreds of thousands of small `{id}.json`
 * entries). `platform/archives` `zipEntries` opens a stream per entry, which costs about 0.5 ms each;
 * here the central directory is read in one go and the entries in large sequential windows, each
 * inflated with `inflateRawSync` and checked (declared size, CRC-32). The same limits hold as
 * `zipEntries` checks: entry count, declared bytes, ratios (checked on the whole directory before the
 * first entry is yielded), and each entry's size as it is read. Entry names are never disk paths.
 */

/** One file entry of the archive, in directory order. */
export interface OsvArchiveEntry {
  /** its position among the file entries (directories are skipped and not counted) */
  index: number;
  name: string;
  /** its bytes, inflated and checked (at most `entryBytes`) */
  read(): Promise<Buffer>;
}

interface DirEntry {
  name: string;
  method: number;
  flags: number;
  crc: number;
  compressedSize: number;
  uncompressedSize: number;
  offset: number;
}

/** Positional reads of a file, or of a buffer. */
interface Source {
  size: number;
  read(position: number, length: number): Promise<Buffer>;
  close(): Promise<void>;
}

async function openSource(source: Buffer | { path: string }): Promise<Source> {
  if (Buffer.isBuffer(source))
    return {
      size: source.length,
      read: async (position, length) => source.subarray(position, Math.min(source.length, position + length)),
      close: async () => {},
    };
  const handle: FileHandle = await open(source.path, 'r');
  try {
    const { size } = await handle.stat();
    return {
      size,
      async read(position, length) {
        const want = Math.max(0, Math.min(length, size - position));
        const buf = Buffer.allocUnsafe(want);
        let got = 0;
        while (got < want) {
          const { bytesRead } = await handle.read(buf, got, want - got, position + got);
          if (bytesRead === 0) break;
          got += bytesRead;
        }
        return got === want ? buf : buf.subarray(0, got);
      },
      close: () => handle.close(),
    };
  } catch (err) {
    await handle.close();
    throw err;
  }
}

const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EOCD = 0x06064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const MAX_COMMENT = 0xffff;
/** Bytes read at once when walking the entries (they are usually stored one after the other). */
const WINDOW = 8 * 1024 * 1024;

const bad = (what: string) => new ArchiveError(`not a readable zip archive (${what})`);

/** The central directory's offset, size and entry count (zip64 aware). */
async function locateDirectory(src: Source): Promise<{ offset: number; size: number; count: number }> {
  const tailLength = Math.min(src.size, 22 + MAX_COMMENT + 20);
  if (tailLength < 22) throw bad('too short');
  const tailStart = src.size - tailLength;
  const tail = await src.read(tailStart, tailLength);
  let at = -1;
  for (let i = tail.length - 22; i >= 0; i--)
    if (tail.readUInt32LE(i) === EOCD && i + 22 + tail.readUInt16LE(i + 20) <= tail.length) {
      at = i;
      break;
    }
  if (at < 0) throw bad('end of central directory record not found');
  let count = tail.readUInt16LE(at + 10);
  let size = tail.readUInt32LE(at + 12);
  let offset = tail.readUInt32LE(at + 16);
  if (count === 0xffff || size === 0xffffffff || offset === 0xffffffff) {
    const loc = at - 20;
    if (loc < 0 || tail.readUInt32LE(loc) !== ZIP64_LOCATOR) throw bad('zip64 locator not found');
    const z64 = Number(tail.readBigUInt64LE(loc + 8));
    const rec = await src.read(z64, 56);
    if (rec.length < 56 || rec.readUInt32LE(0) !== ZIP64_EOCD) throw bad('zip64 end record not found');
    count = Number(rec.readBigUInt64LE(32));
    size = Number(rec.readBigUInt64LE(40));
    offset = Number(rec.readBigUInt64LE(48));
  }
  if (offset + size > src.size) throw bad('the central directory is past the end of the file');
  return { offset, size, count };
}

function parseDirectory(dir: Buffer, count: number): DirEntry[] {
  const entries: DirEntry[] = [];
  let p = 0;
  for (let i = 0; i < count; i++) {
    if (p + 46 > dir.length || dir.readUInt32LE(p) !== CENTRAL)
      throw bad('a central directory entry is damaged');
    const flags = dir.readUInt16LE(p + 8);
    const method = dir.readUInt16LE(p + 10);
    const crc = dir.readUInt32LE(p + 16);
    let compressedSize = dir.readUInt32LE(p + 20);
    let uncompressedSize = dir.readUInt32LE(p + 24);
    const nameLength = dir.readUInt16LE(p + 28);
    const extraLength = dir.readUInt16LE(p + 30);
    const commentLength = dir.readUInt16LE(p + 32);
    let offset = dir.readUInt32LE(p + 42);
    const end = p + 46 + nameLength + extraLength + commentLength;
    if (end > dir.length) throw bad('a central directory entry is damaged');
    const nameBytes = dir.subarray(p + 46, p + 46 + nameLength);
    const name = nameBytes.toString(flags & 0x800 ? 'utf8' : 'latin1');
    if (uncompressedSize === 0xffffffff || compressedSize === 0xffffffff || offset === 0xffffffff) {
      // The zip64 extra field holds the values that overflowed, in this order.
      let e = p + 46 + nameLength;
      const extraEnd = e + extraLength;
      while (e + 4 <= extraEnd) {
        const id = dir.readUInt16LE(e);
        const len = dir.readUInt16LE(e + 2);
        if (id === 0x0001) {
          let q = e + 4;
          const next = () => {
            if (q + 8 > e + 4 + len) throw bad('a zip64 extra field is short');
            const v = Number(dir.readBigUInt64LE(q));
            q += 8;
            return v;
          };
          if (uncompressedSize === 0xffffffff) uncompressedSize = next();
          if (compressedSize === 0xffffffff) compressedSize = next();
          if (offset === 0xffffffff) offset = next();
          break;
        }
        e += 4 + len;
      }
    }
    entries.push({ name, method, flags, crc, compressedSize, uncompressedSize, offset });
    p = end;
  }
  return entries;
}

/**
 * The file entries of a zip (a buffer, or a file read at random), in directory order, each read
 * only when asked. The whole directory is checked against `limits` first.
 */
export async function* osvArchiveEntries(
  source: Buffer | { path: string },
  limits: ArchiveLimits,
): AsyncGenerator<OsvArchiveEntry> {
  const src = await openSource(source);
  try {
    const where = await locateDirectory(src);
    if (where.count > limits.entries)
      throw new ArchiveLimitError(`the archive has ${where.count} entries (at most ${limits.entries})`);
    const entries = parseDirectory(await src.read(where.offset, where.size), where.count);
    let declared = 0;
    for (const entry of entries) {
      declared += entry.uncompressedSize;
      if (declared > limits.totalBytes)
        throw new ArchiveLimitError(`the archive unpacks to more than ${limits.totalBytes} bytes`);
      const ratio = entry.compressedSize > 0 ? entry.uncompressedSize / entry.compressedSize : Infinity;
      if (entry.uncompressedSize > limits.ratioFloor && ratio > limits.ratio)
        throw new ArchiveLimitError(
          `${entry.name}'s compression ratio is over ${limits.ratio} (a decompression bomb)`,
        );
      if (entry.offset + 30 + entry.compressedSize > where.offset)
        throw bad(`${entry.name} overlaps the directory`);
    }
    // A window of the file, read ahead in large pieces.
    let windowStart = 0;
    let window: Buffer = Buffer.alloc(0);
    const bytesAt = async (position: number, length: number): Promise<Buffer> => {
      if (position < windowStart || position + length > windowStart + window.length) {
        windowStart = position;
        window = await src.read(position, Math.max(length, WINDOW));
        if (window.length < length) throw bad('truncated');
      }
      return window.subarray(position - windowStart, position - windowStart + length);
    };
    let index = 0;
    for (const entry of entries) {
      if (entry.name.endsWith('/')) continue;
      yield {
        index: index++,
        name: entry.name,
        read: async () => {
          if (entry.uncompressedSize > limits.entryBytes)
            throw new ArchiveLimitError(`${entry.name} is larger than ${limits.entryBytes} bytes`);
          if (entry.flags & 0x1) throw bad(`${entry.name} is encrypted`);
          const header = await bytesAt(entry.offset, 30);
          if (header.readUInt32LE(0) !== LOCAL) throw bad(`${entry.name}: no local header`);
          const dataStart = entry.offset + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
          if (dataStart + entry.compressedSize > where.offset)
            throw bad(`${entry.name} overlaps the directory`);
          const data = await bytesAt(dataStart, entry.compressedSize);
          let bytes: Buffer;
          if (entry.method === 0) bytes = Buffer.from(data);
          else if (entry.method === 8) {
            try {
              bytes = inflateRawSync(data, { maxOutputLength: Math.max(1, entry.uncompressedSize) });
            } catch (err) {
              throw bad(`${entry.name}: ${(err as Error).message}`);
            }
          } else throw bad(`${entry.name}: compression method ${entry.method} is not supported`);
          if (bytes.length !== entry.uncompressedSize)
            throw bad(`${entry.name}: ${bytes.length} bytes where ${entry.uncompressedSize} were declared`);
          if (crc32(bytes) !== entry.crc) throw bad(`${entry.name}: CRC mismatch`);
          return bytes;
        },
      };
    }
  } finally {
    await src.close();
  }
}
