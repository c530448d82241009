import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { type Paragraph, renderParagraph, without } from './control.ts';
import { binaryFolder } from './layout.ts';

/** One .deb as an index lists it: its control paragraph and where and what its file is. */
export interface IndexEntry {
  control: Paragraph;
  /** `Filename`: its path from the repository root */
  filename: string;
  size: number;
  md5: string;
  sha1: string;
  sha256: string;
}

/** The fields an index adds to a control paragraph (dropped from it first, should it carry them). */
const FILE_FIELDS = ['Filename', 'Size', 'MD5sum', 'SHA1', 'SHA256', 'SHA512', 'Description-md5'];

/** A `Packages` index: one paragraph a .deb, control fields first, then Filename, Size and its digests. */
export function packagesText(entries: readonly IndexEntry[]): string {
  return entries
    .map(
      (e) =>
        `${renderParagraph(without(e.control, FILE_FIELDS))}Filename: ${e.filename}\nSize: ${e.size}\nMD5sum: ${e.md5}\nSHA1: ${e.sha1}\nSHA256: ${e.sha256}\n`,
    )
    .join('\n');
}

/** `Packages` and `Packages.gz` of some entries, by file name. */
export function packagesFiles(entries: readonly IndexEntry[]): { Packages: Buffer; 'Packages.gz': Buffer } {
  const text = Buffer.from(packagesText(entries));
  return { Packages: text, 'Packages.gz': gzipSync(text, { level: 9 }) };
}

const digest = (algorithm: string, b: Buffer) => createHash(algorithm).update(b).digest('hex');

export interface ReleaseInput {
  origin: string;
  label: string;
  /** null: a flat repository's Release (no Suite, Codename, Components) */
  dist: string | null;
  date: Date;
  architectures: readonly string[];
  components: readonly string[];
  description?: string;
  /** paths relative to the Release's folder, and their bytes */
  files: ReadonlyMap<string, Buffer>;
}

/**
 * A `Release` file (Debian Repository Format "Release files"): what apt checks every index it
 * downloads against — sizes and MD5Sum, SHA1, SHA256 of each — and `Acquire-By-Hash: yes`, so apt
 * downloads indexes by digest and never mixes an old Release with a new Packages.
 */
export function releaseText(r: ReleaseInput): string {
  const lines = [`Origin: ${r.origin}`, `Label: ${r.label}`];
  if (r.dist !== null) lines.push(`Suite: ${r.dist}`, `Codename: ${r.dist}`);
  lines.push(`Date: ${r.date.toUTCString().replace('GMT', 'UTC')}`);
  if (r.dist !== null) {
    lines.push(`Architectures: ${r.architectures.join(' ')}`, `Components: ${r.components.join(' ')}`);
    lines.push('Acquire-By-Hash: yes');
  }
  if (r.description) lines.push(`Description: ${r.description}`);
  const paths = [...r.files.keys()].sort();
  for (const [title, algorithm] of [
    ['MD5Sum', 'md5'],
    ['SHA1', 'sha1'],
    ['SHA256', 'sha256'],
  ] as const) {
    lines.push(`${title}:`);
    for (const p of paths) {
      const bytes = r.files.get(p)!;
      lines.push(` ${digest(algorithm, bytes)} ${String(bytes.length).padStart(16)} ${p}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** The same Release but for its Date line: whether rewriting it would change anything apt reads. */
export const sameRelease = (a: string, b: string) =>
  a.replace(/^Date: .*$/m, '') === b.replace(/^Date: .*$/m, '');

/** A Release's Date, or null. */
export function releaseDate(text: string): Date | null {
  const m = /^Date:\s*(.+)$/m.exec(text);
  if (!m) return null;
  const d = new Date(m[1]!.replace(/UTC$/, 'GMT'));
  return Number.isNaN(d.getTime()) ? null : d;
}

/** A Release's space-separated list field (Architectures, Components). */
export function releaseList(text: string, name: string): string[] {
  const m = new RegExp(`^${name}:[ \\t]*(.*)$`, 'mi').exec(text);
  return m ? m[1]!.split(/\s+/).filter(Boolean) : [];
}

/** A dist's index files: `{component}/binary-{arch}/Packages[.gz]` for every component and architecture. */
export function distIndexFiles(byFolder: ReadonlyMap<string, readonly IndexEntry[]>): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const [folder, entries] of byFolder) {
    const files = packagesFiles(entries);
    out.set(`${folder}/Packages`, files.Packages);
    out.set(`${folder}/Packages.gz`, files['Packages.gz']);
  }
  return out;
}

/**
 * Sorts entries into `{component}/binary-{arch}` folders: a package of architecture `all` is listed
 * in every architecture's index of its component (and in `binary-all`), as Debian's archive does.
 */
export function foldersOf(
  entries: readonly { entry: IndexEntry; components: string[]; architectures: string[] }[],
): { folders: Map<string, IndexEntry[]>; components: string[]; architectures: string[] } {
  const components = new Set<string>();
  const concrete = new Set<string>();
  let anyAll = false;
  for (const e of entries) {
    for (const c of e.components) components.add(c);
    for (const a of e.architectures)
      if (a === 'all') anyAll = true;
      else concrete.add(a);
  }
  const architectures = [...concrete].sort();
  if (anyAll) architectures.push('all');
  const folders = new Map<string, IndexEntry[]>();
  for (const c of [...components].sort()) for (const a of architectures) folders.set(binaryFolder(c, a), []);
  for (const e of entries)
    for (const c of e.components)
      for (const a of e.architectures) {
        const targets = a === 'all' ? architectures : [a];
        for (const t of targets) {
          const list = folders.get(binaryFolder(c, t))!;
          if (!list.some((x) => x.filename === e.entry.filename)) list.push(e.entry);
        }
      }
  return { folders, components: [...components].sort(), architectures };
}
