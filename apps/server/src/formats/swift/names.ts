import semver from 'semver';

/**
 * SE-0292's identifiers and the paths a release keeps in a repository. Scopes and names compare
 * case-insensitively, so a release's files live under the lower-cased `{scope}/{name}/{version}/`:
 * the source archive `{name}-{version}.zip`, the manifests `Package.swift` and
 * `Package@swift-{version}.swift` taken from it, and `metadata.json` (the identity as published, the
 * publisher's metadata, the time).
 */

/** SE-0292 scope: alphanumerics and single hyphens between them, at most 39 characters. */
const SCOPE = /^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$/;
/** SE-0292 name: alphanumerics, hyphens and underscores between them, at most 100 characters. */
const NAME = /^[A-Za-z0-9](?:[A-Za-z0-9]|[-_](?=[A-Za-z0-9])){0,99}$/;

export const isScope = (s: string) => SCOPE.test(s);
export const isPackageName = (s: string) => NAME.test(s);
/** A SemVer 2.0.0 version, as SE-0292 requires (no leading `v`). */
export const isVersion = (s: string) => semver.valid(s) === s;

export interface PackageRef {
  scope: string;
  name: string;
}

export const packageFolder = (p: PackageRef) => `${p.scope.toLowerCase()}/${p.name.toLowerCase()}`;
export const releaseFolder = (p: PackageRef, version: string) => `${packageFolder(p)}/${version}`;
export const archivePath = (p: PackageRef, version: string) =>
  `${releaseFolder(p, version)}/${p.name.toLowerCase()}-${version}.zip`;
export const metadataPath = (p: PackageRef, version: string) => `${releaseFolder(p, version)}/metadata.json`;
export const packageId = (p: PackageRef) => `${p.scope}.${p.name}`;

/** `Package.swift` or a version-specific `Package@swift-5.7.swift` (SwiftPM's names). */
export const MANIFEST = /^Package(?:@swift-(\d+(?:\.\d+){0,2}))?\.swift$/;

/** A stored source archive's release, from its path. */
export function parseArchivePath(path: string): (PackageRef & { version: string }) | null {
  const m = /^([^/]+)\/([^/]+)\/([^/]+)\/([^/]+)\.zip$/.exec(path);
  if (!m) return null;
  const [, scope, name, version, file] = m as unknown as string[];
  if (!isScope(scope!) || !isPackageName(name!) || !isVersion(version!) || file !== `${name}-${version}`)
    return null;
  return { scope: scope!, name: name!, version: version! };
}
