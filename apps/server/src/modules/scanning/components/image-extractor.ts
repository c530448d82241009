import type { Readable } from 'node:stream';
import { readAtMost } from '../../../platform/archives/bounded-archive.ts';
import type { Component, ExtractedArtifact } from '../model.ts';
import { tarEntries, zipEntries } from './archive-readers.ts';
import { ArtifactBuilder } from './artifact-builder.ts';
import { npmComponent, parsePackageJson } from './npm-package.ts';
import {
  type OsPackage,
  parseApkInstalled,
  parseDebianCopyright,
  parseDpkgStatus,
  parseOsRelease,
} from './os-packages.ts';
import { jarComponents } from './package-extractors.ts';
import { component, ociComponent } from './purls.ts';
import { parsePythonMetadata } from './python-metadata.ts';
import { ScanFailedError, type ScanLimits } from './scan-limits.ts';

/**
 * What an OCI image contains (issue 16 "Scanning"): the OS packages of its layers (dpkg's status and
 * `status.d/`, apk's installed database) with the distribution's release, and the language packages
 * found in them (`node_modules/*\/package.json`, `site-packages/*.dist-info/METADATA`, jars'
 * `pom.properties`). Layers are read in order, streaming; whiteouts remove what earlier layers had.
 */

export interface SiblingFile {
  size: number;
  open(): Promise<Readable>;
}

/** What one file of the image's file system says, remembered by path with the layer it came from. */
type Finding =
  | { kind: 'dpkg'; packages: OsPackage[] }
  | { kind: 'apk'; packages: OsPackage[] }
  | { kind: 'os-release'; id?: string; versionId?: string }
  | { kind: 'alpine-release'; version: string }
  | { kind: 'copyright'; pkg: string; license: string }
  | { kind: 'component'; components: Component[] };

interface Found {
  layer: number;
  where: string;
  finding: Finding;
}

const DPKG_STATUS = /^var\/lib\/dpkg\/status$/;
const DPKG_STATUS_D = /^var\/lib\/dpkg\/status\.d\/[^/]+$/;
const APK_INSTALLED = /^lib\/apk\/db\/installed$/;
const OS_RELEASE = /^(etc|usr\/lib)\/os-release$/;
const ALPINE_RELEASE = /^etc\/alpine-release$/;
const COPYRIGHT = /^usr\/share\/doc\/([^/]+)\/copyright$/;
const NODE_PACKAGE = /(?:^|\/)node_modules\/(?:@[^/]+\/)?[^/]+\/package\.json$/;
const DIST_INFO = /(?:^|\/)(?:site|dist)-packages\/[^/]+\.dist-info\/METADATA$/;
const JAR = /\.(jar|war|ear)$/i;
const POM_ENTRY = /^META-INF\/maven\/[^/]+\/[^/]+\/pom\.(properties|xml)$/;
/** Small files read whole whatever the layer limit (copyright files, package.json: a few KB each). */
const SMALL_FILE_BYTES = 1024 * 1024;

interface Manifest {
  layers?: { mediaType?: string; digest?: string; size?: number }[];
  manifests?: unknown[];
}

/** Reads one layer's interesting files into `files` (path → what it says), applying its whiteouts first. */
async function readLayer(
  index: number,
  digest: string,
  source: Readable,
  size: number,
  files: Map<string, Found>,
  limits: ScanLimits,
) {
  const short = digest.slice(0, 19);
  const remove = (prefix: string, self?: string) => {
    for (const [path, f] of files)
      if (f.layer < index && (path === self || path.startsWith(prefix))) files.delete(path);
  };
  const put = (path: string, finding: Finding) =>
    files.set(path, { layer: index, where: `layer ${short}…/${path}`, finding });
  for await (const entry of tarEntries(source, limits.layer, size)) {
    const path = entry.name.replace(/^\/+/, '').replace(/\/+$/, '');
    const base = path.slice(path.lastIndexOf('/') + 1);
    const dir = path.slice(0, path.length - base.length);
    if (base === '.wh..wh..opq') {
      remove(dir);
      continue;
    }
    if (base.startsWith('.wh.')) {
      const target = dir + base.slice(4);
      remove(`${target}/`, target);
      continue;
    }
    if (entry.type !== 'file' && entry.type !== 'contiguous-file') {
      // A later layer's directory or link over an earlier file hides that file.
      if (files.get(path)?.layer !== index) files.delete(path);
      continue;
    }
    if (DPKG_STATUS.test(path) || DPKG_STATUS_D.test(path)) {
      if (path.endsWith('.md5sums')) continue;
      put(path, { kind: 'dpkg', packages: parseDpkgStatus(await entry.read()) });
    } else if (APK_INSTALLED.test(path))
      put(path, { kind: 'apk', packages: parseApkInstalled(await entry.read()) });
    else if (OS_RELEASE.test(path)) put(path, { kind: 'os-release', ...parseOsRelease(await entry.read()) });
    else if (ALPINE_RELEASE.test(path))
      put(path, { kind: 'alpine-release', version: (await entry.read()).toString('utf8').trim() });
    else if (COPYRIGHT.test(path) && entry.size <= SMALL_FILE_BYTES) {
      const license = parseDebianCopyright(await entry.read());
      if (license) put(path, { kind: 'copyright', pkg: COPYRIGHT.exec(path)![1]!, license });
    } else if (NODE_PACKAGE.test(path) && entry.size <= SMALL_FILE_BYTES) {
      const m = parsePackageJson(await entry.read());
      if (m) put(path, { kind: 'component', components: [npmComponent(m, `layer ${short}…/${path}`)] });
    } else if (DIST_INFO.test(path) && entry.size <= SMALL_FILE_BYTES) {
      const m = parsePythonMetadata(await entry.read());
      if (m)
        put(path, {
          kind: 'component',
          components: [
            component('pypi', m.name, m.version, {
              licenses: m.licenses,
              location: `layer ${short}…/${path}`,
            }),
          ],
        });
    } else if (JAR.test(path) && entry.size > 0 && entry.size <= limits.nestedJarBytes) {
      // A jar is read for its pom.properties only within a bounded size; a broken one is passed over.
      const bytes = await entry.read();
      const picked = await zipEntries(bytes, limits.package, (n) => POM_ENTRY.test(n), 200).catch(() => null);
      const gavs = picked ? jarComponents(picked, `layer ${short}…/${path}!/`) : [];
      if (gavs.length > 0)
        put(path, {
          kind: 'component',
          components: gavs.map((g) =>
            component('maven', `${g.groupId}:${g.artifactId}`, g.version, {
              licenses: g.licenses,
              location: g.location,
            }),
          ),
        });
    }
  }
}

