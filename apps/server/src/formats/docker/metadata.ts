import { buffer } from 'node:stream/consumers';
import type { PackageMetadata, StoredFile } from '../sdk/format.ts';
import { MAX_MANIFEST_BYTES, TAG_RE, UPLOADS } from './oci.ts';

const TAG_FILE = /^(.+)\/([^/]+)\/(manifest\.json|list\.manifest\.json)$/;

/**
 * The packages index: a tag's `{image}/{tag}/manifest.json` (or `list.manifest.json`) stands for the
 * image (package) at the tag (version). Blobs, and manifests stored only by digest, are no versions.
 */
export async function extractDockerMetadata(file: StoredFile): Promise<PackageMetadata | null> {
  const m = TAG_FILE.exec(file.path);
  if (!m || m[2] === UPLOADS || m[2]!.startsWith('sha256__') || !TAG_RE.test(m[2]!)) return null;
  if (file.size > MAX_MANIFEST_BYTES) return null;
  const doc = JSON.parse((await buffer(await file.open())).toString('utf8')) as {
    schemaVersion?: number;
    layers?: { size?: number }[];
    manifests?: unknown[];
    config?: { size?: number };
  };
  if (doc.schemaVersion !== 2) return null;
  if (Array.isArray(doc.manifests))
    return {
      name: m[1]!,
      version: m[2]!,
      description: `${doc.manifests.length} platform manifests`,
      leadFile: true,
    };
  // issue 22: the version's size is the image's (config and layers, as `docker images` counts it), not the
  // manifest's few hundred bytes; the console shows it, so the description only counts the layers.
  const layers = doc.layers ?? [];
  const size = (Number(doc.config?.size) || 0) + layers.reduce((s, l) => s + (Number(l.size) || 0), 0);
  const description = `${layers.length} layer${layers.length === 1 ? '' : 's'}`;
  return { name: m[1]!, version: m[2]!, description, leadFile: true, size };
}
