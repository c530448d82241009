import { readAtMost } from '../../platform/archives/bounded-archive.ts';
import type { FormatFile, RepositoryHandle, StoredFile } from '../sdk/format.ts';
import {
  buildRepodata,
  gunzipBounded,
  isPrimaryFile,
  MAX_REPODATA_BYTES,
  MAX_REPOMD_BYTES,
  parseRepodata,
  parseRepomd,
  type RepoPackage,
} from './repodata.ts';
import { type RpmPackageInfo, readRpmPackage } from './rpm-header.ts';

/**
 * A local repository's `repodata/`, regenerated from the package files it stores whenever one is
 * added or removed (never from what a client claims): one lock per repository, so two uploads never
 * write metadata that forgets the other's package. The files of the previous generation stay until
 * the next one (a client that read the old repomd.xml a moment ago still finds its primary.xml.gz).
 */

export const REPODATA = 'repodata';
export const REPOMD = `${REPODATA}/repomd.xml`;
export const REPODATA_LOCK = 'rpm-repodata';

/** Package headers already read, by file digest (a header never changes for the same bytes). */
const headerCache = new Map<string, RpmPackageInfo>();
const HEADER_CACHE_MAX = 2000;

export const isPackagePath = (path: string) =>
  path.toLowerCase().endsWith('.rpm') && !path.startsWith(`${REPODATA}/`);

async function infoOf(file: FormatFile): Promise<RpmPackageInfo> {
  const cached = headerCache.get(file.sha256);
  if (cached) return cached;
  const info = await readRpmPackage(await file.open(), file.size);
  if (headerCache.size >= HEADER_CACHE_MAX) headerCache.delete(headerCache.keys().next().value as string);
  headerCache.set(file.sha256, info);
  return info;
}

/** Repodata's entry of a stored package file. */
export function repoPackage(info: RpmPackageInfo, file: FormatFile): RepoPackage {
  return {
    ...info,
    checksum: file.sha256,
    checksumType: 'sha256',
    packageSize: file.size,
    fileTime: Math.floor(file.createdAt.getTime() / 1000),
    location: file.path,
    primaryFiles: info.files.filter((f) => isPrimaryFile(f.path)),
  };
}

/** Reads a stored repodata file whole (bounded). */
export async function readStored(file: StoredFile, max: number): Promise<Buffer> {
  return readAtMost(await file.open(), max, file.path);
}

/** The packages a repository's current repodata lists (a local or remote repository), or null when it has none. */
export async function packagesOf(
  repo: RepositoryHandle,
  read: (path: string) => Promise<FormatFile | null> = (p) => repo.get(p),
): Promise<RepoPackage[] | null> {
  const repomdFile = await read(REPOMD);
  if (!repomdFile) return null;
  const entries = parseRepomd(await readStored(repomdFile, MAX_REPOMD_BYTES));
  const load = async (type: string) => {
    const e = entries.find((d) => d.type === type);
    if (!e) return undefined;
    const f = await read(e.href);
    if (!f) return undefined;
    const bytes = await readStored(f, MAX_REPODATA_BYTES);
    return e.href.endsWith('.gz') ? gunzipBounded(bytes, e.href) : bytes;
  };
  const primary = await load('primary');
  if (!primary) return null;
  return parseRepodata(primary, await load('filelists'), await load('other'));
}

/** Regenerates a local repository's repodata from the package files it stores. */
export async function regenerateRepodata(repo: RepositoryHandle): Promise<void> {
  await repo.withLock(REPODATA_LOCK, async () => {
    const files = (await repo.listFiles('')).filter((f) => isPackagePath(f.path));
    const pkgs: RepoPackage[] = [];
    for (const file of files.sort((a, b) => a.path.localeCompare(b.path))) {
      try {
        pkgs.push(repoPackage(await infoOf(file), file));
      } catch (err) {
        // A file copied in by other means that is no package: left out of the metadata.
        repo.log.warn({ path: file.path, err: (err as Error).message }, 'rpm: not listed in repodata');
      }
    }
    const previous = await repo.stat(REPOMD);
    const keep = new Set<string>();
    if (previous) {
      try {
        for (const e of parseRepomd(await readStored(previous, MAX_REPOMD_BYTES))) keep.add(e.href);
      } catch {
        // an unreadable previous generation is simply replaced
      }
    }
    const { files: out, repomd } = buildRepodata(pkgs, Math.floor(Date.now() / 1000));
    for (const f of out) {
      keep.add(f.path);
      if ((await repo.stat(f.path))?.sha256 !== undefined) continue;
      await repo.deploy(f.path, f.bytes, { metadata: null, regenerated: true, derived: true });
    }
    await repo.deploy(REPOMD, repomd, { metadata: null, regenerated: true, derived: true });
    keep.add(REPOMD);
    for (const f of await repo.listFiles(REPODATA))
      if (!keep.has(f.path)) await repo.delete(f.path, { permanent: true, derived: true });
  });
}
