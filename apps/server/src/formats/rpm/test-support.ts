import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { TAG } from './rpm-header.ts';

/**
 * Test support: an RPM file as rpm 4 lays it out (lead, signature header with the header's SHA-256
 * and the size of header and payload, main header, payload), with the tags a test chooses, so the
 * in-process tests make packages — good and bad — without rpmbuild. The real-client test builds its
 * package with rpmbuild itself.
 */

type TagValue = string | string[] | number[];
const STRING = 6;
const STRING_ARRAY = 8;
const INT32 = 4;
const I18NSTRING = 9;

function headerBytes(tags: Map<number, { type: number; value: TagValue }>): Buffer {
  const entries = [...tags.entries()].sort((a, b) => a[0] - b[0]);
  const index: Buffer[] = [];
  const data: Buffer[] = [];
  let size = 0;
  for (const [tag, { type, value }] of entries) {
    let bytes: Buffer;
    let count: number;
    if (type === INT32) {
      const pad = (4 - (size % 4)) % 4;
      if (pad) {
        data.push(Buffer.alloc(pad));
        size += pad;
      }
      const nums = value as number[];
      bytes = Buffer.alloc(4 * nums.length);
      for (const [i, n] of nums.entries()) bytes.writeUInt32BE(n >>> 0, 4 * i);
      count = nums.length;
    } else if (type === STRING || type === I18NSTRING) {
      const s = Array.isArray(value) ? (value as string[]) : [value as string];
      bytes = Buffer.concat(s.map((v) => Buffer.from(`${v}\0`)));
      count = s.length;
    } else {
      const s = value as string[];
      bytes = Buffer.concat(s.map((v) => Buffer.from(`${v}\0`)));
      count = s.length;
    }
    const e = Buffer.alloc(16);
    e.writeUInt32BE(tag, 0);
    e.writeUInt32BE(type, 4);
    e.writeUInt32BE(size, 8);
    e.writeUInt32BE(count, 12);
    index.push(e);
    data.push(bytes);
    size += bytes.length;
  }
  const intro = Buffer.alloc(16);
  Buffer.from([0x8e, 0xad, 0xe8, 0x01]).copy(intro);
  intro.writeUInt32BE(entries.length, 8);
  intro.writeUInt32BE(size, 12);
  return Buffer.concat([intro, ...index, ...data]);
}

export interface MakeRpmOptions {
  release?: string;
  arch?: string;
  epoch?: number;
  summary?: string;
  description?: string;
  license?: string;
  requires?: { name: string; flags?: number; version?: string }[];
  /** absolute paths of the package's files */
  files?: string[];
  /** raw tags that replace or add to the ones made from the options */
  tags?: Record<number, { type: number; value: TagValue }>;
  /** the payload's bytes (default: a small gzip stream) */
  payload?: Buffer;
  /** change the header after the signature header's digest of it was computed (a damaged package) */
  tamper?: (header: Buffer) => Buffer;
}

/** RPMSENSE_ bits for `requires[].flags`. */
export const SENSE = { LT: 2, GT: 4, EQ: 8, LE: 10, GE: 12 } as const;

export function makeRpm(name: string, version: string, opts: MakeRpmOptions = {}): Buffer {
  const release = opts.release ?? '1';
  const arch = opts.arch ?? 'noarch';
  const files = opts.files ?? [`/usr/share/${name}/README`];
  const dirs = [...new Set(files.map((f) => f.slice(0, f.lastIndexOf('/') + 1)))];
  const requires = opts.requires ?? [];
  const tags = new Map<number, { type: number; value: TagValue }>([
    [TAG.NAME, { type: STRING, value: name }],
    [TAG.VERSION, { type: STRING, value: version }],
    [TAG.RELEASE, { type: STRING, value: release }],
    [TAG.SUMMARY, { type: I18NSTRING, value: opts.summary ?? `the ${name} package` }],
    [TAG.DESCRIPTION, { type: I18NSTRING, value: opts.description ?? `${name}, made by the tests.` }],
    [TAG.BUILDTIME, { type: INT32, value: [1_700_000_000] }],
    [TAG.BUILDHOST, { type: STRING, value: 'tests' }],
    [TAG.SIZE, { type: INT32, value: [files.length * 6] }],
    [TAG.LICENSE, { type: STRING, value: opts.license ?? 'MIT' }],
    [TAG.GROUP, { type: I18NSTRING, value: 'Unspecified' }],
    [TAG.ARCH, { type: STRING, value: arch }],
    [TAG.SOURCERPM, { type: STRING, value: `${name}-${version}-${release}.src.rpm` }],
    [TAG.PROVIDENAME, { type: STRING_ARRAY, value: [name] }],
    [TAG.PROVIDEFLAGS, { type: INT32, value: [SENSE.EQ] }],
    [
      TAG.PROVIDEVERSION,
      { type: STRING_ARRAY, value: [`${opts.epoch ? `${opts.epoch}:` : ''}${version}-${release}`] },
    ],
    [TAG.FILEMODES, { type: INT32, value: files.map(() => 0o100644) }],
    [TAG.FILEFLAGS, { type: INT32, value: files.map(() => 0) }],
    [
      TAG.DIRINDEXES,
      { type: INT32, value: files.map((f) => dirs.indexOf(f.slice(0, f.lastIndexOf('/') + 1))) },
    ],
    [TAG.BASENAMES, { type: STRING_ARRAY, value: files.map((f) => f.slice(f.lastIndexOf('/') + 1)) }],
    [TAG.DIRNAMES, { type: STRING_ARRAY, value: dirs }],
  ]);
  if (opts.epoch !== undefined) tags.set(TAG.EPOCH, { type: INT32, value: [opts.epoch] });
  if (requires.length) {
    tags.set(TAG.REQUIRENAME, { type: STRING_ARRAY, value: requires.map((r) => r.name) });
    tags.set(TAG.REQUIREFLAGS, { type: INT32, value: requires.map((r) => r.flags ?? 0) });
    tags.set(TAG.REQUIREVERSION, { type: STRING_ARRAY, value: requires.map((r) => r.version ?? '') });
  }
  for (const [tag, v] of Object.entries(opts.tags ?? {})) tags.set(Number(tag), v);
  const header = headerBytes(tags);
  const payload = opts.payload ?? gzipSync(Buffer.from('07070100000000'));
  const signature = headerBytes(
    new Map<number, { type: number; value: TagValue }>([
      [1000, { type: INT32, value: [header.length + payload.length] }],
      [273, { type: STRING, value: createHash('sha256').update(header).digest('hex') }],
    ]),
  );
  const lead = Buffer.alloc(96);
  lead.writeUInt32BE(0xedabeedb, 0);
  lead[4] = 3;
  lead.writeUInt16BE(5, 78);
  Buffer.from(`${name}-${version}-${release}`.slice(0, 65)).copy(lead, 10);
  const pad = Buffer.alloc((8 - (signature.length % 8)) % 8);
  return Buffer.concat([lead, signature, pad, opts.tamper ? opts.tamper(header) : header, payload]);
}
