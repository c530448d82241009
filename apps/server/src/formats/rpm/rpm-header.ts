import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';

/**
 * A bounded reader of an RPM package's lead, signature header and main header (the file format of
 * rpm 4: https://rpm-software-management.github.io/rpm/manual/format_v4.html). Only the first
 * bytes of the file are read — up to the end of the main header — never the payload, and every
 * count and size is checked against a cap before anything is allocated.
 */

export class RpmFormatError extends Error {}

export const RPM_LIMITS = {
  /** The signature header's index entries and data (rpm's own limit is far higher; real ones are a few KiB). */
  signatureBytes: 1024 * 1024,
  /** The main header's index entries and data (file lists of large packages run to a few MiB). */
  headerBytes: 32 * 1024 * 1024,
  /** index entries of one header (rpm's own cap: 0xffff) */
  entries: 0xffff,
};

const LEAD_SIZE = 96;
const LEAD_MAGIC = 0xedabeedb;
const HEADER_MAGIC = Buffer.from([0x8e, 0xad, 0xe8, 0x01]);

const T = {
  CHAR: 1,
  INT8: 2,
  INT16: 3,
  INT32: 4,
  INT64: 5,
  STRING: 6,
  BIN: 7,
  STRING_ARRAY: 8,
  I18NSTRING: 9,
} as const;

/** Tags read here (rpmtag.h). */
export const TAG = {
  NAME: 1000,
  VERSION: 1001,
  RELEASE: 1002,
  EPOCH: 1003,
  SUMMARY: 1004,
  DESCRIPTION: 1005,
  BUILDTIME: 1006,
  BUILDHOST: 1007,
  SIZE: 1009,
  VENDOR: 1011,
  LICENSE: 1014,
  PACKAGER: 1015,
  GROUP: 1016,
  URL: 1020,
  ARCH: 1022,
  OLDFILENAMES: 1027,
  FILESIZES: 1028,
  FILEMODES: 1030,
  FILEFLAGS: 1037,
  SOURCERPM: 1044,
  ARCHIVESIZE: 1046,
  PROVIDENAME: 1047,
  REQUIREFLAGS: 1048,
  REQUIRENAME: 1049,
  REQUIREVERSION: 1050,
  CONFLICTFLAGS: 1053,
  CONFLICTNAME: 1054,
  CONFLICTVERSION: 1055,
  CHANGELOGTIME: 1080,
  CHANGELOGNAME: 1081,
  CHANGELOGTEXT: 1082,
  OBSOLETENAME: 1090,
  SOURCEPACKAGE: 1106,
  PROVIDEFLAGS: 1112,
  PROVIDEVERSION: 1113,
  OBSOLETEFLAGS: 1114,
  OBSOLETEVERSION: 1115,
  DIRINDEXES: 1116,
  BASENAMES: 1117,
  DIRNAMES: 1118,
  LONGFILESIZES: 5008,
  LONGSIZE: 5009,
  RECOMMENDNAME: 5046,
  RECOMMENDVERSION: 5047,
  RECOMMENDFLAGS: 5048,
  SUGGESTNAME: 5049,
  SUGGESTVERSION: 5050,
  SUGGESTFLAGS: 5051,
  SUPPLEMENTNAME: 5052,
  SUPPLEMENTVERSION: 5053,
  SUPPLEMENTFLAGS: 5054,
  ENHANCENAME: 5055,
  ENHANCEVERSION: 5056,
  ENHANCEFLAGS: 5057,
} as const;

/** Signature header tags. */
const SIG = { SIZE: 1000, PAYLOADSIZE: 1007, LONGSIZE: 270, LONGARCHIVESIZE: 271, SHA256: 273 } as const;

type Value = string | string[] | number[] | bigint[] | Buffer;

/** One header: its tags' values, and its bytes (for digests). */
export interface RpmHeaderStore {
  values: Map<number, Value>;
  bytes: Buffer;
}

/** What the reader found, with the byte range of the main header (`rpm:header-range`). */
export interface RpmHeaders {
  signature: RpmHeaderStore;
  main: RpmHeaderStore;
  /** offset of the main header in the file */
  headerStart: number;
  /** offset of the payload (end of the main header) */
  headerEnd: number;
}