/** The OSV ecosystem and purl distro qualifier of the image's distribution. */
function distroOf(files: Map<string, Found>) {
  let os: { id?: string; versionId?: string } = {};
  // etc/os-release wins over usr/lib/os-release (it is usually a link to it)
  for (const p of ['usr/lib/os-release', 'etc/os-release']) {
    const f = files.get(p)?.finding;
    if (f?.kind === 'os-release') os = { ...os, ...f };
  }
  const alpine = [...files.values()].find((f) => f.finding.kind === 'alpine-release')?.finding as
    | { version: string }
    | undefined;
  return { os, alpineVersion: alpine?.version ?? (os.id === 'alpine' ? os.versionId : undefined) };
}

/**
 * An image from its tag's `manifest.json`: every layer read through `sibling` (`sha256__{hex}` in the
 * tag's folder). Root: `pkg:oci/{image}@sha256:…`.
 */
export async function extractImage(
  manifestBytes: Buffer,
  manifestDigest: string,
  image: string,
  tag: string | undefined,
  sibling: (path: string) => Promise<SiblingFile | null>,
  limits: ScanLimits,
): Promise<ExtractedArtifact | null> {
  let manifest: Manifest;
  try {
    manifest = JSON.parse(manifestBytes.toString('utf8')) as Manifest;
  } catch {
    return null;
  }
  if (!Array.isArray(manifest.layers)) return null;
  if (manifest.layers.length > limits.layers)
    throw new ScanFailedError(`the image has ${manifest.layers.length} layers (at most ${limits.layers})`, {
      limit: true,
    });
  const files = new Map<string, Found>();
  for (const [i, layer] of manifest.layers.entries()) {
    const hex = /^sha256:([a-f0-9]{64})$/.exec(layer.digest ?? '')?.[1];
    if (!hex) continue;
    if (/zstd/.test(layer.mediaType ?? ''))
      throw new ScanFailedError(`layer ${layer.digest} is zstd-compressed, which the scanner does not read`);
    const file = await sibling(`sha256__${hex}`);
    // A foreign layer (not pushed here) is not in the folder: what it holds stays unknown.
    if (!file) continue;
    await readLayer(i, `sha256:${hex}`, await file.open(), file.size, files, limits);
  }
  const { os, alpineVersion } = distroOf(files);
  const b = new ArtifactBuilder(ociComponent(image, manifestDigest, tag), limits.components);
  const copyright = new Map<string, string>();
  for (const f of files.values())
    if (f.finding.kind === 'copyright') copyright.set(f.finding.pkg, f.finding.license);
  const release = os.versionId;
  const deb = (os.id === 'ubuntu' ? 'Ubuntu' : 'Debian') as 'Debian' | 'Ubuntu';
  const debEcosystem = release ? `${deb}:${release}` : deb;
  const debDistro = release ? `${os.id === 'ubuntu' ? 'ubuntu' : 'debian'}-${release}` : undefined;
  const alpineMinor = alpineVersion ? /^(\d+\.\d+)/.exec(alpineVersion)?.[1] : undefined;
  for (const f of [...files.values()].sort((a, b2) => a.where.localeCompare(b2.where))) {
    const add = (c: Component) => b.depend(b.root.purl, b.add(c).purl);
    if (f.finding.kind === 'dpkg')
      for (const p of f.finding.packages) {
        const license = copyright.get(p.name);
        add({
          ...component('deb', p.name, p.version, {
            licenses: license ? [license] : [],
            location: f.where,
            ecosystem: debEcosystem,
            qualifiers: {
              ...(p.arch ? { arch: p.arch } : {}),
              ...(debDistro ? { distro: debDistro } : {}),
              ...(p.source ? { upstream: p.source.name } : {}),
            },
          }),
          ...(p.source ? { source: p.source } : {}),
        });
      }
    else if (f.finding.kind === 'apk')
      for (const p of f.finding.packages)
        add({
          ...component('apk', p.name, p.version, {
            licenses: p.licenses,
            location: f.where,
            ecosystem: alpineMinor ? `Alpine:v${alpineMinor}` : 'Alpine',
            qualifiers: {
              ...(p.arch ? { arch: p.arch } : {}),
              ...(alpineVersion ? { distro: `alpine-${alpineVersion}` } : {}),
              ...(p.source ? { upstream: p.source.name } : {}),
            },
          }),
          ...(p.source ? { source: p.source } : {}),
        });
    else if (f.finding.kind === 'component') for (const c of f.finding.components) add(c);
  }
  return b.build();
}

/** A manifest or config read whole, bounded. */
export const readSmall = (stream: Readable, max: number, what: string) => readAtMost(stream, max, what);
