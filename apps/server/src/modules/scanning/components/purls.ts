import { PackageURL } from 'packageurl-js';
import type { Component, Ecosystem } from '../model.ts';

/**
 * Package URLs (packageurl-js) of each ecosystem a scan finds, and the Component built around one:
 * the purl is a component's identity everywhere (dependencies, findings, SBOMs).
 */

export type PurlType =
  | 'npm'
  | 'pypi'
  | 'maven'
  | 'deb'
  | 'apk'
  | 'golang'
  | 'cargo'
  | 'gem'
  | 'nuget'
  | 'oci';

/** The purl of a package of `type`; `name` as the ecosystem spells it (npm `@scope/x`, Maven `g:a`, Go `module/path`). */
export function purlOf(
  type: PurlType,
  name: string,
  version: string,
  qualifiers?: Record<string, string>,
): string {
  let namespace: string | undefined;
  let local = name;
  if (type === 'npm' && name.startsWith('@') && name.includes('/')) {
    namespace = name.slice(0, name.indexOf('/'));
    local = name.slice(name.indexOf('/') + 1);
  } else if (type === 'maven' && name.includes(':')) {
    namespace = name.slice(0, name.indexOf(':'));
    local = name.slice(name.indexOf(':') + 1);
  } else if (type === 'golang' && name.includes('/')) {
    namespace = name.slice(0, name.lastIndexOf('/'));
    local = name.slice(name.lastIndexOf('/') + 1);
  } else if (type === 'deb') namespace = qualifiers?.distro?.startsWith('ubuntu') ? 'ubuntu' : 'debian';
  else if (type === 'apk') namespace = 'alpine';
  const q = qualifiers && Object.keys(qualifiers).length > 0 ? qualifiers : undefined;
  return new PackageURL(type, namespace, local, version, q, undefined).toString();
}

/** The OSV ecosystem of a purl type (`Debian:12` style releases are added by the caller). */
export const ECOSYSTEM_OF: Record<PurlType, Ecosystem> = {
  npm: 'npm',
  pypi: 'PyPI',
  maven: 'Maven',
  deb: 'Debian',
  apk: 'Alpine',
  golang: 'Go',
  cargo: 'crates.io',
  gem: 'RubyGems',
  nuget: 'NuGet',
  oci: 'OCI',
};

/** A component of `type`. `ecosystem` overrides the type's (e.g. `Debian:12`). */
export function component(
  type: PurlType,
  name: string,
  version: string,
  opts: {
    licenses?: string[];
    location?: string;
    qualifiers?: Record<string, string>;
    ecosystem?: Ecosystem;
  } = {},
): Component {
  return {
    purl: purlOf(type, name, version, opts.qualifiers),
    ecosystem: opts.ecosystem ?? ECOSYSTEM_OF[type],
    name,
    version,
    licenses: opts.licenses ?? [],
    ...(opts.location ? { location: opts.location } : {}),
  };
}

/** `pkg:oci/{name}@sha256:…` of an image manifest (`repository_url` keeps the image's full path). */
export function ociComponent(image: string, digest: string, tag?: string): Component {
  const last = image.slice(image.lastIndexOf('/') + 1).toLowerCase();
  const qualifiers: Record<string, string> = {};
  if (last !== image) qualifiers.repository_url = image;
  if (tag) qualifiers.tag = tag;
  return {
    purl: purlOf('oci', last, digest, qualifiers),
    ecosystem: 'OCI',
    name: image,
    version: digest,
    licenses: [],
  };
}
