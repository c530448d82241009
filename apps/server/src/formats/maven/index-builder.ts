import type { FormatFile } from '../sdk/format.ts';
import { isSnapshotVersion, parseMavenPath } from './layout.ts';
import { compareMavenVersions } from './version.ts';
import { child, children, escapeXml, parseXml, text } from './xml.ts';

/**
 * maven-metadata.xml: built from the files a repository stores (never from what a client claims),
 * read from upstreams, and merged for virtual repositories.
 */
export interface SnapshotVersion {
  classifier?: string;
  extension: string;
  value: string;
  updated: string;
}

export interface MavenMetadata {
  groupId?: string;
  artifactId?: string;
  version?: string;
  latest?: string;
  release?: string;
  versions: string[];
  snapshot?: { timestamp?: string; buildNumber?: number; localCopy?: boolean };
  lastUpdated?: string;
  snapshotVersions: SnapshotVersion[];
  plugins: { name?: string; prefix: string; artifactId: string }[];
}

/** Unique snapshot builds listed in version-level metadata, newest first (older builds stay downloadable by name). */
export const MAX_LISTED_BUILDS = 50;

/** `yyyyMMddHHmmss` in UTC, Maven's lastUpdated. */
export function mavenTimestamp(date: Date): string {
  return date.toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

const emptyMetadata = (): MavenMetadata => ({ versions: [], snapshotVersions: [], plugins: [] });

/** Reads a maven-metadata.xml document (XmlError when malformed or carrying a DOCTYPE). */
export function parseMetadata(bytes: Buffer | string): MavenMetadata {
  const root = parseXml(bytes);
  if (root.name !== 'metadata') throw new Error(`root element is <${root.name}>, not <metadata>`);
  const versioning = child(root, 'versioning');
  const snapshotEl = child(versioning, 'snapshot');
  const buildNumber = text(snapshotEl, 'buildNumber');
  return {
    groupId: text(root, 'groupId'),
    artifactId: text(root, 'artifactId'),
    version: text(root, 'version'),
    latest: text(versioning, 'latest'),
    release: text(versioning, 'release'),
    versions: children(child(versioning, 'versions'), 'version')
      .map((v) => text(v))
      .filter((v): v is string => !!v),
    snapshot: snapshotEl && {
      timestamp: text(snapshotEl, 'timestamp'),
      buildNumber: buildNumber && /^\d+$/.test(buildNumber) ? Number(buildNumber) : undefined,
      localCopy: text(snapshotEl, 'localCopy') === 'true' ? true : undefined,
    },
    lastUpdated: text(versioning, 'lastUpdated'),
    snapshotVersions: children(child(versioning, 'snapshotVersions'), 'snapshotVersion')
      .map((s) => ({
        classifier: text(s, 'classifier'),
        extension: text(s, 'extension') ?? '',
        value: text(s, 'value') ?? '',
        updated: text(s, 'updated') ?? '',
      }))
      .filter((s) => s.value && s.extension),
    plugins: children(child(root, 'plugins'), 'plugin')
      .map((p) => ({
        name: text(p, 'name'),
        prefix: text(p, 'prefix') ?? '',
        artifactId: text(p, 'artifactId') ?? '',
      }))
      .filter((p) => p.prefix && p.artifactId),
  };
}

export function serializeMetadata(m: MavenMetadata): Buffer {
  const tag = (name: string, value: string | number | undefined, indent: string) =>
    value === undefined ? '' : `${indent}<${name}>${escapeXml(String(value))}</${name}>\n`;
  let out = '<?xml version="1.0" encoding="UTF-8"?>\n<metadata modelVersion="1.1.0">\n';
  out +=
    tag('groupId', m.groupId, '  ') + tag('artifactId', m.artifactId, '  ') + tag('version', m.version, '  ');
  const hasVersioning = m.versions.length > 0 || m.snapshot || m.snapshotVersions.length > 0 || m.lastUpdated;
  if (hasVersioning) {
    out += '  <versioning>\n';
    out += tag('latest', m.latest, '    ') + tag('release', m.release, '    ');
    if (m.snapshot) {
      out += '    <snapshot>\n';
      out +=
        tag('timestamp', m.snapshot.timestamp, '      ') +
        tag('buildNumber', m.snapshot.buildNumber, '      ');
      out += m.snapshot.localCopy ? tag('localCopy', 'true', '      ') : '';
      out += '    </snapshot>\n';
    }
    if (m.versions.length > 0) {
      out += '    <versions>\n';
      for (const v of m.versions) out += tag('version', v, '      ');
      out += '    </versions>\n';
    }
    out += tag('lastUpdated', m.lastUpdated, '    ');
    if (m.snapshotVersions.length > 0) {
      out += '    <snapshotVersions>\n';
      for (const s of m.snapshotVersions) {
        out += '      <snapshotVersion>\n';
        out += tag('classifier', s.classifier, '        ') + tag('extension', s.extension, '        ');
        out += tag('value', s.value, '        ') + tag('updated', s.updated, '        ');
        out += '      </snapshotVersion>\n';
      }
      out += '    </snapshotVersions>\n';
    }
    out += '  </versioning>\n';
  }
  if (m.plugins.length > 0) {
    out += '  <plugins>\n';
    for (const p of m.plugins) {
      out += '    <plugin>\n';
      out +=
        tag('name', p.name, '      ') +
        tag('prefix', p.prefix, '      ') +
        tag('artifactId', p.artifactId, '      ');
      out += '    </plugin>\n';
    }
    out += '  </plugins>\n';
  }
  return Buffer.from(`${out}</metadata>\n`);
}

const sortVersions = (versions: Iterable<string>) => [...new Set(versions)].sort(compareMavenVersions);

function latestAndRelease(versions: string[]): { latest?: string; release?: string } {
  return { latest: versions.at(-1), release: versions.filter((v) => !isSnapshotVersion(v)).at(-1) };
}

const maxDate = (files: FormatFile[]) => new Date(Math.max(...files.map((f) => f.modifiedAt.getTime())));

/** Artifact-level metadata (`{group}/{artifactId}/maven-metadata.xml`) from the files stored below it; null when none is an artifact of it. */
export function buildArtifactMetadata(gaPath: string, files: FormatFile[]): MavenMetadata | null {
  const mine = files.flatMap((f) => {
    const p = parseMavenPath(f.path);
    return p && p.gaPath === gaPath ? [{ f, p }] : [];
  });
  if (mine.length === 0) return null;
  const versions = sortVersions(mine.map((m) => m.p.version));
  return {
    ...emptyMetadata(),
    groupId: mine[0]!.p.groupId,
    artifactId: mine[0]!.p.artifactId,
    ...latestAndRelease(versions),
    versions,
    lastUpdated: mavenTimestamp(maxDate(mine.map((m) => m.f))),
  };
}

/**
 * Version-level metadata of a snapshot (`…/{base}-SNAPSHOT/maven-metadata.xml`) from its stored files:
 * the newest unique build as `<snapshot>`, and every stored build (newest first, up to MAX_LISTED_BUILDS)
 * in `<snapshotVersions>`. Maven picks the entry with the newest `updated` per classifier and extension.
 */
export function buildSnapshotMetadata(gavPath: string, files: FormatFile[]): MavenMetadata | null {
  const mine = files.flatMap((f) => {
    const p = parseMavenPath(f.path);
    return p && p.gavPath === gavPath && p.snapshot ? [{ f, p }] : [];
  });
  if (mine.length === 0) return null;
  const first = mine[0]!.p;
  const builds = [
    ...new Map(
      mine
        .filter((m) => m.p.timestamp)
        .map((m) => [
          `${m.p.timestamp}-${m.p.buildNumber}`,
          { timestamp: m.p.timestamp!, buildNumber: m.p.buildNumber! },
        ]),
    ).values(),
  ].sort((a, b) => b.buildNumber - a.buildNumber || (a.timestamp < b.timestamp ? 1 : -1));
  const listed = new Set(builds.slice(0, MAX_LISTED_BUILDS).map((b) => `${b.timestamp}-${b.buildNumber}`));
  const entries = mine
    .filter((m) => !m.p.timestamp || listed.has(`${m.p.timestamp}-${m.p.buildNumber}`))
    .map((m) => ({
      classifier: m.p.classifier,
      extension: m.p.extension,
      value: m.p.fileVersion,
      updated: m.p.timestamp ? m.p.timestamp.replace('.', '') : mavenTimestamp(m.f.modifiedAt),
      build: m.p.buildNumber ?? -1,
    }));
  entries.sort((a, b) => (a.updated === b.updated ? b.build - a.build : a.updated < b.updated ? 1 : -1));
  const newest = builds[0];
  return {
    ...emptyMetadata(),
    groupId: first.groupId,
    artifactId: first.artifactId,
    version: first.version,
    snapshot: newest ? { timestamp: newest.timestamp, buildNumber: newest.buildNumber } : undefined,
    lastUpdated: mavenTimestamp(maxDate(mine.map((m) => m.f))),
    snapshotVersions: entries.map(({ build: _build, ...s }) => s),
  };
}

/**
 * Merges the documents of a virtual repository's members: versions united and re-sorted, latest and
 * release recomputed, the newest snapshot build, snapshot versions united (newest first), plugins united.
 */
export function mergeMetadata(docs: MavenMetadata[]): MavenMetadata | null {
  if (docs.length === 0) return null;
  if (docs.length === 1) return docs[0]!;
  const merged = emptyMetadata();
  merged.groupId = docs.find((d) => d.groupId)?.groupId;
  merged.artifactId = docs.find((d) => d.artifactId)?.artifactId;
  merged.version = docs.find((d) => d.version)?.version;
  merged.versions = sortVersions(docs.flatMap((d) => d.versions));
  Object.assign(merged, latestAndRelease(merged.versions));
  // Members may list a latest/release outside <versions> (hand-written documents): keep the highest.
  for (const d of docs)
    for (const key of ['latest', 'release'] as const) {
      const v = d[key];
      if (v && (!merged[key] || compareMavenVersions(v, merged[key]!) > 0)) merged[key] = v;
    }
  for (const d of docs) {
    const s = d.snapshot;
    const cur = merged.snapshot;
    if (
      s &&
      (!cur ||
        (s.timestamp ?? '') > (cur.timestamp ?? '') ||
        ((s.timestamp ?? '') === (cur.timestamp ?? '') && (s.buildNumber ?? 0) > (cur.buildNumber ?? 0)))
    )
      merged.snapshot = s;
    if (d.lastUpdated && (!merged.lastUpdated || d.lastUpdated > merged.lastUpdated))
      merged.lastUpdated = d.lastUpdated;
  }
  const seen = new Map<string, SnapshotVersion>();
  for (const d of docs)
    for (const s of d.snapshotVersions) {
      const key = `${s.classifier ?? ''}\u0000${s.extension}\u0000${s.value}`;
      const had = seen.get(key);
      if (!had || s.updated > had.updated) seen.set(key, s);
    }
  merged.snapshotVersions = [...seen.values()].sort((a, b) =>
    a.updated === b.updated ? compareMavenVersions(b.value, a.value) : a.updated < b.updated ? 1 : -1,
  );
  const plugins = new Map<string, MavenMetadata['plugins'][number]>();
  for (const d of docs) for (const p of d.plugins) if (!plugins.has(p.prefix)) plugins.set(p.prefix, p);
  merged.plugins = [...plugins.values()];
  return merged;
}
