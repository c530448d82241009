/**
 * Python package names, versions and distribution file names (PEP 503, PEP 440, PEP 427, PEP 625).
 */

/** PEP 503 normalised project name: runs of `-`, `_`, `.` become one `-`, lower case. */
export function normalizeName(name: string): string {
  return name.replace(/[-_.]+/g, '-').toLowerCase();
}

/** A valid project name (PEP 508 / core metadata `Name`). */
export function isValidName(name: string): boolean {
  return /^([A-Z0-9]|[A-Z0-9][A-Z0-9._-]*[A-Z0-9])$/i.test(name) && name.length <= 200;
}

/** Characters a version may hold (PEP 440 public and local versions, and the legacy spellings it normalises). */
const VERSION = /^[A-Za-z0-9][A-Za-z0-9.!+_-]*$/;

export function isValidVersion(version: string): boolean {
  return VERSION.test(version) && version.length <= 100;
}

const PRE_SPELLINGS: Record<string, string> = {
  alpha: 'a',
  beta: 'b',
  c: 'rc',
  pre: 'rc',
  preview: 'rc',
  rev: 'post',
  r: 'post',
};

/**
 * A version in a form where two spellings PEP 440 calls equal compare equal for the checks made here
 * (`1.0.0-RC.1` and `1.0.0rc1`, `v1.0` and `1.0`): lower case, no leading `v`, separators around
 * pre/post/dev labels dropped, label synonyms folded. Not a full PEP 440 normaliser (no `1.0 == 1.0.0`).
 */
export function canonicalVersion(version: string): string {
  return version
    .trim()
    .toLowerCase()
    .replace(/^v/, '')
    .replace(/_/g, '-')
    .replace(
      /(?<![a-z])[-.]?(alpha|beta|preview|pre|rev|c|r)(?=[-.]?\d|$)/g,
      (_m, label: string) => PRE_SPELLINGS[label]!,
    )
    .replace(/(?<![a-z])[-.]?(a|b|rc|post|dev)[-.]?(?=\d)/g, '$1')
    .replace(/-/g, '.');
}

export type DistKind = 'wheel' | 'sdist';

export interface DistFilename {
  kind: DistKind;
  /** the name as spelled in the file name */
  name: string;
  version: string;
  /** `.whl`, `.tar.gz`, `.zip` */
  extension: string;
}

const WHEEL = /^(?<name>[^-]+)-(?<version>[^-]+)(?:-\d[^-]*)?-[^-]+-[^-]+-[^-]+\.whl$/;
const SDIST = /^(?<name>.+)-(?<version>[^-]+)\.(?<ext>tar\.gz|zip)$/;

/** Parses a wheel (`name-ver[-build]-py-abi-plat.whl`) or sdist (`name-ver.tar.gz|.zip`) file name; null otherwise. */
export function parseDistFilename(filename: string): DistFilename | null {
  if (filename.includes('/')) return null;
  const wheel = WHEEL.exec(filename);
  if (wheel?.groups) {
    const { name, version } = wheel.groups as { name: string; version: string };
    if (!isValidName(name) || !isValidVersion(version)) return null;
    return { kind: 'wheel', name, version, extension: '.whl' };
  }
  const sdist = SDIST.exec(filename);
  if (sdist?.groups) {
    const { name, version, ext } = sdist.groups as { name: string; version: string; ext: string };
    if (!isValidName(name) || !isValidVersion(version)) return null;
    return { kind: 'sdist', name, version, extension: `.${ext}` };
  }
  return null;
}

/** Where a distribution file is stored in a local repository: `packages/{normalised name}/{version}/{file}`. */
export function distPath(name: string, version: string, filename: string): string {
  return `packages/${normalizeName(name)}/${version}/${filename}`;
}

/** The folder holding every file of a project. */
export function projectFolder(name: string): string {
  return `packages/${normalizeName(name)}`;
}

/** The PEP 658 metadata file served beside a distribution file. */
export const METADATA_SUFFIX = '.metadata';