/** Reads exactly `n` more bytes from a stream's chunks, or fails naming what was cut short. */
class ChunkReader {
  private buf: Buffer = Buffer.alloc(0);
  private readonly it: AsyncIterator<Buffer | string>;
  offset = 0;
  constructor(stream: AsyncIterable<Buffer | string>) {
    this.it = stream[Symbol.asyncIterator]();
  }
  async read(n: number, what: string): Promise<Buffer> {
    if (this.buf.length < n) {
      // chunks gathered, then joined once (a header of many MiB arrives in many chunks)
      const chunks = [this.buf];
      let have = this.buf.length;
      while (have < n) {
        const next = await this.it.next();
        if (next.done) throw new RpmFormatError(`not an RPM package: the file ends inside ${what}`);
        const chunk = typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
        chunks.push(chunk);
        have += chunk.length;
      }
      this.buf = Buffer.concat(chunks);
    }
    const out = this.buf.subarray(0, n);
    this.buf = this.buf.subarray(n);
    this.offset += n;
    return Buffer.from(out);
  }
  async close() {
    await this.it.return?.();
  }
}

function cString(data: Buffer, at: number, end: number, what: string): [string, number] {
  const nul = data.indexOf(0, at);
  if (nul < 0 || nul >= end) throw new RpmFormatError(`malformed RPM header: unterminated string in ${what}`);
  return [data.toString('utf8', at, nul), nul + 1];
}

function parseStore(index: Buffer, data: Buffer, what: string): Map<number, Value> {
  const values = new Map<number, Value>();
  const n = index.length / 16;
  for (let i = 0; i < n; i++) {
    const tag = index.readUInt32BE(i * 16);
    const type = index.readUInt32BE(i * 16 + 4);
    const offset = index.readInt32BE(i * 16 + 8);
    const count = index.readUInt32BE(i * 16 + 12);
    if (offset < 0 || offset > data.length || count > data.length + 1)
      throw new RpmFormatError(`malformed RPM ${what}: tag ${tag} points outside the header`);
    const need = (size: number) => {
      if (offset + size * count > data.length)
        throw new RpmFormatError(`malformed RPM ${what}: tag ${tag} runs past the header`);
    };
    switch (type) {
      case T.CHAR:
      case T.INT8:
      case T.BIN:
        need(1);
        values.set(
          tag,
          type === T.BIN ? data.subarray(offset, offset + count) : [...data.subarray(offset, offset + count)],
        );
        break;
      case T.INT16:
        need(2);
        values.set(
          tag,
          Array.from({ length: count }, (_, k) => data.readUInt16BE(offset + 2 * k)),
        );
        break;
      case T.INT32:
        need(4);
        values.set(
          tag,
          Array.from({ length: count }, (_, k) => data.readUInt32BE(offset + 4 * k)),
        );
        break;
      case T.INT64:
        need(8);
        values.set(
          tag,
          Array.from({ length: count }, (_, k) => data.readBigUInt64BE(offset + 8 * k)),
        );
        break;
      case T.STRING:
        values.set(tag, cString(data, offset, data.length, what)[0]);
        break;
      case T.STRING_ARRAY:
      case T.I18NSTRING: {
        const out: string[] = [];
        let at = offset;
        for (let k = 0; k < count; k++) {
          const [s, next] = cString(data, at, data.length, what);
          out.push(s);
          at = next;
        }
        // An I18N string's first value is the untranslated (C locale) one.
        values.set(tag, type === T.I18NSTRING ? (out[0] ?? '') : out);
        break;
      }
      default:
        // NULL and unknown types carry nothing read here.
        break;
    }
  }
  return values;
}

async function readHeader(r: ChunkReader, max: number, what: string): Promise<RpmHeaderStore> {
  const intro = await r.read(16, what);
  if (!intro.subarray(0, 4).equals(HEADER_MAGIC))
    throw new RpmFormatError(`malformed RPM package: no ${what} magic`);
  const il = intro.readUInt32BE(8);
  const dl = intro.readUInt32BE(12);
  if (il < 1 || il > RPM_LIMITS.entries)
    throw new RpmFormatError(`malformed RPM ${what}: ${il} index entries`);
  if (il * 16 + dl > max)
    throw new RpmFormatError(`RPM ${what} too large: ${il * 16 + dl} bytes, at most ${max} are read`);
  const index = await r.read(il * 16, what);
  const data = await r.read(dl, what);
  return {
    values: parseStore(index, data, what),
    bytes: Buffer.concat([intro, index, data]),
  };
}

