import { type RetentionCandidate, type RetentionRules, SPECIAL_PACKAGE_TYPES } from '@granary/contracts';
import { antMatch } from '../access/ant-pattern.ts';
import type { FileFacts, VersionFacts } from './retention.queries.ts';

/** A candidate with the files it stands for (a folder's files too). */
export interface Unit extends RetentionCandidate {
  filePaths: string[];
}

/** What evaluation needs to read of stored bytes (OCI manifests), by sha256; null when unreadable. */
export type ReadJson = (sha256: string, size: number) => Promise<Record<string, unknown> | null>;

const DAY_MS = 86_400_000;
const SNAPSHOT_BUILD = /-(\d{8}\.\d{6})-(\d+)(?=[.-])/;
const TAG_FILE = /^(.+)\/([^/]+)\/(?:list\.)?manifest\.json$/;
const UPLOAD_FILE = /^(.+)\/_uploads\/sha256__([a-f0-9]{64})$/;
const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;

const parentOf = (path: string) => (path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '');
const below = (folder: string, path: string) => path.startsWith(`${folder}/`);
const newestFirst = (a: { createdAt: Date }, b: { createdAt: Date }) =>
  b.createdAt.getTime() - a.createdAt.getTime();

function unitOf(
  repoKey: string,
  kind: Unit['kind'],
  name: string,
  version: string,
  paths: string[],
  files: FileFacts[],
  reason: string,
): Unit {
  return {
    repoKey,
    kind,
    name,
    version,
    paths,
    files: files.length,
    bytes: files.reduce((n, f) => n + f.size, 0),
    reason,
    filePaths: files.map((f) => f.path),
  };
}

/** A keep rule names the unit: a pattern matches one of its paths or files, a file has a kept property or is referenced. */
function kept(unit: Unit, files: Map<string, FileFacts>, rules: RetentionRules): boolean {
  const paths = [...unit.paths, ...unit.filePaths];
  if (rules.keepPatterns.some((p) => paths.some((path) => antMatch(p, path)))) return true;
  for (const path of unit.filePaths) {
    const file = files.get(path);
    if (!file) continue;
    if (rules.keepReferenced && file.referenced) return true;
    for (const prop of rules.keepProperties) {
      const eq = prop.indexOf('=');
      const key = eq < 0 ? prop : prop.slice(0, eq);
      const values = file.properties[key];
      if (values && (eq < 0 || values.includes(prop.slice(eq + 1)))) return true;
    }
  }
  return false;
}

function versionUnits(
  repo: { key: string; packageType: string },
  all: FileFacts[],
  versions: VersionFacts[],
  rules: RetentionRules,
  now: number,
): Unit[] {
  const { keepLastVersions, olderThanDays, notDownloadedDays } = rules;
  if (keepLastVersions == null && olderThanDays == null && notDownloadedDays == null) return [];
  const folderLayout = (SPECIAL_PACKAGE_TYPES as readonly string[]).includes(repo.packageType);
  const byPackage = new Map<string, VersionFacts[]>();
  for (const v of versions) byPackage.set(v.name, [...(byPackage.get(v.name) ?? []), v]);
  const out: Unit[] = [];
  for (const [name, list] of byPackage) {
    list.sort(
      (a, b) => newestFirst(a, b) || b.version.localeCompare(a.version, undefined, { numeric: true }),
    );
    list.forEach((v, rank) => {
      const folder = parentOf(v.leadPath);
      const asFolder = folderLayout && folder !== '';
      const files = asFolder
        ? all.filter((f) => below(folder, f.path))
        : all.filter((f) => f.path === v.leadPath || f.path.startsWith(`${v.leadPath}.`));
      if (files.length === 0) return;
      const reasons: string[] = [];
      if (olderThanDays != null) {
        if (v.createdAt.getTime() >= now - olderThanDays * DAY_MS) return;
        reasons.push(`created more than ${olderThanDays} days ago`);
      }
      if (notDownloadedDays != null) {
        const last = Math.max(v.createdAt.getTime(), ...files.map((f) => f.lastDownloaded?.getTime() ?? 0));
        if (last >= now - notDownloadedDays * DAY_MS) return;
        reasons.push(`not downloaded for ${notDownloadedDays} days`);
      }
      if (keepLastVersions != null) {
        if (rank < keepLastVersions) return;
        reasons.push(`not among the ${keepLastVersions} newest versions`);
      }
      out.push(
        unitOf(
          repo.key,
          'version',
          name,
          v.version,
          asFolder ? [folder] : files.map((f) => f.path),
          files,
          reasons.join(', '),
        ),
      );
    });
  }
  return out;
}

