import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { escapeXml, parseXml, type XmlElement } from '../maven/xml.ts';
import type { RpmChangelog, RpmDependency, RpmFileEntry, RpmPackageInfo } from './rpm-header.ts';

/**
 * YUM repository metadata (the `repodata/` createrepo_c writes; its `xml_dump_*.c` give the exact shape): `primary.xml.gz`, `filelists.xml.gz`,
 * `other.xml.gz` and the `repomd.xml` that names them by checksum. Written from `RepoPackage`s, and
 * read back into them (a remote member's or an upstream's repodata, merged by a virtual repository).
 */

export class RepodataError extends Error {}

/** A package as repodata lists it: what its header says, and where the file is and what it hashes to. */
export interface RepoPackage extends RpmPackageInfo {
  /** the package file's digest, its id in filelists and other (`pkgid`) */
  checksum: string;
  checksumType: string;
  packageSize: number;
  /** seconds */
  fileTime: number;
  /** path of the package file relative to the repository root */
  location: string;
  /** `xml:base` of an upstream's location, when it has one */
  locationBase?: string;
  /** the files primary.xml lists (those a dependency may name: `/etc/…`, `…bin/…`) */
  primaryFiles: RpmFileEntry[];
}

/** Most a metadata file may hold once unpacked (a 256 MiB primary.xml is a very large distribution). */
export const MAX_REPODATA_BYTES = 256 * 1024 * 1024;
/** Most a repomd.xml may hold. */
export const MAX_REPOMD_BYTES = 1024 * 1024;

const NS_COMMON = 'http://linux.duke.edu/metadata/common';
const NS_RPM = 'http://linux.duke.edu/metadata/rpm';
const NS_REPO = 'http://linux.duke.edu/metadata/repo';
const NS_FILELISTS = 'http://linux.duke.edu/metadata/filelists';
const NS_OTHER = 'http://linux.duke.edu/metadata/other';

/** createrepo_c's rule for the files primary.xml lists. */
export const isPrimaryFile = (path: string) =>
  path.startsWith('/etc/') || path === '/usr/lib/sendmail' || path.includes('bin/');

const x = escapeXml;
const attr = (name: string, value: string | number | undefined) =>
  value === undefined ? '' : ` ${name}="${x(String(value))}"`;

function depXml(tag: string, list: RpmDependency[]): string {
  if (!list.length) return '';
  const entries = list.map(
    (d) =>
      `      <rpm:entry${attr('name', d.name)}${attr('flags', d.flags)}${attr('epoch', d.epoch)}${attr('ver', d.ver)}${attr('rel', d.rel)}${d.pre ? ' pre="1"' : ''}/>\n`,
  );
  return `    <rpm:${tag}>\n${entries.join('')}    </rpm:${tag}>\n`;
}

const fileXml = (f: RpmFileEntry, indent: string) =>
  `${indent}<file${f.type ? ` type="${f.type}"` : ''}>${x(f.path)}</file>\n`;

const versionXml = (p: RepoPackage) =>
  `  <version epoch="${x(p.epoch)}" ver="${x(p.version)}" rel="${x(p.release)}"/>\n`;

const DEP_KINDS = [
  'provides',
  'requires',
  'conflicts',
  'obsoletes',
  'suggests',
  'enhances',
  'recommends',
  'supplements',
] as const;

export function primaryXml(pkgs: RepoPackage[]): string {
  const body = pkgs.map(
    (p) =>
      '<package type="rpm">\n' +
      `  <name>${x(p.name)}</name>\n` +
      `  <arch>${x(p.arch)}</arch>\n` +
      versionXml(p) +
      `  <checksum type="${x(p.checksumType)}" pkgid="YES">${x(p.checksum)}</checksum>\n` +
      `  <summary>${x(p.summary)}</summary>\n` +
      `  <description>${x(p.description)}</description>\n` +
      `  <packager>${x(p.packager)}</packager>\n` +
      `  <url>${x(p.url)}</url>\n` +
      `  <time file="${p.fileTime}" build="${p.buildTime}"/>\n` +
      `  <size package="${p.packageSize}" installed="${p.installedSize}" archive="${p.archiveSize}"/>\n` +
      `  <location${p.locationBase ? attr('xml:base', p.locationBase) : ''}${attr('href', p.location)}/>\n` +
      '  <format>\n' +
      `    <rpm:license>${x(p.license)}</rpm:license>\n` +
      `    <rpm:vendor>${x(p.vendor)}</rpm:vendor>\n` +
      `    <rpm:group>${x(p.group)}</rpm:group>\n` +
      `    <rpm:buildhost>${x(p.buildhost)}</rpm:buildhost>\n` +
      `    <rpm:sourcerpm>${x(p.sourcerpm)}</rpm:sourcerpm>\n` +
      `    <rpm:header-range start="${p.headerRange.start}" end="${p.headerRange.end}"/>\n` +
      DEP_KINDS.map((k) => depXml(k, p[k])).join('') +
      p.primaryFiles.map((f) => fileXml(f, '    ')).join('') +
      '  </format>\n' +
      '</package>\n',
  );
  return `<?xml version="1.0" encoding="UTF-8"?>\n<metadata xmlns="${NS_COMMON}" xmlns:rpm="${NS_RPM}" packages="${pkgs.length}">\n${body.join('')}</metadata>\n`;
}