/** Reads the lead and both headers from the start of an RPM file; the rest of the stream is left unread. */
export async function readRpmHeaders(source: Readable | Buffer): Promise<RpmHeaders> {
  const r = new ChunkReader(Buffer.isBuffer(source) ? Readable.from([source]) : source);
  try {
    const lead = await r.read(LEAD_SIZE, 'the lead');
    if (lead.readUInt32BE(0) !== LEAD_MAGIC) throw new RpmFormatError('not an RPM package: no lead magic');
    if (lead[4] !== 3 && lead[4] !== 4)
      throw new RpmFormatError(`unsupported RPM package format version ${lead[4]}`);
    const signature = await readHeader(r, RPM_LIMITS.signatureBytes, 'signature header');
    const pad = (8 - (signature.bytes.length % 8)) % 8;
    if (pad) await r.read(pad, 'the signature padding');
    const headerStart = r.offset;
    const main = await readHeader(r, RPM_LIMITS.headerBytes, 'header');
    return { signature, main, headerStart, headerEnd: r.offset };
  } finally {
    await r.close();
  }
}

const str = (h: RpmHeaderStore, tag: number): string | undefined => {
  const v = h.values.get(tag);
  if (typeof v === 'string') return v;
  if (Array.isArray(v) && typeof v[0] === 'string') return v[0];
  return undefined;
};
const strs = (h: RpmHeaderStore, tag: number): string[] => {
  const v = h.values.get(tag);
  if (typeof v === 'string') return [v];
  return Array.isArray(v) && v.every((x) => typeof x === 'string') ? (v as string[]) : [];
};
const nums = (h: RpmHeaderStore, tag: number): number[] => {
  const v = h.values.get(tag);
  if (!Array.isArray(v)) return [];
  return (v as (number | bigint | string)[]).map((x) => Number(x));
};
const num = (h: RpmHeaderStore, tag: number): number | undefined => nums(h, tag)[0];

/** A dependency as repodata writes it (`rpm:entry`). */
export interface RpmDependency {
  name: string;
  flags?: 'LT' | 'GT' | 'EQ' | 'LE' | 'GE';
  epoch?: string;
  ver?: string;
  rel?: string;
  pre?: boolean;
}

export interface RpmFileEntry {
  path: string;
  type?: 'dir' | 'ghost';
}

export interface RpmChangelog {
  author: string;
  date: number;
  text: string;
}

/** Everything repodata says of one package file, except where it is stored and its digest. */
export interface RpmPackageInfo {
  name: string;
  arch: string;
  epoch: string;
  version: string;
  release: string;
  summary: string;
  description: string;
  packager: string;
  url: string;
  buildTime: number;
  installedSize: number;
  archiveSize: number;
  license: string;
  vendor: string;
  group: string;
  buildhost: string;
  sourcerpm: string;
  headerRange: { start: number; end: number };
  provides: RpmDependency[];
  requires: RpmDependency[];
  conflicts: RpmDependency[];
  obsoletes: RpmDependency[];
  recommends: RpmDependency[];
  suggests: RpmDependency[];
  supplements: RpmDependency[];
  enhances: RpmDependency[];
  files: RpmFileEntry[];
  changelogs: RpmChangelog[];
}

const SENSE = { LESS: 2, GREATER: 4, EQUAL: 8 } as const;
/** Requires with these bits are `pre="1"` (RPMSENSE_PREREQ, SCRIPT_PRE, SCRIPT_POST), as createrepo_c marks them. */
const PRE_BITS = (1 << 6) | (1 << 9) | (1 << 10);
/** rpmlib(…) requirements (RPMSENSE_RPMLIB) are rpm's own, never written to repodata. */
const RPMLIB_BIT = 1 << 24;

function flagsOf(sense: number): RpmDependency['flags'] {
  const cmp = sense & (SENSE.LESS | SENSE.GREATER | SENSE.EQUAL);
  switch (cmp) {
    case SENSE.LESS:
      return 'LT';
    case SENSE.GREATER:
      return 'GT';
    case SENSE.EQUAL:
      return 'EQ';
    case SENSE.LESS | SENSE.EQUAL:
      return 'LE';
    case SENSE.GREATER | SENSE.EQUAL:
      return 'GE';
    default:
      return undefined;
  }
}

