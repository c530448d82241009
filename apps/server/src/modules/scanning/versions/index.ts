import pep440 from '@renovatebot/pep440';
import semver from 'semver';
import { compareApk } from './apk.ts';
import { compareDpkg } from './dpkg.ts';
import { compareMaven } from './maven.ts';
import { compareNatural, sign } from './natural.ts';
import { compareNuGet } from './nuget.ts';
import { compareRubyGems } from './rubygems.ts';

/**
 * Each OSV ecosystem's version order (issue 16 "Advisory database"): semver for npm, Go and
 * crates.io, PEP 440 for PyPI, and Maven's, dpkg's, apk's, RubyGems' and NuGet's own orders. An
 * ecosystem name may carry a release (`Debian:12`, `Alpine:v3.18`): the order is the base's.
 */
export type VersionComparator = (a: string, b: string) => number;

/** `Debian:12` → `Debian`. */
export function baseEcosystem(ecosystem: string): string {
  const colon = ecosystem.indexOf(':');
  return colon === -1 ? ecosystem : ecosystem.slice(0, colon);
}

const semverCache = new Map<string, semver.SemVer | null>();
function parseSemver(v: string): semver.SemVer | null {
  let parsed = semverCache.get(v);
  if (parsed === undefined) {
    const s = v.trim().replace(/^[vV](?=\d)/, '');
    parsed = semver.parse(s, { loose: true }) ?? semver.parse(padSemver(s), { loose: true });
    if (semverCache.size > 50_000) semverCache.clear();
    semverCache.set(v, parsed);
  }
  return parsed;
}

/** `1.2` → `1.2.0`, `1` → `1.0.0`, keeping a pre-release or build suffix. */
function padSemver(v: string): string {
  const m = /^(\d+)(?:\.(\d+))?([-+].*)?$/.exec(v);
  return m ? `${m[1]}.${m[2] ?? 0}.0${m[3] ?? ''}` : v;
}

/** semver's order (npm, Go with its `v`, crates.io); a version semver cannot read falls back to the natural order. */
export function compareSemver(a: string, b: string): number {
  const x = parseSemver(a);
  const y = parseSemver(b);
  if (x && y) return x.compare(y);
  if (x && !y) return compareNatural(x.version, b);
  if (!x && y) return compareNatural(a, y.version);
  return compareNatural(a, b);
}

/** PEP 440 (PyPI); a version that is not PEP 440 sorts before every valid one (as pip's legacy versions did), naturally among themselves. */
export function comparePep440(a: string, b: string): number {
  const va = pep440.valid(a) !== null;
  const vb = pep440.valid(b) !== null;
  if (va && vb) return sign(pep440.compare(a, b));
  if (va !== vb) return va ? 1 : -1;
  return compareNatural(a, b);
}

const COMPARATORS: Record<string, VersionComparator> = {
  npm: compareSemver,
  Go: compareSemver,
  'crates.io': compareSemver,
  Hex: compareSemver,
  Pub: compareSemver,
  PyPI: comparePep440,
  Maven: compareMaven,
  Debian: compareDpkg,
  Ubuntu: compareDpkg,
  Alpine: compareApk,
  RubyGems: compareRubyGems,
  NuGet: compareNuGet,
};

/** The ecosystem's comparator, or undefined when Granary has none (its advisories are stored, not matched by range). */
export function comparatorFor(ecosystem: string): VersionComparator | undefined {
  return COMPARATORS[baseEcosystem(ecosystem)];
}

/** Compares two versions in the ecosystem's order (-1, 0, 1); an ecosystem without a comparator uses the natural order. */
export function compareVersions(ecosystem: string, a: string, b: string): number {
  return sign((comparatorFor(ecosystem) ?? compareNatural)(a, b));
}
