import { createHash } from 'node:crypto';
import type { PathsChange, RepositoryHandle } from '../sdk/format.ts';
import {
  buildArtifactMetadata,
  buildSnapshotMetadata,
  type MavenMetadata,
  parseMetadata,
  serializeMetadata,
} from './index-builder.ts';
import {
  checksumOf,
  folderOf,
  isMetadataFile,
  isSnapshotVersion,
  METADATA_FILE,
  parseMavenPath,
} from './layout.ts';
import { MAX_XML_BYTES, readBounded } from './metadata.ts';

/**
 * maven-metadata.xml is never trusted from a client: it is regenerated from the stored files after
 * every deploy (`deploy.ts`) and after every change the core made (`afterChange`).
 */

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** Stores a regenerated document unless the stored one has the same bytes. */
async function storeDocument(target: RepositoryHandle, path: string, doc: MavenMetadata): Promise<void> {
  const bytes = serializeMetadata(doc);
  const existing = await target.stat(path);
  if (existing?.sha256 === sha256(bytes)) return;
  await target.deploy(path, bytes, { regenerated: true, metadata: null });
}

/** The plugins of a stored group-level document at `path` (kept when the document is regenerated). */
async function storedPlugins(target: RepositoryHandle, path: string): Promise<MavenMetadata['plugins']> {
  const file = await target.stat(path);
  if (!file) return [];
  try {
    return parseMetadata(await readBounded(await file.open(), MAX_XML_BYTES)).plugins;
  } catch {
    return [];
  }
}

/**
 * Regenerates maven-metadata.xml of an artifact (and of its snapshot versions `gavPaths`) from the
 * files stored under it, holding the artifact's lock: each regeneration reads every stored build, so
 * concurrent deploys never lose one. A listing that changed while writing (another node) is read again.
 * `prune` (after a delete or move) removes documents that describe nothing any more.
 */
export async function regenerate(
  target: RepositoryHandle,
  gaPath: string,
  gavPaths: string[] = [],
  opts: { plugins?: MavenMetadata['plugins']; prune?: boolean } = {},
) {
  const gaMetaPath = `${gaPath}/${METADATA_FILE}`;
  await target.withLock(`maven-metadata:${gaPath}`, async () => {
    let signature: string | null = null;
    for (let attempt = 0; attempt < 3; attempt++) {
      const files = await target.listFiles(gaPath);
      const seen = files
        .filter((f) => !isMetadataFile(f.path))
        .map((f) => `${f.path}\u0000${f.sha256}`)
        .join('\n');
      if (seen === signature) return;
      signature = seen;
      const artifact = buildArtifactMetadata(gaPath, files);
      // Group-level plugin prefixes are kept; a new upload's entry wins over a stored one.
      const plugins = [...(await storedPlugins(target, gaMetaPath)), ...(opts.plugins ?? [])];
      if (artifact || plugins.length > 0) {
        const doc = artifact ?? { versions: [], snapshotVersions: [], plugins: [] };
        doc.plugins = [...new Map(plugins.map((p) => [p.prefix, p])).values()];
        await storeDocument(target, gaMetaPath, doc);
      } else if (opts.prune && (await target.stat(gaMetaPath)))
        await target.delete(gaMetaPath, { permanent: true });
      for (const gavPath of gavPaths) {
        const gavMetaPath = `${gavPath}/${METADATA_FILE}`;
        const version = buildSnapshotMetadata(gavPath, files);
        if (version) await storeDocument(target, gavMetaPath, version);
        else if (opts.prune && (await target.stat(gavMetaPath)))
          await target.delete(gavMetaPath, { permanent: true });
      }
    }
  });
}

/** The artifact (and snapshot version) a folder's maven-metadata.xml describes. */
export function metadataOwner(folder: string): { gaPath: string; gavPath?: string } {
  const name = folder.split('/').at(-1) ?? '';
  return isSnapshotVersion(name) ? { gaPath: folderOf(folder), gavPath: folder } : { gaPath: folder };
}
/**
 * The documents changes at `paths` (files or folders deleted, files stored) may have made wrong, as
 * artifact → its snapshot versions. A file of the layout names its artifact (and snapshot version); a
 * metadata file names the artifact (or version) it describes; a folder names the document of the
 * folder holding it when one is stored (a version folder's artifact, an artifact folder's group) —
 * whatever was inside a deleted folder went with it.
 */
async function affectedDocuments(ctx: RepositoryHandle, paths: string[]): Promise<Map<string, Set<string>>> {
  const owners = new Map<string, Set<string>>();
  const add = (gaPath: string, gavPath?: string) => {
    if (!gaPath) return;
    const gavs = owners.get(gaPath) ?? new Set<string>();
    owners.set(gaPath, gavs);
    if (gavPath) gavs.add(gavPath);
  };
  const folders = new Set<string>();
  for (const raw of paths) {
    const path = checksumOf(raw)?.target ?? raw.replace(/\/+$/, '');
    const parsed = parseMavenPath(path);
    if (parsed) add(parsed.gaPath, parsed.snapshot ? parsed.gavPath : undefined);
    else if (isMetadataFile(path)) {
      const owner = metadataOwner(folderOf(path));
      add(owner.gaPath, owner.gavPath);
    } else folders.add(folderOf(path));
  }
  for (const folder of folders) {
    if (!folder) continue;
    const owner = metadataOwner(folder);
    // Only stored documents are rewritten: deleting a folder never lists a whole group for nothing.
    if (owners.has(owner.gaPath) || (await ctx.stat(`${folder}/${METADATA_FILE}`)))
      add(owner.gaPath, owner.gavPath);
  }
  return owners;
}

/**
 * `afterChange`: files deleted (every DELETE, which the core performs), copied or moved (tree browser,
 * `/api/copy`, `/api/move`): the metadata of every artifact touched is regenerated from what is stored
 * now, like Artifactory's metadata recalculation — the versions and snapshot builds still present;
 * documents of an artifact left with none are removed. A remote's cache keeps its upstream's documents.
 */
export async function afterChange(ctx: RepositoryHandle, change: PathsChange): Promise<void> {
  if (ctx.repository.rclass !== 'local') return;
  const paths = [...(change.deleted ?? []), ...(change.added ?? [])];
  for (const [gaPath, gavPaths] of await affectedDocuments(ctx, paths))
    await regenerate(ctx, gaPath, [...gavPaths], { prune: true });
}