const pkgIdAttrs = (p: RepoPackage) =>
  `${attr('pkgid', p.checksum)}${attr('name', p.name)}${attr('arch', p.arch)}`;

export function filelistsXml(pkgs: RepoPackage[]): string {
  const body = pkgs.map(
    (p) =>
      `<package${pkgIdAttrs(p)}>\n${versionXml(p)}${p.files.map((f) => fileXml(f, '  ')).join('')}</package>\n`,
  );
  return `<?xml version="1.0" encoding="UTF-8"?>\n<filelists xmlns="${NS_FILELISTS}" packages="${pkgs.length}">\n${body.join('')}</filelists>\n`;
}

export function otherXml(pkgs: RepoPackage[]): string {
  const body = pkgs.map(
    (p) =>
      `<package${pkgIdAttrs(p)}>\n${versionXml(p)}${p.changelogs
        .map(
          (c) => `  <changelog${attr('author', c.author)}${attr('date', c.date)}>${x(c.text)}</changelog>\n`,
        )
        .join('')}</package>\n`,
  );
  return `<?xml version="1.0" encoding="UTF-8"?>\n<otherdata xmlns="${NS_OTHER}" packages="${pkgs.length}">\n${body.join('')}</otherdata>\n`;
}

/** One metadata file of a repository, ready to store: `repodata/{sha256}-{type}.xml.gz`. */
export interface RepodataFile {
  type: 'primary' | 'filelists' | 'other';
  path: string;
  bytes: Buffer;
  checksum: string;
  openChecksum: string;
  openSize: number;
}

const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

/** The three metadata files and the repomd.xml naming them, for a list of packages. */
export function buildRepodata(
  pkgs: RepoPackage[],
  timestamp: number,
): { files: RepodataFile[]; repomd: Buffer } {
  const files = (
    [
      ['primary', primaryXml(pkgs)],
      ['filelists', filelistsXml(pkgs)],
      ['other', otherXml(pkgs)],
    ] as const
  ).map(([type, xml]) => {
    const open = Buffer.from(xml, 'utf8');
    // mtime 0 in the gzip header: the same packages give the same bytes (and the same file name).
    const bytes = gzipSync(open, { level: 6 });
    const checksum = sha256(bytes);
    return {
      type,
      path: `repodata/${checksum}-${type}.xml.gz`,
      bytes,
      checksum,
      openChecksum: sha256(open),
      openSize: open.length,
    };
  });
  const data = files
    .map(
      (f) =>
        `  <data type="${f.type}">\n` +
        `    <checksum type="sha256">${f.checksum}</checksum>\n` +
        `    <open-checksum type="sha256">${f.openChecksum}</open-checksum>\n` +
        `    <location href="${f.path}"/>\n` +
        `    <timestamp>${timestamp}</timestamp>\n` +
        `    <size>${f.bytes.length}</size>\n` +
        `    <open-size>${f.openSize}</open-size>\n` +
        '  </data>\n',
    )
    .join('');
  const repomd = `<?xml version="1.0" encoding="UTF-8"?>\n<repomd xmlns="${NS_REPO}" xmlns:rpm="${NS_RPM}">\n  <revision>${timestamp}</revision>\n${data}</repomd>\n`;
  return { files, repomd: Buffer.from(repomd, 'utf8') };
}

// ---- reading repodata back ----

const kids = (el: XmlElement | undefined, name: string) =>
  (el?.children ?? []).filter((c): c is XmlElement => typeof c !== 'string' && c.name === name);
const kid = (el: XmlElement | undefined, name: string) => kids(el, name)[0];
/** An element's text as written (not trimmed: descriptions keep their lines). */
const textOf = (el: XmlElement | undefined) =>
  (el?.children ?? []).filter((c): c is string => typeof c === 'string').join('');
const int = (v: string | undefined) => {
  const n = Number(v ?? 0);
  return Number.isFinite(n) ? n : 0;
};

function parseDoc(bytes: Buffer, what: string, root: string): XmlElement {
  let doc: XmlElement;
  try {
    doc = parseXml(bytes);
  } catch (err) {
    throw new RepodataError(`${what} is not well-formed XML: ${(err as Error).message}`);
  }
  if (doc.name !== root) throw new RepodataError(`${what} is not a ${root} document`);
  return doc;
}

/** gunzip with a bound on the unpacked size. */
export function gunzipBounded(bytes: Buffer, what: string): Buffer {
  try {
    return gunzipSync(bytes, { maxOutputLength: MAX_REPODATA_BYTES });
  } catch (err) {
    throw new RepodataError(`${what} could not be unpacked: ${(err as Error).message}`);
  }
}

