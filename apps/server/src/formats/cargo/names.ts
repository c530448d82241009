/**
 * Cargo's names and paths (issue 23): the sparse index's file of a crate (by its lower-cased name's
 * prefix) and where a version's `.crate` is stored.
 */

/** crates.io's rule: ASCII letter first, then letters, digits, `-` and `_`, at most 64 characters. */
const CRATE_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

export const isCrateName = (name: string): boolean => CRATE_NAME.test(name);

/** The index file path of a crate, relative to the index root: `1/a`, `2/ab`, `3/a/abc`, `ab/cd/abcd…`. */
export function indexFileOf(name: string): string {
  const n = name.toLowerCase();
  if (n.length === 1) return `1/${n}`;
  if (n.length === 2) return `2/${n}`;
  if (n.length === 3) return `3/${n[0]}/${n}`;
  return `${n.slice(0, 2)}/${n.slice(2, 4)}/${n}`;
}

/** The crate name an index path names, or null when the path is not one (the reverse of `indexFileOf`). */
export function crateOfIndexPath(path: string): string | null {
  const parts = path.split('/');
  const name = parts.at(-1) ?? '';
  if (!isCrateName(name) || name !== name.toLowerCase()) return null;
  return indexFileOf(name) === path ? name : null;
}

/** Where a local repository keeps its index files (an internal path, served only as the index). */
export const INDEX_ROOT = '.cargo-index';
export const localIndexPath = (name: string) => `${INDEX_ROOT}/${indexFileOf(name)}`;

/** A version's `.crate` in the repository: `crates/{name}/{name}-{version}.crate`. */
export const crateFileOf = (name: string, version: string) => `crates/${name}/${name}-${version}.crate`;

/** `crates/{name}/{name}-{version}.crate` → name and version, or null. */
export function parseCratePath(path: string): { name: string; version: string } | null {
  const m = /^crates\/([A-Za-z][A-Za-z0-9_-]{0,63})\/([^/]+)\.crate$/.exec(path);
  if (!m) return null;
  const name = m[1]!;
  if (!m[2]!.startsWith(`${name}-`)) return null;
  const version = m[2]!.slice(name.length + 1);
  return version ? { name, version } : null;
}

/** The `dl` template of a repository's `config.json`: files where `crateFileOf` puts them. */
export const dlTemplate = (repositoryUrl: string) =>
  `${repositoryUrl}/crates/{crate}/{crate}-{version}.crate`;
