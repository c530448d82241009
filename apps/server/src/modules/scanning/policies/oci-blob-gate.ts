import { and, eq, like } from 'drizzle-orm';
import type { BlobStore } from '../../../platform/blobs/index.ts';
import type { Db } from '../../../platform/db/index.ts';
import { ForbiddenError } from '../../../platform/errors.ts';
import type { ArtifactExtension } from '../../repositories/repositories.api.ts';
import { scanViolations } from './policies.schema.ts';
import type { PoliciesService } from './policies.service.ts';

/** A stored OCI blob (layer, config, manifest by digest): `{image}/_uploads/sha256__{hex}`. */
const BLOB_PATH = /^(.+)\/_uploads\/sha256__([a-f0-9]{64})$/;
/** A manifest larger than this is not read for its blobs (the registry refuses larger ones anyway). */
const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;
/** Manifests whose blob lists are remembered (content-addressed, so the same on every node). */
const CACHE_ENTRIES = 2000;

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * Issue 16 "Blocking" for OCI images: the blobs of a blocked image (`GET /v2/{name}/blobs/{digest}`,
 * its layers and config) are refused too, so a client that knows the digests cannot pull around the
 * blocked manifest. A blob is refused when a manifest of the same image that a policy blocks now
 * (blocking violations, no ignore rule in force) lists it. Cheap: nothing is read unless the image
 * has blocking violations; each blocked manifest's blob list is read once per node.
 */
export function ociBlobGate(deps: {
  db: Db;
  blobs: BlobStore;
  policies: PoliciesService;
}): ArtifactExtension {
  const listed = new Map<string, Set<string>>();

  async function blobsOf(manifestSha: string): Promise<Set<string>> {
    const hit = listed.get(manifestSha);
    if (hit) return hit;
    const digests = new Set<string>();
    try {
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of (await deps.blobs.get(manifestSha)) as AsyncIterable<Uint8Array>) {
        size += chunk.length;
        if (size > MAX_MANIFEST_BYTES) throw new Error('manifest too large');
        chunks.push(Buffer.from(chunk));
      }
      const m = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        config?: { digest?: unknown };
        layers?: { digest?: unknown }[];
        manifests?: { digest?: unknown }[];
      };
      for (const d of [m.config, ...(m.layers ?? []), ...(m.manifests ?? [])])
        if (typeof d?.digest === 'string' && d.digest.startsWith('sha256:')) digests.add(d.digest.slice(7));
    } catch {
      // An unreadable manifest lists nothing: the manifest itself stays blocked.
    }
    if (listed.size >= CACHE_ENTRIES) listed.clear();
    listed.set(manifestSha, digests);
    return digests;
  }

  return {
    id: 'scanning.oci-blobs',
    beforeDownload: async (file) => {
      const m = BLOB_PATH.exec(file.path);
      if (!m || !(await deps.policies.blocksAny())) return;
      const [, image, hex] = m;
      const manifests = await deps.db
        .selectDistinct({ path: scanViolations.path, sha256: scanViolations.sha256 })
        .from(scanViolations)
        .where(
          and(
            eq(scanViolations.repositoryId, file.repositoryId),
            eq(scanViolations.packageType, 'docker'),
            eq(scanViolations.blocking, true),
            like(scanViolations.path, `${escapeLike(image!)}/%`),
          ),
        );
      for (const manifest of manifests) {
        if (manifest.sha256 === hex || !(await blobsOf(manifest.sha256)).has(hex!)) continue;
        const reason = await deps.policies.blockedReason({
          repositoryId: file.repositoryId,
          path: manifest.path,
          sha256: manifest.sha256,
        });
        if (reason) throw new ForbiddenError(`sha256:${hex} is a layer of a blocked image: ${reason}`);
      }
    },
  };
}
