import semver from 'semver';

/**
 * Go module paths and versions as the GOPROXY protocol spells them (golang.org/x/mod/module and
 * golang.org/x/mod/semver): the case-encoding of paths and versions in URLs (`!` + lower case for each
 * upper-case letter), canonical semantic versions with `v`, pseudo-versions and `+incompatible`.
 */

/** A request path's parts: `{module}/@v/list`, `{module}/@v/{version}.{info|mod|zip}`, `{module}/@latest`. */
export type GoPath =
  | { kind: 'list'; module: string }
  | { kind: 'latest'; module: string }
  | { kind: 'file'; module: string; version: string; ext: 'info' | 'mod' | 'zip' };

export class GoPathError extends Error {}

/** `github.com/Azure/x` → `github.com/!azure/x`. */
export function escapePath(path: string): string {
  return path.replace(/[A-Z]/g, (c) => `!${c.toLowerCase()}`);
}

/** `github.com/!azure/x` → `github.com/Azure/x`; null for an invalid encoding (upper case, a lone `!`). */
export function unescapePath(escaped: string): string | null {
  if (/[A-Z]/.test(escaped)) return null;
  let out = '';
  for (let i = 0; i < escaped.length; i++) {
    const c = escaped[i]!;
    if (c !== '!') {
      out += c;
      continue;
    }
    const next = escaped[i + 1];
    if (!next || !/[a-z]/.test(next)) return null;
    out += next.toUpperCase();
    i++;
  }
  return out;
}

const ELEMENT = /^[A-Za-z0-9][A-Za-z0-9._~-]*$/;

/**
 * A module path the go command accepts (module.CheckPath, in short): slash-separated elements of
 * letters, digits and `-._~`, none empty, `.` or `..`, not starting or ending with a dot; the first
 * has a dot (a domain) and is lower case.
 */
export function checkModulePath(path: string): string | null {
  if (path.length === 0 || path.length > 1024) return 'the module path is empty or too long';
  const elements = path.split('/');
  for (const el of elements) {
    if (!el || el === '.' || el === '..') return `malformed module path "${path}": empty or dot element`;
    if (!ELEMENT.test(el) || el.endsWith('.'))
      return `malformed module path "${path}": invalid element "${el}"`;
  }
  const first = elements[0]!;
  if (!first.includes('.') || first !== first.toLowerCase() || first.startsWith('-'))
    return `malformed module path "${path}": missing dot in first path element`;
  return null;
}

const CANONICAL =
  /^v(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?(\+incompatible)?$/;

/** A canonical version as a module version must be (`v1.2.3`, `v1.2.3-pre.1`, `v2.0.0+incompatible`). */
export function isCanonicalVersion(v: string): boolean {
  return CANONICAL.test(v) && semver.valid(v.slice(1).replace(/\+incompatible$/, '')) !== null;
}

const PSEUDO =
  /^v[0-9]+\.(0\.0-|\d+\.\d+-([^+]*\.)?0\.)\d{14}-[A-Za-z0-9]+(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$/;

/** A pseudo-version (`v0.0.0-20191109021931-daa7c04131f5`, `v1.2.4-0.20191109021931-daa7c04131f5`). */
export function isPseudoVersion(v: string): boolean {
  return PSEUDO.test(v);
}

export const isIncompatible = (v: string) => v.endsWith('+incompatible');
const isPrerelease = (v: string) => v.slice(1).replace(/\+.*$/, '').includes('-');

/** Semantic order (golang.org/x/mod/semver.Compare; build suffixes such as `+incompatible` tie, then by text). */
export function compareVersions(a: string, b: string): number {
  return semver.compare(a.slice(1), b.slice(1)) || (a < b ? -1 : a > b ? 1 : 0);
}

export function sortVersions(versions: Iterable<string>): string[] {
  return [...new Set(versions)].filter(isCanonicalVersion).sort(compareVersions);
}

/**
 * The version `@latest` answers (the go command's own choice for `go get m@latest`): the highest
 * release, else the highest pre-release, else the highest pseudo-version; null when there is none.
 */
export function latestOf(versions: Iterable<string>): string | null {
  const sorted = sortVersions(versions);
  const pick = (f: (v: string) => boolean) => sorted.filter(f).at(-1);
  return (
    pick((v) => !isPseudoVersion(v) && !isPrerelease(v)) ??
    pick((v) => !isPseudoVersion(v)) ??
    sorted.at(-1) ??
    null
  );
}

/** The major-version rule (module.CheckPathMajor): `/vN` paths hold vN versions, others v0/v1 or `+incompatible`. */
export function checkMajor(modulePath: string, version: string): string | null {
  const major = Number(/^v(\d+)/.exec(version)?.[1] ?? 0);
  if (modulePath.startsWith('gopkg.in/')) return null;
  const suffix = /\/v(\d+)$/.exec(modulePath);
  if (suffix) {
    const n = Number(suffix[1]);
    if (n < 2) return `invalid module path "${modulePath}": major version suffix must be v2 or higher`;
    if (major !== n || isIncompatible(version))
      return `invalid version: should be v${n}, not v${major} (module path ${modulePath})`;
    return null;
  }
  if (major >= 2 && !isIncompatible(version))
    return `invalid version: should be v0 or v1, not v${major} (a v${major} module's path ends in /v${major}; or use +incompatible)`;
  return null;
}

/** Parses a request path inside a Go repository (escaped), or null when it is not a protocol path. */
export function parseGoPath(path: string): GoPath | null {
  const latest = /^(.+)\/@latest$/.exec(path);
  if (latest) {
    const module = unescapePath(latest[1]!);
    if (module === null) throw new GoPathError(`invalid escaped module path "${latest[1]}"`);
    return { kind: 'latest', module };
  }
  const at = path.indexOf('/@v/');
  if (at <= 0) return null;
  const escModule = path.slice(0, at);
  const rest = path.slice(at + 4);
  const module = unescapePath(escModule);
  if (module === null) throw new GoPathError(`invalid escaped module path "${escModule}"`);
  if (rest === 'list') return { kind: 'list', module };
  const file = /^(.+)\.(info|mod|zip)$/.exec(rest);
  if (!file) return null;
  const version = unescapePath(file[1]!);
  if (version === null) throw new GoPathError(`invalid escaped version "${file[1]}"`);
  return { kind: 'file', module, version, ext: file[2] as 'info' | 'mod' | 'zip' };
}

/** Where a version's files are stored: `{escaped module}/@v/{escaped version}.{ext}`. */
export const versionFile = (module: string, version: string, ext: 'info' | 'mod' | 'zip') =>
  `${escapePath(module)}/@v/${escapePath(version)}.${ext}`;

/** The folder holding a module's versions. */
export const versionsFolder = (module: string) => `${escapePath(module)}/@v`;
