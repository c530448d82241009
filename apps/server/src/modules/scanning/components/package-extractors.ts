import type { Readable } from 'node:stream';
import { parseMavenPath } from '../../../formats/maven/layout.ts';
import type { ExtractedArtifact } from '../model.ts';
import { tarEntries, zipEntries } from './archive-readers.ts';
import { ArtifactBuilder } from './artifact-builder.ts';
import { parsePom, parsePomProperties } from './maven-pom.ts';
import { exactVersion, type NpmManifest, npmComponent, parsePackageJson } from './npm-package.ts';
import { component } from './purls.ts';
import { parsePythonMetadata } from './python-metadata.ts';
import type { ScanLimits } from './scan-limits.ts';

/**
 * What a package archive contains: an npm tarball (package.json and bundled dependencies), a Python
 * wheel or sdist (METADATA / PKG-INFO), a Maven jar (pom.properties, shaded ones too) or POM. Each
 * returns null when the archive is none of what it reads.
 */

const NPM_ROOT = /^[^/]+\/package\.json$/;
/** `package/node_modules/a/node_modules/@s/b/package.json` → `node_modules/a/node_modules/@s/b/` */
const NPM_BUNDLED = /^[^/]+\/((?:node_modules\/(?:@[^/]+\/)?[^/]+\/)+)package\.json$/;
const PKG_INFO = /^[^/]+\/PKG-INFO$/;
const WHEEL_METADATA = /^[^/]+\.dist-info\/METADATA$/;
const POM_PROPERTIES = /^META-INF\/maven\/[^/]+\/[^/]+\/pom\.properties$/;
const POM_XML = /^META-INF\/maven\/[^/]+\/[^/]+\/pom\.xml$/;

/** The folder a bundled package's own dependencies are looked for from, up to the root (Node's resolution). */
function parentDir(dir: string): string | null {
  if (dir === '') return null;
  const m = /^(.*?)node_modules\/(?:@[^/]+\/)?[^/]+\/$/.exec(dir);
  return m ? m[1]! : '';
}

interface FoundNpm {
  manifest: NpmManifest;
  location: string;
}

/** The npm packages of a tarball's package.json files (root under `''`) as one dependency graph. */
function npmArtifact(found: Map<string, FoundNpm>, maxComponents: number): ExtractedArtifact | null {
  const root = found.get('');
  if (!root) return null;
  const b = new ArtifactBuilder(npmComponent(root.manifest, root.location), maxComponents);
  const purls = new Map<string, string>();
  purls.set('', b.root.purl);
  for (const [dir, f] of found)
    if (dir !== '') purls.set(dir, b.add(npmComponent(f.manifest, f.location)).purl);
  for (const [dir, f] of found) {
    const from = purls.get(dir)!;
    for (const [dep, range] of Object.entries(f.manifest.dependencies)) {
      let resolved: string | undefined;
      for (let d: string | null = dir; d !== null && !resolved; d = parentDir(d))
        resolved = purls.get(`${d}node_modules/${dep}/`);
      if (resolved) {
        b.depend(from, resolved);
        continue;
      }
      // Declared, not bundled: a component only when the range names one version.
      const version = exactVersion(range);
      if (version)
        b.depend(from, b.add(component('npm', dep, version, { location: `${f.location} (declared)` })).purl);
    }
  }
  return b.build();
}

function pythonArtifact(bytes: Buffer, location: string, maxComponents: number): ExtractedArtifact | null {
  const meta = parsePythonMetadata(bytes);
  if (!meta) return null;
  const b = new ArtifactBuilder(
    component('pypi', meta.name, meta.version, { licenses: meta.licenses, location }),
    maxComponents,
  );
  for (const [name, version] of Object.entries(meta.pinned))
    b.depend(
      b.root.purl,
      b.add(component('pypi', name, version, { location: `${location} (Requires-Dist)` })).purl,
    );
  return b.build();
}

/** A gzip'd tar: an npm tarball (a root package.json) or else an sdist (a top-level PKG-INFO). */
export async function extractTarball(
  source: Readable,
  limits: ScanLimits,
  size?: number,
): Promise<ExtractedArtifact | null> {
  const npm = new Map<string, FoundNpm>();
  let pkgInfo: { bytes: Buffer; location: string } | undefined;
  for await (const entry of tarEntries(source, limits.package, size)) {
    if (entry.type !== 'file') continue;
    if (NPM_ROOT.test(entry.name)) {
      const manifest = parsePackageJson(await entry.read());
      if (manifest) npm.set('', { manifest, location: entry.name });
      continue;
    }
    const bundled = NPM_BUNDLED.exec(entry.name);
    if (bundled) {
      const manifest = parsePackageJson(await entry.read());
      if (manifest) npm.set(bundled[1]!, { manifest, location: entry.name });
      continue;
    }
    if (PKG_INFO.test(entry.name) && !pkgInfo) pkgInfo = { bytes: await entry.read(), location: entry.name };
  }
  if (npm.has('')) return npmArtifact(npm, limits.components);
  if (pkgInfo) return pythonArtifact(pkgInfo.bytes, pkgInfo.location, limits.components);
  return null;
}

