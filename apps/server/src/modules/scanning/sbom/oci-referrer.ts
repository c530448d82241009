import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { MEDIA_TYPES, requireSha256 } from '../../../formats/docker/oci.ts';
import { findManifest, storeBlob, storeManifest } from '../../../formats/docker/store.ts';
import type { RepositoryHandle } from '../../../formats/sdk/format.ts';

/** The artifact type of an SBOM referrer (OCI 1.1 `artifactType`), and its layer's media type. */
export const CYCLONEDX_ARTIFACT_TYPE = 'application/vnd.cyclonedx+json';
/** OCI 1.1's empty config: the two bytes `{}`. */
const EMPTY_CONFIG = Buffer.from('{}');
const EMPTY_CONFIG_TYPE = 'application/vnd.oci.empty.v1+json';

const hexOf = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/**
 * Attaches a CycloneDX SBOM to an image as an OCI referrer (issue 16 "SBOM"): the SBOM as a blob of
 * the image, and an image manifest with `artifactType: application/vnd.cyclonedx+json`, the empty
 * config and `subject` = the image manifest's descriptor, stored by digest the way a client's push
 * is. It then lists under `GET /v2/{name}/referrers/{digest}`. Attaching the same bytes again
 * stores nothing new. Returns the referrer manifest's digest.
 */
export async function attachSbomReferrer(
  handle: RepositoryHandle,
  image: string,
  manifestDigest: string,
  cyclonedx: Buffer,
  opts: { created?: Date } = {},
): Promise<{ digest: string }> {
  requireSha256(manifestDigest);
  const subject = await findManifest(handle, image, manifestDigest);
  if (!subject) throw new Error(`${image}@${manifestDigest} is not stored in ${handle.repository.key}`);
  const sbomHex = hexOf(cyclonedx);
  await storeBlob(handle, image, sbomHex, Readable.from([cyclonedx]));
  await storeBlob(handle, image, hexOf(EMPTY_CONFIG), Readable.from([EMPTY_CONFIG]));
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: MEDIA_TYPES.ociManifest,
      artifactType: CYCLONEDX_ARTIFACT_TYPE,
      config: {
        mediaType: EMPTY_CONFIG_TYPE,
        digest: `sha256:${hexOf(EMPTY_CONFIG)}`,
        size: EMPTY_CONFIG.length,
      },
      layers: [
        {
          mediaType: CYCLONEDX_ARTIFACT_TYPE,
          digest: `sha256:${sbomHex}`,
          size: cyclonedx.length,
          annotations: { 'org.opencontainers.image.title': 'sbom.cdx.json' },
        },
      ],
      subject: { mediaType: subject.mediaType, digest: subject.digest, size: subject.bytes.length },
      annotations: {
        ...(opts.created ? { 'org.opencontainers.image.created': opts.created.toISOString() } : {}),
        'dev.granary.sbom.format': 'CycloneDX 1.6',
      },
    }),
  );
  const { digest } = await storeManifest(
    handle,
    image,
    `sha256:${hexOf(manifest)}`,
    MEDIA_TYPES.ociManifest,
    manifest,
  );
  return { digest };
}