/** A repomd.xml's entries. */
export interface RepomdEntry {
  type: string;
  href: string;
  checksum?: { type: string; value: string };
}

export function parseRepomd(bytes: Buffer): RepomdEntry[] {
  if (bytes.length > MAX_REPOMD_BYTES) throw new RepodataError('repomd.xml is too large');
  const doc = parseDoc(bytes, 'repomd.xml', 'repomd');
  return kids(doc, 'data').flatMap((d) => {
    const href = kid(d, 'location')?.attributes.href;
    const sum = kid(d, 'checksum');
    if (!d.attributes.type || !href) return [];
    return [
      {
        type: d.attributes.type,
        href,
        ...(sum ? { checksum: { type: sum.attributes.type ?? 'sha256', value: textOf(sum).trim() } } : {}),
      },
    ];
  });
}

function parseDeps(format: XmlElement | undefined, kind: string): RpmDependency[] {
  return kids(kid(format, kind), 'entry').map((e) => {
    const a = e.attributes;
    const d: RpmDependency = { name: a.name ?? '' };
    if (a.flags) d.flags = a.flags as RpmDependency['flags'];
    if (a.epoch !== undefined) d.epoch = a.epoch;
    if (a.ver !== undefined) d.ver = a.ver;
    if (a.rel !== undefined) d.rel = a.rel;
    if (a.pre === '1' || a.pre === 'true') d.pre = true;
    return d;
  });
}

const parseFiles = (el: XmlElement | undefined): RpmFileEntry[] =>
  kids(el, 'file').map((f) => {
    const type = f.attributes.type;
    return type === 'dir' || type === 'ghost' ? { path: textOf(f), type } : { path: textOf(f) };
  });

/**
 * The packages of a repository from its primary, filelists and other documents (unpacked). Files and
 * changelogs join by `pkgid`; a package missing from filelists or other has none.
 */
export function parseRepodata(primary: Buffer, filelists?: Buffer, other?: Buffer): RepoPackage[] {
  const files = new Map<string, RpmFileEntry[]>();
  if (filelists)
    for (const p of kids(parseDoc(filelists, 'filelists.xml', 'filelists'), 'package'))
      files.set(p.attributes.pkgid ?? '', parseFiles(p));
  const changelogs = new Map<string, RpmChangelog[]>();
  if (other)
    for (const p of kids(parseDoc(other, 'other.xml', 'otherdata'), 'package'))
      changelogs.set(
        p.attributes.pkgid ?? '',
        kids(p, 'changelog').map((c) => ({
          author: c.attributes.author ?? '',
          date: int(c.attributes.date),
          text: textOf(c),
        })),
      );
  return kids(parseDoc(primary, 'primary.xml', 'metadata'), 'package').map((p) => {
    const v = kid(p, 'version')?.attributes ?? {};
    const sum = kid(p, 'checksum');
    const time = kid(p, 'time')?.attributes ?? {};
    const size = kid(p, 'size')?.attributes ?? {};
    const location = kid(p, 'location')?.attributes ?? {};
    const format = kid(p, 'format');
    const range = kid(format, 'header-range')?.attributes ?? {};
    const checksum = textOf(sum).trim();
    const name = textOf(kid(p, 'name')).trim();
    if (!name || !checksum || !location.href)
      throw new RepodataError('primary.xml lists a package without a name, checksum or location');
    const primaryFiles = parseFiles(format);
    return {
      name,
      arch: textOf(kid(p, 'arch')).trim(),
      epoch: v.epoch ?? '0',
      version: v.ver ?? '',
      release: v.rel ?? '',
      checksum,
      checksumType: sum?.attributes.type ?? 'sha256',
      summary: textOf(kid(p, 'summary')),
      description: textOf(kid(p, 'description')),
      packager: textOf(kid(p, 'packager')),
      url: textOf(kid(p, 'url')),
      fileTime: int(time.file),
      buildTime: int(time.build),
      packageSize: int(size.package),
      installedSize: int(size.installed),
      archiveSize: int(size.archive),
      location: location.href,
      ...(location.base ? { locationBase: location.base } : {}),
      license: textOf(kid(format, 'license')),
      vendor: textOf(kid(format, 'vendor')),
      group: textOf(kid(format, 'group')),
      buildhost: textOf(kid(format, 'buildhost')),
      sourcerpm: textOf(kid(format, 'sourcerpm')),
      headerRange: { start: int(range.start), end: int(range.end) },
      provides: parseDeps(format, 'provides'),
      requires: parseDeps(format, 'requires'),
      conflicts: parseDeps(format, 'conflicts'),
      obsoletes: parseDeps(format, 'obsoletes'),
      recommends: parseDeps(format, 'recommends'),
      suggests: parseDeps(format, 'suggests'),
      supplements: parseDeps(format, 'supplements'),
      enhances: parseDeps(format, 'enhances'),
      primaryFiles,
      files: files.get(checksum) ?? primaryFiles,
      changelogs: changelogs.get(checksum) ?? [],
    };
  });
}
