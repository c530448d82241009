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
  const description = Array.isArray(doc.manifests)
    ? `${doc.manifests.length} platform manifests`
    : `${doc.layers?.length ?? 0} layers, ${
        file.size + (doc.config?.size ?? 0) + (doc.layers ?? []).reduce((s, l) => s + (l.size ?? 0), 0)
      } bytes`;
  return { name: m[1]!, version: m[2]!, description, leadFile: true };
}