/** `[epoch:]version[-release]` split as rpm splits it; the epoch is 0 when a version is given without one. */
export function parseEvr(evr: string): { epoch?: string; ver?: string; rel?: string } {
  if (!evr) return {};
  let rest = evr;
  let epoch = '0';
  const colon = /^(\d+):/.exec(rest);
  if (colon) {
    epoch = colon[1] as string;
    rest = rest.slice(colon[0].length);
  }
  const dash = rest.lastIndexOf('-');
  return dash < 0 ? { epoch, ver: rest } : { epoch, ver: rest.slice(0, dash), rel: rest.slice(dash + 1) };
}

function deps(h: RpmHeaderStore, nameTag: number, flagsTag: number, versionTag: number): RpmDependency[] {
  const names = strs(h, nameTag);
  const flags = nums(h, flagsTag);
  const versions = strs(h, versionTag);
  const out: RpmDependency[] = [];
  const seen = new Set<string>();
  names.forEach((name, i) => {
    const sense = flags[i] ?? 0;
    if (sense & RPMLIB_BIT || name.startsWith('rpmlib(')) return;
    const f = flagsOf(sense);
    const dep: RpmDependency = { name, ...(f ? { flags: f, ...parseEvr(versions[i] ?? '') } : {}) };
    if (nameTag === TAG.REQUIRENAME && sense & PRE_BITS) dep.pre = true;
    const key = JSON.stringify(dep);
    if (seen.has(key)) return;
    seen.add(key);
    out.push(dep);
  });
  return out;
}

/** createrepo_c's default `--changelog-limit` */
const CHANGELOG_LIMIT = 10;
const S_IFMT = 0o170000;
const S_IFDIR = 0o040000;
const RPMFILE_GHOST = 1 << 6;

function files(h: RpmHeaderStore): RpmFileEntry[] {
  const modes = nums(h, TAG.FILEMODES);
  const fileFlags = nums(h, TAG.FILEFLAGS);
  let paths: string[];
  const basenames = strs(h, TAG.BASENAMES);
  if (basenames.length) {
    const dirnames = strs(h, TAG.DIRNAMES);
    const dirindexes = nums(h, TAG.DIRINDEXES);
    if (dirindexes.length !== basenames.length)
      throw new RpmFormatError('malformed RPM header: file names and directory indexes differ in number');
    paths = basenames.map((b, i) => {
      const dir = dirnames[dirindexes[i] as number];
      if (dir === undefined)
        throw new RpmFormatError('malformed RPM header: a file names a missing directory');
      return dir + b;
    });
  } else paths = strs(h, TAG.OLDFILENAMES);
  return paths.map((path, i) => {
    if (!path.startsWith('/') || path.split('/').some((seg) => seg === '..' || seg === '.'))
      throw new RpmFormatError(`unsafe file path in the RPM's file list: '${path}' (a path escape)`);
    const type =
      ((fileFlags[i] ?? 0) & RPMFILE_GHOST) !== 0
        ? 'ghost'
        : ((modes[i] ?? 0) & S_IFMT) === S_IFDIR
          ? 'dir'
          : undefined;
    return type ? { path, type } : { path };
  });
}

/**
 * The package a header describes, after checking it as rpm would before installing it: the name,
 * version, release and arch are there, the header's SHA-256 in the signature header matches, and
 * the file's size is the one the signature header gives (when the total size is known).
 */
