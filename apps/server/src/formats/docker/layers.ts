import { buffer } from 'node:stream/consumers';
import type { ImageLayer, RepositoryHandle, VersionDetails } from '../sdk/format.ts';
import { digestFile, MAX_MANIFEST_BYTES, TAG_MANIFEST, UPLOADS } from './oci.ts';

/** A stored JSON document of this repository (at most a manifest's size), or null when absent or unreadable. */
async function storedJson(repo: RepositoryHandle, path: string): Promise<Record<string, unknown> | null> {
  const file = await repo.stat(path);
  if (!file || file.size > MAX_MANIFEST_BYTES) return null;
  try {
    const doc: unknown = JSON.parse((await buffer(await file.open())).toString('utf8'));
    return doc && typeof doc === 'object' && !Array.isArray(doc) ? (doc as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The config blob of the tag folder `folder` (linked there), else the image's copy in `_uploads/`. */
async function storedConfig(repo: RepositoryHandle, folder: string, hex: string) {
  const image = folder.includes('/') ? folder.slice(0, folder.lastIndexOf('/')) : '';
  return (
    (await storedJson(repo, `${folder}/${digestFile(hex)}`)) ??
    (image ? await storedJson(repo, `${image}/${UPLOADS}/${digestFile(hex)}`) : null)
  );
}

/**
 * `versionDetails`: an image tag's layers (the console's Layers tab, spec 001 §7 `docker layers`), from
 * its stored manifest (`path`: the tag's manifest file or folder), each with the command of the config's
 * history entry that made it. Null when no image manifest is stored there.
 */
export async function imageVersionDetails(
  repo: RepositoryHandle,
  path: string,
): Promise<VersionDetails | null> {
  const manifestPath = /(^|\/)(list\.)?manifest\.json$/.test(path)
    ? path
    : `${path.replace(/\/$/, '')}/${TAG_MANIFEST}`;
  const manifest = (await storedJson(repo, manifestPath)) as {
    config?: { digest?: string; size?: number };
    layers?: { digest?: string; size?: number; mediaType?: string }[];
  } | null;
  if (!manifest) return null;
  const layers = Array.isArray(manifest.layers) ? manifest.layers : [];
  // Commands from the config's history, in order, skipping the entries that made no layer.
  let commands: (string | null)[] = [];
  const configDigest = manifest.config?.digest;
  if (configDigest?.startsWith('sha256:')) {
    const folder = manifestPath.includes('/') ? manifestPath.slice(0, manifestPath.lastIndexOf('/')) : '';
    const history = (await storedConfig(repo, folder, configDigest.slice(7)).catch(() => null))?.history;
    if (Array.isArray(history))
      commands = history
        .filter((h: { empty_layer?: boolean }) => !h?.empty_layer)
        .map((h: { created_by?: string }) => (typeof h?.created_by === 'string' ? h.created_by : null));
  }
  const out: ImageLayer[] = layers.map((l, index) => ({
    index,
    digest: String(l.digest ?? ''),
    size: Number(l.size ?? 0),
    mediaType: String(l.mediaType ?? ''),
    command: commands[index] ?? null,
  }));
  return {
    layers: {
      layers: out,
      totalSize: out.reduce((n, l) => n + l.size, 0) + Number(manifest.config?.size ?? 0),
      config: configDigest ? { digest: configDigest, size: Number(manifest.config?.size ?? 0) } : null,
    },
  };
}
