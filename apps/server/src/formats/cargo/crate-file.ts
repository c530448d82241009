import type { Readable } from 'node:stream';
import {
  ArchiveError,
  type ArchiveLimits,
  archiveLimitOf,
  escapesFolder,
  tarGzEntries,
} from '../../platform/archives/bounded-archive.ts';
import { InvalidError } from '../../platform/errors.ts';
import type { PackageMetadata, StoredFile } from '../sdk/format.ts';
import { parseCratePath } from './names.ts';
import { parseToml, TomlError } from './toml.ts';

/** Bounds on reading a `.crate` (a gzipped tar): what a hostile upload or upstream can make the server do. */
export const CRATE_LIMITS: ArchiveLimits = {
  entries: 100_000,
  /** Cargo.toml and the README are read into memory: each at most this (a larger README is left out) */
  entryBytes: 2 * 1024 * 1024,
  totalBytes: 512 * 1024 * 1024,
  ratio: 100,
  ratioFloor: 64 * 1024 * 1024,
};

/** Not a `.crate` cargo would make (the message is what the client is told). */
export class CrateError extends InvalidError {}

export interface CrateContents {
  /** the `[package]` table of the crate's Cargo.toml, and the whole document */
  manifest: Record<string, unknown>;
  pkg: Record<string, unknown>;
  readme?: string;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/**
 * Reads a `.crate` within CRATE_LIMITS: every entry must be a file or folder under `{root}/`
 * (`{name}-{version}`, or the first entry's folder when `root` is not given), none a link or a path
 * that climbs out; `{root}/Cargo.toml` is parsed and the README it names (else README.md) kept.
 */
export async function readCrate(source: Readable | Buffer, root?: string): Promise<CrateContents> {
  let tomlText: string | undefined;
  const texts = new Map<string, string>();
  try {
    for await (const entry of tarGzEntries(source, CRATE_LIMITS)) {
      if (escapesFolder(entry.name))
        throw new CrateError(`the .crate holds a path outside its folder: '${entry.name}'`);
      const parts = entry.name.split('/').filter((p) => p !== '' && p !== '.');
      root ??= parts[0];
      if (parts[0] !== root) throw new CrateError(`the .crate holds '${entry.name}' outside '${root}/'`);
      if (entry.type === 'directory') continue;
      if (entry.type !== 'file')
        throw new CrateError(`the .crate holds '${entry.name}', a ${entry.type}: only files are allowed`);
      const rel = parts.slice(1).join('/');
      if (rel === 'Cargo.toml') tomlText = (await entry.read()).toString('utf8');
      else if (/^readme(\.[a-z]+)?$/i.test(parts.at(-1) ?? '') && entry.size <= CRATE_LIMITS.entryBytes)
        texts.set(rel, (await entry.read()).toString('utf8'));
    }
  } catch (err) {
    if (err instanceof ArchiveError && !archiveLimitOf(err))
      throw new CrateError(`the .crate is not a gzipped tar: ${err.message}`);
    throw err;
  }
  if (tomlText === undefined)
    throw new CrateError(`the .crate has no ${root ?? '{name}-{version}'}/Cargo.toml`);
  let manifest: Record<string, unknown>;
  try {
    manifest = parseToml(tomlText);
  } catch (err) {
    if (err instanceof TomlError)
      throw new CrateError(`the .crate's Cargo.toml cannot be read: ${err.message}`);
    throw err;
  }
  const pkg = manifest.package;
  if (!pkg || typeof pkg !== 'object' || Array.isArray(pkg))
    throw new CrateError("the .crate's Cargo.toml has no [package] table");
  const p = pkg as Record<string, unknown>;
  const named = str(p.readme);
  const readme =
    (named && texts.get(named.replace(/^\.\//, ''))) ?? texts.get('README.md') ?? texts.get('README');
  return { manifest, pkg: p, readme };
}

const DEPENDENCY_TABLES = [
  ['dependencies', 'normal'],
  ['dev-dependencies', 'dev'],
  ['build-dependencies', 'build'],
] as const;

/** The packages-index record of a version from its Cargo.toml (and README). */
export function crateMetadata(contents: CrateContents): PackageMetadata {
  const { pkg, manifest } = contents;
  const dependencies: NonNullable<PackageMetadata['dependencies']> = [];
  const tables: [unknown, string][] = DEPENDENCY_TABLES.map(([t, scope]) => [manifest[t], scope]);
  const target = manifest.target;
  if (target && typeof target === 'object')
    for (const spec of Object.values(target as Record<string, Record<string, unknown>>))
      for (const [t, scope] of DEPENDENCY_TABLES) tables.push([spec?.[t], scope]);
  for (const [table, scope] of tables) {
    if (!table || typeof table !== 'object') continue;
    for (const [key, dep] of Object.entries(table as Record<string, unknown>)) {
      const d = typeof dep === 'string' ? { version: dep } : ((dep ?? {}) as Record<string, unknown>);
      dependencies.push({ name: str(d.package) ?? key, range: str(d.version), scope });
    }
  }
  const keywords = Array.isArray(pkg.keywords)
    ? pkg.keywords.filter((k): k is string => typeof k === 'string')
    : undefined;
  const license = str(pkg.license);
  return {
    name: String(pkg.name),
    version: String(pkg.version),
    description: str(pkg.description)?.trim(),
    licenses: license ? [license] : undefined,
    keywords,
    dependencies,
    readme: contents.readme,
    leadFile: true,
  };
}

/** extractMetadata: `crates/{name}/{name}-{version}.crate` only; other files are not packages. */
export async function extractCargoMetadata(file: StoredFile): Promise<PackageMetadata | null> {
  const at = parseCratePath(file.path);
  if (!at) return null;
  let contents: CrateContents;
  try {
    contents = await readCrate(await file.open(), `${at.name}-${at.version}`);
  } catch (err) {
    throw archiveLimitOf(err) ?? err;
  }
  if (typeof contents.pkg.name !== 'string' || typeof contents.pkg.version !== 'string') return null;
  return crateMetadata(contents);
}
