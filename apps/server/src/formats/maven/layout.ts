/**
 * The Maven 2 repository layout: `{group/as/folders}/{artifactId}/{version}/{artifactId}-{version}[-{classifier}].{extension}`,
 * unique snapshots named `{artifactId}-{base}-{yyyyMMdd.HHmmss}-{buildNumber}…` in the `{base}-SNAPSHOT` folder,
 * `maven-metadata.xml` at group, artifact and version level, and checksum files beside every file.
 */

export const METADATA_FILE = 'maven-metadata.xml';
export const CHECKSUM_ALGORITHMS = ['sha1', 'md5', 'sha256', 'sha512'] as const;
export type ChecksumAlgorithm = (typeof CHECKSUM_ALGORITHMS)[number];
export const CHECKSUM_HEX_LENGTH: Record<ChecksumAlgorithm, number> = {
  sha1: 40,
  md5: 32,
  sha256: 64,
  sha512: 128,
};

const SNAPSHOT = '-SNAPSHOT';
const TIMESTAMP = /^(\d{8}\.\d{6})-(\d+)/;

export interface MavenFile {
  groupId: string;
  artifactId: string;
  /** The version folder: `1.0` or `1.0-SNAPSHOT`. */
  version: string;
  /** The version in the file name: `1.0`, `1.0-SNAPSHOT` or `1.0-20240101.120000-3`. */
  fileVersion: string;
  classifier?: string;
  extension: string;
  snapshot: boolean;
  /** unique snapshots: `20240101.120000` and the build number */
  timestamp?: string;
  buildNumber?: number;
  /** `group/path/artifactId` */
  gaPath: string;
  /** `group/path/artifactId/version` */
  gavPath: string;
}

export const isSnapshotVersion = (version: string) => version.endsWith(SNAPSHOT);

/** A checksum path (`x.jar.sha1`): the file it stands for and the algorithm. */
export function checksumOf(path: string): { target: string; algorithm: ChecksumAlgorithm } | null {
  const dot = path.lastIndexOf('.');
  const ext = path.slice(dot + 1).toLowerCase();
  if (dot <= 0 || !(CHECKSUM_ALGORITHMS as readonly string[]).includes(ext)) return null;
  const target = path.slice(0, dot);
  if (target.endsWith('/') || target === '') return null;
  return { target, algorithm: ext as ChecksumAlgorithm };
}

export const isMetadataFile = (path: string) => (path.split('/').at(-1) ?? '') === METADATA_FILE;

/** The folder a path is in (`''` for the root). */
export const folderOf = (path: string) => path.slice(0, Math.max(0, path.lastIndexOf('/')));

/** Reads a path as a Maven artifact file; null when it does not follow the layout. */
export function parseMavenPath(path: string): MavenFile | null {
  const parts = path.split('/');
  if (parts.length < 4 || parts.some((p) => p === '' || p === '.' || p === '..')) return null;
  const name = parts.at(-1)!;
  const version = parts.at(-2)!;
  const artifactId = parts.at(-3)!;
  const groupId = parts.slice(0, -3).join('.');
  if (name === METADATA_FILE || checksumOf(name)) return null;
  const prefix = `${artifactId}-`;
  if (!name.startsWith(prefix)) return null;
  const rest = name.slice(prefix.length);
  const snapshot = isSnapshotVersion(version);
  let fileVersion: string;
  let timestamp: string | undefined;
  let buildNumber: number | undefined;
  if (rest.startsWith(version) && /^[-.]/.test(rest.slice(version.length))) fileVersion = version;
  else if (snapshot) {
    const base = version.slice(0, -SNAPSHOT.length);
    if (!rest.startsWith(`${base}-`)) return null;
    const m = TIMESTAMP.exec(rest.slice(base.length + 1));
    if (!m) return null;
    timestamp = m[1]!;
    buildNumber = Number(m[2]);
    fileVersion = `${base}-${m[0]}`;
    if (!/^[-.]/.test(rest.slice(fileVersion.length))) return null;
  } else return null;
  let tail = rest.slice(fileVersion.length);
  let classifier: string | undefined;
  if (tail.startsWith('-')) {
    const dot = tail.indexOf('.');
    if (dot < 2) return null;
    classifier = tail.slice(1, dot);
    tail = tail.slice(dot);
  }
  const extension = tail.slice(1);
  if (!tail.startsWith('.') || extension === '') return null;
  const gaPath = parts.slice(0, -2).join('/');
  return {
    groupId,
    artifactId,
    version,
    fileVersion,
    classifier,
    extension,
    snapshot,
    timestamp,
    buildNumber,
    gaPath,
    gavPath: `${gaPath}/${version}`,
  };
}

/**
 * Whether a deploy or read at `path` is a snapshot for the release/snapshot policies: a file of the
 * layout in a `-SNAPSHOT` version, or anything else below a `-SNAPSHOT` folder.
 */
export function isSnapshotPath(path: string): boolean {
  const parsed = parseMavenPath(path);
  if (parsed) return parsed.snapshot;
  return path.split('/').slice(0, -1).some(isSnapshotVersion);
}

/** `com.example` → `com/example` */
export const groupPath = (groupId: string) => groupId.replaceAll('.', '/');