/** A zip: a wheel (`*.dist-info/METADATA`), a jar (`META-INF/maven/…/pom.properties`) or a zipped sdist (`*\/PKG-INFO`). */
export async function extractZip(
  bytes: Buffer,
  path: string,
  limits: ScanLimits,
  siblingPom?: () => Promise<Buffer | null>,
): Promise<ExtractedArtifact | null> {
  const picked = await zipEntries(
    bytes,
    limits.package,
    (name) =>
      WHEEL_METADATA.test(name) || PKG_INFO.test(name) || POM_PROPERTIES.test(name) || POM_XML.test(name),
  );
  const wheel = [...picked.keys()].find((n) => WHEEL_METADATA.test(n));
  if (wheel) return pythonArtifact(picked.get(wheel)!, wheel, limits.components);
  const jarLike =
    /\.(jar|war|ear|aar|hpi|jpi)$/i.test(path) || [...picked.keys()].some((n) => POM_PROPERTIES.test(n));
  if (jarLike) return jarArtifact(picked, path, limits, siblingPom);
  const sdist = [...picked.keys()].find((n) => PKG_INFO.test(n));
  if (sdist) return pythonArtifact(picked.get(sdist)!, sdist, limits.components);
  return null;
}

/** The GAVs a jar's entries name (`pom.properties`, with the licences of the `pom.xml` beside each). */
export function jarComponents(picked: Map<string, Buffer>, where: string) {
  const out: {
    groupId: string;
    artifactId: string;
    version: string;
    licenses: string[];
    location: string;
  }[] = [];
  for (const [name, bytes] of picked) {
    if (!POM_PROPERTIES.test(name)) continue;
    const gav = parsePomProperties(bytes);
    if (!gav) continue;
    const pomXml = picked.get(name.replace(/pom\.properties$/, 'pom.xml'));
    const pom = pomXml ? parsePom(pomXml) : null;
    out.push({ ...gav, licenses: pom?.licenses ?? [], location: `${where}${name}` });
  }
  return out;
}

async function jarArtifact(
  picked: Map<string, Buffer>,
  path: string,
  limits: ScanLimits,
  siblingPom?: () => Promise<Buffer | null>,
): Promise<ExtractedArtifact | null> {
  const found = jarComponents(picked, '');
  const fileName = path.slice(path.lastIndexOf('/') + 1);
  const layout = parseMavenPath(path);
  // The jar's own GAV: its repository path, else the pom.properties its file name matches, else the only one.
  let own =
    (layout && found.find((f) => f.groupId === layout.groupId && f.artifactId === layout.artifactId)) ||
    found.find((f) => fileName.startsWith(`${f.artifactId}-${f.version}`)) ||
    (found.length === 1 ? found[0] : undefined);
  if (!own && layout)
    own = {
      groupId: layout.groupId,
      artifactId: layout.artifactId,
      version: layout.version,
      licenses: [],
      location: path,
    };
  if (!own) return null;
  const pomBytes = siblingPom ? await siblingPom() : null;
  const pom = pomBytes ? parsePom(pomBytes) : null;
  const licenses = own.licenses.length > 0 ? own.licenses : (pom?.licenses ?? []);
  const b = new ArtifactBuilder(
    component('maven', `${own.groupId}:${own.artifactId}`, own.version, { licenses, location: own.location }),
    limits.components,
  );
  // Shaded: other artifacts' classes inside this jar.
  for (const f of found)
    if (f !== own)
      b.depend(
        b.root.purl,
        b.add(
          component('maven', `${f.groupId}:${f.artifactId}`, f.version, {
            licenses: f.licenses,
            location: f.location,
          }),
        ).purl,
      );
  if (pom) addPomDependencies(b, pom.dependencies, `${own.artifactId}-${own.version}.pom`);
  return b.build();
}

function addPomDependencies(
  b: ArtifactBuilder,
  deps: { groupId: string; artifactId: string; version: string }[],
  location: string,
) {
  for (const d of deps)
    b.depend(
      b.root.purl,
      b.add(
        component('maven', `${d.groupId}:${d.artifactId}`, d.version, { location: `${location} (declared)` }),
      ).purl,
    );
}

/** A `.pom`: its GAV, licences and declared dependencies (direct dependencies of the root). */
export function extractPom(bytes: Buffer, path: string, limits: ScanLimits): ExtractedArtifact | null {
  const pom = parsePom(bytes);
  if (!pom) return null;
  const fileName = path.slice(path.lastIndexOf('/') + 1);
  const b = new ArtifactBuilder(
    component('maven', `${pom.groupId}:${pom.artifactId}`, pom.version, {
      licenses: pom.licenses,
      location: fileName,
    }),
    limits.components,
  );
  addPomDependencies(b, pom.dependencies, fileName);
  return b.build();
}
