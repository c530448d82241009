import { Readable } from 'node:stream';
import { constants, crc32, deflateRawSync, gzipSync } from 'node:zlib';

/**
 * Test support: decompression bombs, made on the fly. A GiB of zeros is a few hundred copies of one
 * small compressed MiB (concatenated gzip members; full-flush deflate blocks), so a hostile archive
 * costs its test a few MB and no fixture is committed.
 */

const MiB = 1024 * 1024;
const ZEROS = Buffer.alloc(MiB);
/** one MiB of zeros as a gzip member (~1 KB): a gzip file may be any number of members back to back */
const GZ_ZEROS_MIB = gzipSync(ZEROS, { level: 9 });
/** one MiB of zeros as a deflate block that ends on a byte boundary and needs no earlier window */
const DEFLATED_ZEROS_MIB = deflateRawSync(ZEROS, { level: 9, finishFlush: constants.Z_FULL_FLUSH });
const DEFLATE_END = deflateRawSync(Buffer.alloc(0));

/** A ustar header: `size` is what the entry declares (octal, so at most 8 GiB - 1). */
export function tarHeader(name: string, size: number, type: 'file' | 'directory' = 'file'): Buffer {
  const h = Buffer.alloc(512);
  h.write(name, 0, 100, 'utf8');
  h.write(type === 'file' ? '0000644\0' : '0000755\0', 100);
  h.write('0000000\0', 108);
  h.write('0000000\0', 116);
  h.write(`${size.toString(8).padStart(11, '0')}\0`, 124);
  h.write(
    `${Math.floor(Date.UTC(2024, 0, 1) / 1000)
      .toString(8)
      .padStart(11, '0')}\0`,
    136,
  );
  h.write('        ', 148);
  h.write(type === 'file' ? '0' : '5', 156);
  h.write('ustar\0', 257);
  h.write('00', 263);
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  return h;
}

export interface BombEntry {
  name: string;
  /** real content (a small file) */
  content?: Buffer | string;
  /** or this many zero bytes */
  zeros?: number;
  /**
   * what the header declares, when it should lie (more than the bytes that follow: a truncated
   * archive); default: the real size
   */
  declared?: number;
}

function* zeroMembers(bytes: number): Generator<Buffer> {
  for (let left = bytes; left > 0; left -= MiB)
    yield left >= MiB ? GZ_ZEROS_MIB : gzipSync(ZEROS.subarray(0, left));
}

/**
 * A gzip-compressed tar of `entries`, streamed (a few KB in memory whatever it unpacks to);
 * `trailingZeros` adds zero bytes after the archive's end blocks (a tar reader skims them).
 */
export function tarGzBomb(entries: BombEntry[], opts: { trailingZeros?: number } = {}): Readable {
  return Readable.from(
    (function* () {
      for (const e of entries) {
        const content = e.content === undefined ? undefined : Buffer.from(e.content);
        const size = content?.length ?? e.zeros ?? 0;
        yield gzipSync(tarHeader(e.name, e.declared ?? size));
        if (content) yield gzipSync(content);
        else yield* zeroMembers(size);
        if (size % 512) yield gzipSync(Buffer.alloc(512 - (size % 512)));
      }
      yield gzipSync(Buffer.alloc(1024));
      yield* zeroMembers(opts.trailingZeros ?? 0);
    })(),
    { objectMode: false },
  );
}

/** A whole stream in memory (for bombs small enough to send in one body). */
export async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

const zeroCrcs = new Map<number, number>();
/** CRC-32 of `bytes` zeros, a MiB at a time (remembered: bombs reuse their sizes). */
function zerosCrc(bytes: number): number {
  let crc = zeroCrcs.get(bytes);
  if (crc !== undefined) return crc;
  crc = 0;
  for (let left = bytes; left > 0; left -= MiB)
    crc = crc32(left >= MiB ? ZEROS : ZEROS.subarray(0, left), crc);
  zeroCrcs.set(bytes, crc);
  return crc;
}

/**
 * A zip (deflated entries) of `entries`, in memory: a MiB of zeros costs ~1 KB. A `zeros` entry is
 * a true bomb (its sizes and CRC are right); `declared` makes an entry lie about its uncompressed size.
 * Sizes stay below 4 GiB (no zip64).
 */
export function zipBomb(entries: BombEntry[]): Buffer {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name, 'utf8');
    const content = e.content === undefined ? undefined : Buffer.from(e.content);
    const size = content?.length ?? e.zeros ?? 0;
    const data: Buffer[] = [];
    if (content) data.push(deflateRawSync(content));
    else {
      for (let left = size; left > 0; left -= MiB)
        data.push(
          left >= MiB
            ? DEFLATED_ZEROS_MIB
            : deflateRawSync(ZEROS.subarray(0, left), { finishFlush: constants.Z_FULL_FLUSH }),
        );
      data.push(DEFLATE_END);
    }
    const compressed = data.reduce((n, d) => n + d.length, 0);
    const crc = content ? crc32(content) : zerosCrc(size);
    const declared = e.declared ?? size;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(8, 8); // deflate
    local.writeUInt32LE(crc >>> 0, 14);
    local.writeUInt32LE(compressed, 18);
    local.writeUInt32LE(declared, 22);
    local.writeUInt16LE(name.length, 26);
    const entry = Buffer.alloc(46);
    entry.writeUInt32LE(0x02014b50, 0);
    entry.writeUInt16LE(20, 4);
    entry.writeUInt16LE(20, 6);
    entry.writeUInt16LE(0x0800, 8);
    entry.writeUInt16LE(8, 10);
    entry.writeUInt32LE(crc >>> 0, 16);
    entry.writeUInt32LE(compressed, 20);
    entry.writeUInt32LE(declared, 24);
    entry.writeUInt16LE(name.length, 28);
    entry.writeUInt32LE(offset, 42);
    central.push(entry, name);
    parts.push(local, name, ...data);
    offset += 30 + name.length + compressed;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, directory, end]);
}

/**
 * A zip whose central directory holds `count` records (zip64, so past 65,535) and nothing else: each
 * a folder `d{n}/`, which the archive index reads and never keeps. The records point at no data.
 */
export function zipDirectoryBomb(count: number): Buffer {
  const records: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const name = Buffer.from(`d${i}/`);
    const record = Buffer.alloc(46);
    record.writeUInt32LE(0x02014b50, 0);
    record.writeUInt16LE(45, 4);
    record.writeUInt16LE(20, 6);
    record.writeUInt16LE(name.length, 28);
    records.push(record, name);
  }
  const directory = Buffer.concat(records);
  const zip64End = Buffer.alloc(56);
  zip64End.writeUInt32LE(0x06064b50, 0);
  zip64End.writeBigUInt64LE(44n, 4);
  zip64End.writeUInt16LE(45, 12);
  zip64End.writeUInt16LE(45, 14);
  zip64End.writeBigUInt64LE(BigInt(count), 24);
  zip64End.writeBigUInt64LE(BigInt(count), 32);
  zip64End.writeBigUInt64LE(BigInt(directory.length), 40);
  zip64End.writeBigUInt64LE(0n, 48);
  const locator = Buffer.alloc(20);
  locator.writeUInt32LE(0x07064b50, 0);
  locator.writeBigUInt64LE(BigInt(directory.length), 8);
  locator.writeUInt32LE(1, 16);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(0xffff, 8);
  end.writeUInt16LE(0xffff, 10);
  end.writeUInt32LE(0xffffffff, 12);
  end.writeUInt32LE(0xffffffff, 16);
  return Buffer.concat([directory, zip64End, locator, end]);
}