export function packageInfo(h: RpmHeaders, fileSize?: number): RpmPackageInfo {
  const m = h.main;
  const name = str(m, TAG.NAME);
  const version = str(m, TAG.VERSION);
  const release = str(m, TAG.RELEASE);
  if (!name || !version || release === undefined)
    throw new RpmFormatError('malformed RPM header: no name, version or release');
  const sha = str(h.signature, SIG.SHA256);
  if (sha && sha !== createHash('sha256').update(m.bytes).digest('hex'))
    throw new RpmFormatError('damaged RPM package: the header does not match its SHA-256 digest');
  const sigSize = num(h.signature, SIG.LONGSIZE) ?? num(h.signature, SIG.SIZE);
  if (fileSize !== undefined && sigSize !== undefined && sigSize !== fileSize - h.headerStart)
    throw new RpmFormatError(
      `damaged RPM package: ${fileSize - h.headerStart} bytes of header and payload, the signature header says ${sigSize}`,
    );
  const isSource = m.values.has(TAG.SOURCEPACKAGE) || !m.values.has(TAG.SOURCERPM);
  const epochNum = num(m, TAG.EPOCH);
  const longFileSizes = nums(m, TAG.LONGFILESIZES);
  const installedSize =
    num(m, TAG.LONGSIZE) ??
    num(m, TAG.SIZE) ??
    (longFileSizes.length ? longFileSizes : nums(m, TAG.FILESIZES)).reduce((a, b) => a + b, 0);
  const times = nums(m, TAG.CHANGELOGTIME);
  const names = strs(m, TAG.CHANGELOGNAME);
  const texts = strs(m, TAG.CHANGELOGTEXT);
  const provides = deps(m, TAG.PROVIDENAME, TAG.PROVIDEFLAGS, TAG.PROVIDEVERSION);
  const provided = new Set(provides.map((d) => JSON.stringify(d)));
  return {
    name,
    arch: isSource ? 'src' : (str(m, TAG.ARCH) ?? 'noarch'),
    epoch: String(epochNum ?? 0),
    version,
    release,
    summary: str(m, TAG.SUMMARY) ?? '',
    description: str(m, TAG.DESCRIPTION) ?? '',
    packager: str(m, TAG.PACKAGER) ?? '',
    url: str(m, TAG.URL) ?? '',
    buildTime: num(m, TAG.BUILDTIME) ?? 0,
    installedSize,
    archiveSize:
      num(h.signature, SIG.LONGARCHIVESIZE) ??
      num(h.signature, SIG.PAYLOADSIZE) ??
      num(m, TAG.ARCHIVESIZE) ??
      0,
    license: str(m, TAG.LICENSE) ?? '',
    vendor: str(m, TAG.VENDOR) ?? '',
    group: str(m, TAG.GROUP) ?? '',
    buildhost: str(m, TAG.BUILDHOST) ?? '',
    sourcerpm: isSource ? '' : (str(m, TAG.SOURCERPM) ?? ''),
    headerRange: { start: h.headerStart, end: h.headerEnd },
    provides,
    // A package's requirement of what it provides itself (its `config(…)`) is left out, as createrepo_c does.
    requires: deps(m, TAG.REQUIRENAME, TAG.REQUIREFLAGS, TAG.REQUIREVERSION).filter(
      (d) => !provided.has(JSON.stringify(d)),
    ),
    conflicts: deps(m, TAG.CONFLICTNAME, TAG.CONFLICTFLAGS, TAG.CONFLICTVERSION),
    obsoletes: deps(m, TAG.OBSOLETENAME, TAG.OBSOLETEFLAGS, TAG.OBSOLETEVERSION),
    recommends: deps(m, TAG.RECOMMENDNAME, TAG.RECOMMENDFLAGS, TAG.RECOMMENDVERSION),
    suggests: deps(m, TAG.SUGGESTNAME, TAG.SUGGESTFLAGS, TAG.SUGGESTVERSION),
    supplements: deps(m, TAG.SUPPLEMENTNAME, TAG.SUPPLEMENTFLAGS, TAG.SUPPLEMENTVERSION),
    enhances: deps(m, TAG.ENHANCENAME, TAG.ENHANCEFLAGS, TAG.ENHANCEVERSION),
    files: files(m),
    // The header keeps the newest first; repodata lists the newest ten, oldest first (createrepo_c's default).
    changelogs: texts
      .slice(0, CHANGELOG_LIMIT)
      .map((text, i) => ({ author: names[i] ?? '', date: times[i] ?? 0, text }))
      .reverse(),
  };
}

/** The file name rpmbuild gives a package: `{name}-{version}-{release}.{arch}.rpm`. */
export const rpmFileName = (p: Pick<RpmPackageInfo, 'name' | 'version' | 'release' | 'arch'>) =>
  `${p.name}-${p.version}-${p.release}.${p.arch}.rpm`;

/** The version the packages index shows: `version-release`, with `epoch:` when the epoch is not 0. */
export const displayVersion = (p: Pick<RpmPackageInfo, 'epoch' | 'version' | 'release'>) =>
  `${p.epoch && p.epoch !== '0' ? `${p.epoch}:` : ''}${p.version}-${p.release}`;

/** Reads a package's headers from a stream and describes it. */
export async function readRpmPackage(source: Readable | Buffer, fileSize?: number): Promise<RpmPackageInfo> {
  return packageInfo(await readRpmHeaders(source), fileSize);
}
