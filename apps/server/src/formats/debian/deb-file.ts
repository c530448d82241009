import { Duplex, PassThrough, Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { Decompress as ZstdDecompress } from 'fzstd';
import tar from 'tar-stream';
import xzDecompress from 'xz-decompress';
import { ArchiveError, ArchiveLimitError } from '../../platform/archives/bounded-archive.ts';
import type { PackageMetadata, StoredFile } from '../sdk/format.ts';
import {
  field,
  isArchitecture,
  isPackageName,
  isVersion,
  type Paragraph,
  parseDepends,
  parseParagraphs,
} from './control.ts';

/**
 * Reading a `.deb` (deb(5)): an `ar` archive of `debian-binary` ("2.0\n"), `control.tar[.gz|.xz|.zst]`
 * and `data.tar[.gz|.xz|.zst|.bz2…]`, in that order. Read as a stream, within limits: the control
 * member is held in memory (bounded), the data member is only walked through when asked for (to refuse
 * a path that escapes the install root), never kept.
 */

export const DEB_LIMITS = {
  /** the compressed control member */
  controlMemberBytes: 4 * 1024 * 1024,
  /** the control member unpacked */
  controlTarBytes: 16 * 1024 * 1024,
  /** the `control` file itself */
  controlFileBytes: 1024 * 1024,
  controlEntries: 200,
  /** entries of the data member */
  dataEntries: 200_000,
  /** unpacked ÷ packed bytes of a member, past `ratioFloor` unpacked bytes (a decompression bomb) */
  ratio: 500,
  ratioFloor: 64 * 1024 * 1024,
  /** the data member unpacked */
  dataTarBytes: 16 * 1024 * 1024 * 1024,
} as const;

/** A .deb that cannot be read or breaks a rule; the message is what the client is told. */
export class DebFileError extends ArchiveError {}

export interface DebInfo {
  /** the `control` file's one paragraph, fields in their order */
  control: Paragraph;
  name: string;
  version: string;
  architecture: string;
}

type Compression = '' | 'gz' | 'xz' | 'zst';

function compressionOf(member: string, kind: 'control' | 'data'): Compression {
  const ext = member.slice(`${kind}.tar`.length);
  if (ext === '') return '';
  if (ext === '.gz' || ext === '.xz' || ext === '.zst') return ext.slice(1) as Compression;
  throw new DebFileError(`${member}: this compression is not supported (use gzip, xz or zstd)`);
}

/** zstd through fzstd, fed in small slices so one chunk can never unpack to more than a few MiB at once. */
function zstdStream(limit: number): Transform {
  let out = 0;
  const t: Transform = new Transform({
    transform(chunk: Buffer, _e, done) {
      try {
        for (let i = 0; i < chunk.length; i += 256) {
          d.push(chunk.subarray(i, i + 256));
          if (out > limit)
            return done(new ArchiveLimitError(`the member unpacks to more than ${limit} bytes`));
        }
        done();
      } catch (err) {
        done(new DebFileError(`not zstd data (${(err as Error).message})`));
      }
    },
    flush(done) {
      try {
        d.push(new Uint8Array(0), true);
        done();
      } catch (err) {
        done(new DebFileError(`truncated zstd data (${(err as Error).message})`));
      }
    },
  });
  const d = new ZstdDecompress((data) => {
    out += data.length;
    t.push(Buffer.from(data));
  });
  return t;
}

function xzStream(): Duplex {
  const input = new PassThrough();
  const output = Readable.fromWeb(
    new xzDecompress.XzReadableStream(
      Readable.toWeb(input) as unknown as ReadableStream<Uint8Array>,
    ) as never,
  );
  return Duplex.from({ writable: input, readable: output });
}

function decompressor(kind: Compression, limit: number): Duplex[] {
  if (kind === 'gz') return [createGunzip()];
  if (kind === 'xz') return [xzStream()];
  if (kind === 'zst') return [zstdStream(limit)];
  return [];
}

/** `..` as a path segment, or a NUL: a member that would land outside the install root. */
const escapes = (name: string) => name.includes('\0') || name.split('/').some((s) => s === '..');

export interface TarWalkLimits {
  entries: number;
  totalBytes: number;
}

/**
 * Walks a (compressed) tar member: every entry name is checked for an escape, counts and unpacked
 * bytes against the limits; `onEntry` may read an entry (bounded by `maxRead`). Never leaves a stream
 * error unhandled.
 */
async function walkTar(
  source: Readable,
  kind: Compression,
  what: string,
  limits: TarWalkLimits,
  onEntry?: (name: string, type: string, read: (max: number) => Promise<Buffer>) => Promise<void>,
): Promise<void> {
  let packed = 0;
  let unpacked = 0;
  let failure: Error | undefined;
  const fail = (err: Error) => {
    failure ??= err;
    return failure;
  };
  const countIn = new Transform({
    transform(chunk: Buffer, _e, done) {
      packed += chunk.length;
      done(null, chunk);
    },
  });
  const countOut = new Transform({
    transform(chunk: Buffer, _e, done) {
      unpacked += chunk.length;
      if (unpacked > limits.totalBytes)
        return done(fail(new ArchiveLimitError(`${what} unpacks to more than ${limits.totalBytes} bytes`)));
      if (unpacked > DEB_LIMITS.ratioFloor && unpacked > packed * DEB_LIMITS.ratio)
        return done(
          fail(
            new ArchiveLimitError(
              `${what}'s compression ratio is over ${DEB_LIMITS.ratio} (a decompression bomb)`,
            ),
          ),
        );
      done(null, chunk);
    },
  });
  const extract = tar.extract();
  const piped = pipeline(source, countIn, ...decompressor(kind, limits.totalBytes), countOut, extract).catch(
    (err: Error) => {
      fail(err);
    },
  );
  let entries = 0;
  try {
    for await (const entry of extract) {
      entries += 1;
      if (entries > limits.entries)
        throw new ArchiveLimitError(`${what} has more than ${limits.entries} entries`);
      const name = entry.header.name;
      if (
        escapes(name) ||
        (entry.header.linkname && entry.header.type === 'link' && escapes(entry.header.linkname))
      )
        throw new DebFileError(`${what}: the path "${name}" escapes the package's root (..)`);
      let read = false;
      await onEntry?.(name.replace(/^\.?\//, ''), entry.header.type ?? 'file', async (max) => {
        read = true;
        if ((entry.header.size ?? 0) > max)
          throw new ArchiveLimitError(`${what}: ${name} is larger than ${max} bytes`);
        const chunks: Buffer[] = [];
        let n = 0;
        for await (const c of entry as AsyncIterable<Buffer>) {
          n += c.length;
          if (n > max) throw new ArchiveLimitError(`${what}: ${name} is larger than ${max} bytes`);
          chunks.push(c);
        }
        return Buffer.concat(chunks);
      });
      if (!read) entry.resume();
    }
    await piped;
    if (failure) throw failure;
  } catch (err) {
    const e = failure ?? err;
    if (e instanceof ArchiveError) throw e;
    throw new DebFileError(`${what} is not a readable tar archive (${(e as Error).message})`);
  } finally {
    extract.destroy();
    source.destroy();
    await piped;
  }
}

/** Exact reads from a byte stream (the ar archive is read front to back, never whole). */
class ByteReader {
  private buffered: Buffer = Buffer.alloc(0);
  private done = false;
  constructor(private readonly it: AsyncIterator<unknown>) {}

  private async fill(n: number): Promise<boolean> {
    while (this.buffered.length < n && !this.done) {
      const next = await this.it.next();
      if (next.done) this.done = true;
      else this.buffered = Buffer.concat([this.buffered, Buffer.from(next.value as Uint8Array)]);
    }
    return this.buffered.length >= n;
  }

  /** Exactly `n` bytes, or null at the very end of the stream; a short read is an error. */
  async take(n: number, what: string): Promise<Buffer | null> {
    if (!(await this.fill(n))) {
      if (this.buffered.length === 0) return null;
      throw new DebFileError(`the .deb is truncated (in ${what})`);
    }
    const out = this.buffered.subarray(0, n);
    this.buffered = this.buffered.subarray(n);
    return out;
  }

  /** The next `n` bytes as a stream of chunks, without holding them. */
  async *chunks(n: number, what: string): AsyncGenerator<Buffer> {
    let left = n;
    while (left > 0) {
      if (this.buffered.length === 0 && !(await this.fill(1)))
        throw new DebFileError(`the .deb is truncated (in ${what})`);
      const piece = this.buffered.subarray(0, Math.min(left, this.buffered.length));
      this.buffered = this.buffered.subarray(piece.length);
      left -= piece.length;
      yield piece;
    }
  }
}

interface ArHeader {
  name: string;
  size: number;
}

async function nextMember(r: ByteReader): Promise<ArHeader | null> {
  const h = await r.take(60, 'an ar member header');
  if (!h) return null;
  if (h[58] !== 0x60 || h[59] !== 0x0a) throw new DebFileError('not a .deb: a damaged ar member header');
  const name = h.subarray(0, 16).toString('latin1').trim().replace(/\/$/, '');
  const sizeText = h.subarray(48, 58).toString('latin1').trim();
  if (!/^\d+$/.test(sizeText)) throw new DebFileError(`not a .deb: member ${name} has no size`);
  return { name, size: Number(sizeText) };
}

/**
 * Reads a .deb from a stream: its control paragraph, checked (one paragraph, a valid Package,
 * Version and Architecture), with `checkData` its data member walked too (no path escapes, within the
 * limits). Throws a DebFileError (or ArchiveLimitError) saying what is wrong. The stream is consumed
 * up to the control member (or to the end with `checkData`) and destroyed.
 */
export async function readDeb(source: Readable, opts: { checkData?: boolean } = {}): Promise<DebInfo> {
  const it = source[Symbol.asyncIterator]();
  const r = new ByteReader(it);
  try {
    const magic = await r.take(8, 'the ar magic');
    if (magic?.toString('latin1') !== '!<arch>\n')
      throw new DebFileError('not a .deb: it is not an ar archive');
    const first = await nextMember(r);
    if (first?.name !== 'debian-binary')
      throw new DebFileError('not a .deb: debian-binary is not its first member');
    if (first.size > 64) throw new DebFileError('not a .deb: debian-binary is too long');
    const version = (await r.take(first.size + (first.size % 2), 'debian-binary'))!.toString('latin1');
    if (!/^2\.\d+\n/.test(version))
      throw new DebFileError(`not a .deb of format 2.x (debian-binary "${version.trim()}")`);

    let control: Paragraph | null = null;
    let sawData = false;
    for (let m = await nextMember(r); m; m = await nextMember(r)) {
      const padded = m.size + (m.size % 2);
      if (m.name.startsWith('control.tar')) {
        if (control) throw new DebFileError('not a .deb: two control members');
        const kind = compressionOf(m.name, 'control');
        if (m.size > DEB_LIMITS.controlMemberBytes)
          throw new ArchiveLimitError(`${m.name} is larger than ${DEB_LIMITS.controlMemberBytes} bytes`);
        const bytes = (await r.take(padded, m.name))!.subarray(0, m.size);
        let text: string | null = null;
        await walkTar(
          Readable.from([bytes]),
          kind,
          m.name,
          { entries: DEB_LIMITS.controlEntries, totalBytes: DEB_LIMITS.controlTarBytes },
          async (name, type, read) => {
            if (name === 'control' && type === 'file') {
              if (text !== null) throw new DebFileError(`${m.name} has two control files`);
              text = (await read(DEB_LIMITS.controlFileBytes)).toString('utf8');
            }
          },
        );
        if (text === null) throw new DebFileError(`${m.name} has no control file`);
        control = checkControl(text);
        if (!opts.checkData) return infoOf(control);
        continue;
      }
      if (m.name.startsWith('data.tar')) {
        if (!control) throw new DebFileError('not a .deb: the data member comes before the control member');
        sawData = true;
        const kind = compressionOf(m.name, 'data');
        await walkTar(Readable.from(r.chunks(m.size, m.name)), kind, m.name, {
          entries: DEB_LIMITS.dataEntries,
          totalBytes: DEB_LIMITS.dataTarBytes,
        });
        if (m.size % 2) await r.take(1, m.name);
        continue;
      }
      if (m.name.startsWith('_')) {
        for await (const _ of r.chunks(padded, m.name));
        continue;
      }
      throw new DebFileError(`not a .deb: unexpected member "${m.name}"`);
    }
    if (!control) throw new DebFileError('not a .deb: it has no control member');
    if (!sawData) throw new DebFileError('not a .deb: it has no data member');
    return infoOf(control);
  } finally {
    source.destroy();
  }
}

function infoOf(control: Paragraph): DebInfo {
  return {
    control,
    name: field(control, 'Package')!,
    version: field(control, 'Version')!,
    architecture: field(control, 'Architecture')!,
  };
}

/** The control file's text as one checked paragraph. */
export function checkControl(text: string): Paragraph {
  let paragraphs: Paragraph[];
  try {
    paragraphs = parseParagraphs(text);
  } catch (err) {
    throw new DebFileError(`the control file is malformed: ${(err as Error).message}`);
  }
  if (paragraphs.length !== 1)
    throw new DebFileError(`the control file has ${paragraphs.length} paragraphs (one expected)`);
  const p = paragraphs[0]!;
  const name = field(p, 'Package');
  const version = field(p, 'Version');
  const arch = field(p, 'Architecture');
  if (!name || !isPackageName(name))
    throw new DebFileError(`the control file's Package "${name ?? ''}" is not a valid package name`);
  if (!version || !isVersion(version))
    throw new DebFileError(`the control file's Version "${version ?? ''}" is not a valid version`);
  if (!arch || !isArchitecture(arch))
    throw new DebFileError(`the control file's Architecture "${arch ?? ''}" is not valid`);
  return p;
}

/** The packages index's view of a control paragraph. */
export function debMetadata(control: Paragraph): PackageMetadata {
  const description = field(control, 'Description');
  const license = field(control, 'License');
  const deps = [
    ...parseDepends(field(control, 'Pre-Depends')).map((d) => ({ ...d, scope: 'pre-depends' })),
    ...parseDepends(field(control, 'Depends')).map((d) => ({ ...d, scope: 'depends' })),
  ];
  const longText = description
    ?.split('\n')
    .slice(1)
    .map((l) => l.replace(/^\s/, '').replace(/^\.$/, ''))
    .join('\n')
    .trim();
  return {
    name: field(control, 'Package')!,
    version: field(control, 'Version')!,
    ...(description ? { description: description.split('\n')[0]!.trim() } : {}),
    ...(license ? { licenses: [license] } : {}),
    ...(deps.length ? { dependencies: deps } : {}),
    ...(longText ? { readme: longText } : {}),
    leadFile: true,
  };
}

/** `extractMetadata`: a stored `.deb`'s package coordinates, or null for anything else. */
export async function extractDebMetadata(file: StoredFile): Promise<PackageMetadata | null> {
  if (!file.path.endsWith('.deb')) return null;
  try {
    return debMetadata((await readDeb(await file.open())).control);
  } catch {
    return null;
  }
}
