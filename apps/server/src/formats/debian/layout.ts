import { isArchitecture, isSuiteName } from './control.ts';

/**
 * Where a Debian repository keeps what apt reads (the Debian Repository Format,
 * https://wiki.debian.org/DebianRepository/Format):
 *
 * - `.deb` files anywhere outside `dists/` (Artifactory's `pool/…` by convention), each remembering its
 *   distributions, components and architectures (`deb.*` properties) and its control paragraph;
 * - the automatic layout `dists/{dist}/Release` (+ `InRelease`, `Release.gpg` signed on read) and
 *   `dists/{dist}/{component}/binary-{arch}/Packages[.gz]`, with `by-hash/{MD5Sum|SHA1|SHA256}/{hex}`;
 * - the flat layout in `flat/`: `Packages[.gz]`, `Release`, `InRelease`, `Release.gpg` listing every
 *   .deb of the repository (`deb [signed-by=…] BASE/repository/{key} flat/`: apt reads `flat/InRelease`
 *   and downloads each Filename from the repository's root);
 * - the repository's public key at `KEY.gpg` (binary, for `signed-by`) and `KEY.asc` (armored).
 */

export const DISTS = 'dists';
export const FLAT = 'flat';
export const KEY_BINARY = 'KEY.gpg';
export const KEY_ARMORED = 'KEY.asc';
export const RELEASE_FILES = ['Release', 'InRelease', 'Release.gpg'] as const;
export type ReleaseFile = (typeof RELEASE_FILES)[number];
export const PACKAGES_FILES = ['Packages', 'Packages.gz'] as const;
export type PackagesFile = (typeof PACKAGES_FILES)[number];
export const HASH_FOLDERS = { MD5Sum: 'md5', SHA1: 'sha1', SHA256: 'sha256' } as const;
export type HashFolder = keyof typeof HASH_FOLDERS;

/** The properties a .deb carries (Artifactory's names for the first three). */
export const PROP = {
  distribution: 'deb.distribution',
  component: 'deb.component',
  architecture: 'deb.architecture',
  name: 'deb.name',
  version: 'deb.version',
  control: 'deb.control',
} as const;

/** A path apt reads from a repository, as the format answers it. */
export type IndexPath =
  /** `dist` null: the flat layout (`flat/`) */
  | { kind: 'release'; dist: string | null; file: ReleaseFile }
  | { kind: 'packages'; dist: string | null; component: string; arch: string; file: PackagesFile }
  | {
      kind: 'by-hash';
      dist: string;
      component: string;
      arch: string;
      algorithm: HashFolder;
      hash: string;
    }
  | { kind: 'key'; armored: boolean };

/** The index document a path names, or null for any other path (a .deb, a file of the user's). */
export function parseIndexPath(path: string): IndexPath | null {
  if (path === KEY_BINARY || path === KEY_ARMORED) return { kind: 'key', armored: path === KEY_ARMORED };
  const parts = path.split('/');
  if (parts.length === 2 && parts[0] === FLAT) {
    const file = parts[1]!;
    if ((RELEASE_FILES as readonly string[]).includes(file))
      return { kind: 'release', dist: null, file: file as ReleaseFile };
    if ((PACKAGES_FILES as readonly string[]).includes(file))
      return { kind: 'packages', dist: null, component: '', arch: '', file: file as PackagesFile };
    return null;
  }
  if (parts[0] !== DISTS) return null;
  const [, dist, second, third, fourth, fifth, sixth] = parts;
  if (!dist || !isSuiteName(dist)) return null;
  if (parts.length === 3 && (RELEASE_FILES as readonly string[]).includes(second!))
    return { kind: 'release', dist, file: second as ReleaseFile };
  if (!second || !isSuiteName(second) || !third?.startsWith('binary-')) return null;
  const arch = third.slice('binary-'.length);
  if (!isArchitecture(arch)) return null;
  if (parts.length === 5 && (PACKAGES_FILES as readonly string[]).includes(fourth!))
    return { kind: 'packages', dist, component: second, arch, file: fourth as PackagesFile };
  if (
    parts.length === 7 &&
    fourth === 'by-hash' &&
    fifth! in HASH_FOLDERS &&
    /^[0-9a-f]{32,128}$/.test(sixth!)
  )
    return { kind: 'by-hash', dist, component: second, arch, algorithm: fifth as HashFolder, hash: sixth! };
  return null;
}

/** The folder of one component and architecture's index, relative to `dists/{dist}/`. */
export const binaryFolder = (component: string, arch: string) => `${component}/binary-${arch}`;

/** A path under the repository root of a dist's file (`dist` null: the flat layout's). */
export const distPath = (dist: string | null, rel: string) =>
  dist === null ? `${FLAT}/${rel}` : `${DISTS}/${dist}/${rel}`;

/** Whether a path is one the format derives (never deployed by a client). */
export const isDerivedPath = (path: string) =>
  [DISTS, FLAT].some((f) => path === f || path.startsWith(`${f}/`)) || parseIndexPath(path) !== null;