function snapshotUnits(repoKey: string, all: FileFacts[], keep: number): Unit[] {
  const builds = new Map<string, Map<string, { n: number; id: string; files: FileFacts[] }>>();
  for (const f of all) {
    const folder = parentOf(f.path);
    if (!folder.endsWith('-SNAPSHOT')) continue;
    const m = SNAPSHOT_BUILD.exec(f.path.slice(folder.length + 1));
    if (!m) continue;
    const id = `${m[1]}-${m[2]}`;
    const perFolder = builds.get(folder) ?? new Map();
    builds.set(folder, perFolder);
    const build = perFolder.get(id) ?? { n: Number(m[2]), id, files: [] };
    perFolder.set(id, build);
    build.files.push(f);
  }
  const out: Unit[] = [];
  for (const [folder, perFolder] of builds) {
    const list = [...perFolder.values()].sort((a, b) => b.n - a.n || b.id.localeCompare(a.id));
    for (const build of list.slice(keep))
      out.push(
        unitOf(
          repoKey,
          'snapshot-build',
          folder,
          build.id,
          build.files.map((f) => f.path),
          build.files,
          `not among the ${keep} newest builds of the snapshot`,
        ),
      );
  }
  return out;
}

async function ociUnits(
  repoKey: string,
  all: FileFacts[],
  rules: RetentionRules,
  now: number,
  readJson: ReadJson,
): Promise<Unit[]> {
  const tags = new Map<string, { tag: string; file: FileFacts }[]>();
  for (const f of all) {
    const m = TAG_FILE.exec(f.path);
    if (!m || m[2] === '_uploads' || m[2]!.startsWith('sha256__') || m[1]!.endsWith('/_uploads')) continue;
    tags.set(m[1]!, [...(tags.get(m[1]!) ?? []), { tag: m[2]!, file: f }]);
  }
  const out: Unit[] = [];
  if (rules.ociKeepTags != null)
    for (const [image, list] of tags) {
      list.sort((a, b) => newestFirst(a.file, b.file));
      for (const { tag } of list.slice(rules.ociKeepTags)) {
        const folder = `${image}/${tag}`;
        const files = all.filter((f) => below(folder, f.path));
        out.push(
          unitOf(
            repoKey,
            'tag',
            image,
            tag,
            [folder],
            files,
            `not among the ${rules.ociKeepTags} newest tags`,
          ),
        );
      }
    }
  if (rules.ociUntaggedDays != null) {
    const tagged = new Set<string>();
    for (const [image, list] of tags)
      for (const { file } of list) {
        tagged.add(`${image}\u0000${file.sha256}`);
        const doc = file.path.endsWith('list.manifest.json') ? await readJson(file.sha256, file.size) : null;
        for (const child of (doc?.manifests as { digest?: string }[] | undefined) ?? [])
          if (typeof child.digest === 'string')
            tagged.add(`${image}\u0000${child.digest.replace(/^sha256:/, '')}`);
      }
    const before = now - rules.ociUntaggedDays * DAY_MS;
    for (const f of all) {
      const m = UPLOAD_FILE.exec(f.path);
      if (!m || f.createdAt.getTime() >= before || f.size > MAX_MANIFEST_BYTES) continue;
      if (tagged.has(`${m[1]}\u0000${m[2]}`)) continue;
      const doc = await readJson(f.sha256, f.size);
      if (doc?.schemaVersion !== 2 || !(Array.isArray(doc.layers) || Array.isArray(doc.manifests))) continue;
      out.push(
        unitOf(
          repoKey,
          'untagged',
          m[1]!,
          `sha256:${m[2]}`,
          [f.path],
          [f],
          `untagged for more than ${rules.ociUntaggedDays} days`,
        ),
      );
    }
  }
  return out;
}

/**
 * What a policy's rules would remove of one repository, minus whatever a keep rule names; a unit
 * inside a folder another unit removes is not listed twice.
 */
export async function evaluateRepository(
  repo: { key: string; packageType: string },
  files: FileFacts[],
  versions: VersionFacts[],
  rules: RetentionRules,
  now: number,
  readJson: ReadJson,
): Promise<Unit[]> {
  const byPath = new Map(files.map((f) => [f.path, f]));
  const units = versionUnits(repo, files, versions, rules, now);
  if (rules.mavenSnapshotKeep != null && ['maven', 'gradle', 'ivy'].includes(repo.packageType))
    units.push(...snapshotUnits(repo.key, files, rules.mavenSnapshotKeep));
  if (repo.packageType === 'docker') units.push(...(await ociUnits(repo.key, files, rules, now, readJson)));
  const taken = new Set<string>();
  const out: Unit[] = [];
  for (const unit of units) {
    if (kept(unit, byPath, rules)) continue;
    const fresh = unit.filePaths.filter((p) => !taken.has(p));
    if (fresh.length === 0) continue;
    for (const p of unit.filePaths) taken.add(p);
    out.push(unit);
  }
  return out;
}
