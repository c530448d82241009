import type { Readable } from 'node:stream';
import type { PackageMetadata, StoredFile } from '../sdk/format.ts';
import { readBounded as readAtMost } from '../sdk/helpers.ts';
import { parseMavenPath } from './layout.ts';
import { child, children, parseXml, text, type XmlElement } from './xml.ts';

/** What the packages index and the deploy checks read from a POM. */
export interface Pom {
  groupId: string;
  artifactId: string;
  version: string;
  packaging: string;
  name?: string;
  description?: string;
  licenses: string[];
  dependencies: {
    groupId: string;
    artifactId: string;
    version?: string;
    scope?: string;
    optional?: boolean;
  }[];
  parent?: { groupId: string; artifactId: string; version: string };
}

export class PomError extends Error {}

/** POMs and metadata documents are read whole; none is anywhere near this. */
export const MAX_XML_BYTES = 8 * 1024 * 1024;

/** A document read whole, at most `max` bytes (PomError past that). */
export function readBounded(stream: Readable, max: number): Promise<Buffer> {
  return readAtMost(stream, max, () => new PomError(`The document is larger than ${max} bytes`));
}

/**
 * Reads a POM: coordinates (groupId and version inherited from `<parent>`), packaging (jar by
 * default), name, description, licences and direct dependencies, with `${…}` references to the POM's
 * own properties and coordinates resolved. Throws PomError when it is not a POM (or has a DOCTYPE).
 */
export function parsePom(bytes: Buffer | string): Pom {
  let project: XmlElement;
  try {
    project = parseXml(bytes);
  } catch (err) {
    throw new PomError(`The POM cannot be read: ${(err as Error).message}`);
  }
  if (project.name !== 'project')
    throw new PomError(`The POM's root element is <${project.name}>, not <project>`);
  const parentEl = child(project, 'parent');
  const parent = parentEl && {
    groupId: text(parentEl, 'groupId') ?? '',
    artifactId: text(parentEl, 'artifactId') ?? '',
    version: text(parentEl, 'version') ?? '',
  };
  const props = new Map<string, string>();
  for (const p of child(project, 'properties')?.children ?? [])
    if (typeof p !== 'string') props.set(p.name, text(p) ?? '');
  const raw = {
    groupId: text(project, 'groupId') ?? parent?.groupId,
    artifactId: text(project, 'artifactId'),
    version: text(project, 'version') ?? parent?.version,
  };
  for (const [k, v] of Object.entries(raw))
    if (v !== undefined) {
      props.set(`project.${k}`, v);
      props.set(`pom.${k}`, v);
      if (k === 'version') props.set('version', v);
    }
  if (parent) {
    props.set('project.parent.groupId', parent.groupId);
    props.set('project.parent.version', parent.version);
    props.set('parent.version', parent.version);
  }
  const resolve = (value: string | undefined, depth = 0): string | undefined =>
    value?.replace(/\$\{([^}]+)\}/g, (whole, key: string) => {
      const found = props.get(key);
      return found === undefined || depth > 5 ? whole : (resolve(found, depth + 1) ?? whole);
    });
  const groupId = resolve(raw.groupId);
  const artifactId = resolve(raw.artifactId);
  const version = resolve(raw.version);
  if (!groupId) throw new PomError('The POM has no groupId (and no parent to inherit one from)');
  if (!artifactId) throw new PomError('The POM has no artifactId');
  if (!version) throw new PomError('The POM has no version (and no parent to inherit one from)');
  const licenses = children(child(project, 'licenses'), 'license')
    .map((l) => resolve(text(l, 'name')) ?? resolve(text(l, 'url')))
    .filter((l): l is string => !!l);
  const dependencies = children(child(project, 'dependencies'), 'dependency').map((d) => ({
    groupId: resolve(text(d, 'groupId')) ?? '',
    artifactId: resolve(text(d, 'artifactId')) ?? '',
    version: resolve(text(d, 'version')),
    scope: text(d, 'scope'),
    optional: text(d, 'optional') === 'true' ? true : undefined,
  }));
  return {
    groupId,
    artifactId,
    version,
    packaging: resolve(text(project, 'packaging')) ?? 'jar',
    name: resolve(text(project, 'name')),
    description: resolve(text(project, 'description'))?.replace(/\s+/g, ' '),
    licenses,
    dependencies: dependencies.filter((d) => d.groupId && d.artifactId),
    parent,
  };
}

/** The packages index entry of a POM: package `groupId:artifactId`, the POM standing for the version. */
export function pomPackageMetadata(pom: Pom): PackageMetadata {
  return {
    name: `${pom.groupId}:${pom.artifactId}`,
    version: pom.version,
    description: pom.description ?? pom.name,
    licenses: pom.licenses,
    keywords: [pom.packaging],
    dependencies: pom.dependencies.map((d) => ({
      name: `${d.groupId}:${d.artifactId}`,
      ...(d.version ? { range: d.version } : {}),
      scope: d.scope ?? 'compile',
    })),
    leadFile: true,
  };
}

/** extractMetadata: POMs of the layout are indexed; every other file (jars, checksums, metadata) is not. */
export async function extractMavenMetadata(file: StoredFile): Promise<PackageMetadata | null> {
  const parsed = parseMavenPath(file.path);
  if (parsed?.extension !== 'pom' || parsed.classifier) return null;
  if (file.size > MAX_XML_BYTES) return null;
  return pomPackageMetadata(parsePom(await readBounded(await file.open(), MAX_XML_BYTES)));
}
