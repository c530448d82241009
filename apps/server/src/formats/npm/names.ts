/**
 * npm package names and where a package's files live in a repository (the layout Artifactory and
 * Verdaccio use, so tarball paths are the registry's own):
 *
 * - `{name}/-/{base}-{version}.tgz` — the tarball (`@scope/pkg/-/pkg-1.0.0.tgz`), the version's lead file;
 * - `.npm/{name}/versions/{version}.json` — what was published for the version (its manifest,
 *   tags, readme, time), written once;
 * - `.npm/{name}/events/{time}-{id}.json` — dist-tag changes and deprecations, each its own file,
 *   never rewritten: the packument is derived from these, so concurrent changes never lose one.
 * - remote repositories cache the upstream packument at `.npm/{name}/package.json`.
 */

/** The npm registry's rules for new names (validate-npm-package-name), without the legacy allowances. */
const NAME = /^(?:@([a-z0-9][a-z0-9._~-]*)\/)?([a-z0-9_][a-z0-9._~-]*)$/;
const MAX_NAME_LENGTH = 214;

export function isValidName(name: string): boolean {
  if (name.length === 0 || name.length > MAX_NAME_LENGTH) return false;
  const m = NAME.exec(name);
  if (!m) return false;
  const base = m[2]!;
  return !base.startsWith('.') && base !== 'node_modules' && base !== 'favicon.ico';
}

/** `@scope/pkg` → `pkg`; `pkg` → `pkg`. */
export function baseName(name: string): string {
  return name.slice(name.lastIndexOf('/') + 1);
}

/** The name as it goes in a registry URL: `@scope%2fpkg`. */
export function escapeName(name: string): string {
  return name.startsWith('@') ? name.replace('/', '%2f') : encodeURIComponent(name);
}

export const META_ROOT = '.npm';

export const tarballFile = (name: string, version: string) => `${baseName(name)}-${version}.tgz`;
export const tarballPath = (name: string, version: string) => `${name}/-/${tarballFile(name, version)}`;
export const metaFolder = (name: string) => `${META_ROOT}/${name}`;
export const versionsFolder = (name: string) => `${metaFolder(name)}/versions`;
export const versionRecordPath = (name: string, version: string) => `${versionsFolder(name)}/${version}.json`;
export const eventsFolder = (name: string) => `${metaFolder(name)}/events`;
export const remotePackumentPath = (name: string) => `${metaFolder(name)}/package.json`;

/**
 * What a request path inside an npm repository names. The router has decoded it once, so a scoped
 * name arrives as `@scope/pkg` (clients send `@scope%2fpkg`).
 */
export type NpmPath =
  | { kind: 'packument'; name: string; rev?: string }
  | { kind: 'version'; name: string; spec: string }
  | { kind: 'tarball'; name: string; file: string; rev?: string }
  | { kind: 'api'; rest: string }
  | { kind: 'other' };

export function parseNpmPath(raw: string): NpmPath {
  const path = raw.replace(/%2f/gi, '/').replace(/^\/+/, '');
  if (path.startsWith('-/')) return { kind: 'api', rest: path.slice(2) };
  const parts = path.split('/');
  const scoped = parts[0]?.startsWith('@');
  const nameParts = scoped ? 2 : 1;
  if (parts.length < nameParts) return { kind: 'other' };
  const name = parts.slice(0, nameParts).join('/');
  if (!isValidName(name)) return { kind: 'other' };
  const rest = parts.slice(nameParts);
  if (rest.length === 0) return { kind: 'packument', name };
  if (rest[0] === '-rev' && rest.length === 2) return { kind: 'packument', name, rev: rest[1] };
  if (rest[0] === '-' && rest.length >= 2 && rest[1]!.endsWith('.tgz')) {
    if (rest.length === 2) return { kind: 'tarball', name, file: rest[1]! };
    if (rest.length === 4 && rest[2] === '-rev')
      return { kind: 'tarball', name, file: rest[1]!, rev: rest[3] };
    return { kind: 'other' };
  }
  if (rest.length === 1 && rest[0] !== '-' && rest[0] !== '')
    return { kind: 'version', name, spec: rest[0]! };
  return { kind: 'other' };
}

/** The version a tarball file name of `name` carries (`pkg-1.0.0.tgz` → `1.0.0`), or null. */
export function versionOfTarball(name: string, file: string): string | null {
  const prefix = `${baseName(name)}-`;
  if (!file.startsWith(prefix) || !file.endsWith('.tgz')) return null;
  const version = file.slice(prefix.length, -'.tgz'.length);
  return version.length > 0 ? version : null;
}
