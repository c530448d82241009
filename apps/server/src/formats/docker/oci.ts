/**
 * The OCI Distribution specification 1.1 vocabulary: media types, names, references, digests,
 * error codes, and the manifest shapes a registry has to understand to check a push.
 */

export const MEDIA_TYPES = {
  dockerManifest: 'application/vnd.docker.distribution.manifest.v2+json',
  dockerList: 'application/vnd.docker.distribution.manifest.list.v2+json',
  ociManifest: 'application/vnd.oci.image.manifest.v1+json',
  ociIndex: 'application/vnd.oci.image.index.v1+json',
} as const;

export const MANIFEST_TYPES: readonly string[] = Object.values(MEDIA_TYPES);
export const INDEX_TYPES: readonly string[] = [MEDIA_TYPES.dockerList, MEDIA_TYPES.ociIndex];

/** spec: manifests a registry accepts are bounded; 4 MiB is what the distribution registry and Docker Hub take. */
export const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;

/** spec "Pulling manifests": `<name>` components, separated by `/`. */
export const NAME_RE = /^[a-z0-9]+((\.|_|__|-+)[a-z0-9]+)*(\/[a-z0-9]+((\.|_|__|-+)[a-z0-9]+)*)*$/;
/** spec: a tag is at most 128 characters. */
export const TAG_RE = /^[a-zA-Z0-9_][a-zA-Z0-9._-]{0,127}$/;
/** Granary stores sha256 content only (the blob store addresses by sha256). */
export const DIGEST_RE = /^sha256:([a-f0-9]{64})$/;
const ANY_DIGEST_RE = /^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$/;

/** spec "Error Codes". */
export type OciCode =
  | 'BLOB_UNKNOWN'
  | 'BLOB_UPLOAD_INVALID'
  | 'BLOB_UPLOAD_UNKNOWN'
  | 'DIGEST_INVALID'
  | 'MANIFEST_BLOB_UNKNOWN'
  | 'MANIFEST_INVALID'
  | 'MANIFEST_UNKNOWN'
  | 'NAME_INVALID'
  | 'NAME_UNKNOWN'
  | 'SIZE_INVALID'
  | 'UNAUTHORIZED'
  | 'DENIED'
  | 'UNSUPPORTED'
  | 'TOOMANYREQUESTS'
  | 'UNKNOWN';

export const OCI_CODES: ReadonlySet<string> = new Set<OciCode>([
  'BLOB_UNKNOWN',
  'BLOB_UPLOAD_INVALID',
  'BLOB_UPLOAD_UNKNOWN',
  'DIGEST_INVALID',
  'MANIFEST_BLOB_UNKNOWN',
  'MANIFEST_INVALID',
  'MANIFEST_UNKNOWN',
  'NAME_INVALID',
  'NAME_UNKNOWN',
  'SIZE_INVALID',
  'UNAUTHORIZED',
  'DENIED',
  'UNSUPPORTED',
  'TOOMANYREQUESTS',
  'UNKNOWN',
]);

/**
 * An error the registry answers as `{errors: [{code, message, detail}]}`: it carries its own status
 * and OCI code, which the `/v2/` error handler renders as they are.
 */
export class OciError extends Error {
  constructor(
    readonly status: number,
    readonly code: OciCode,
    message: string,
    readonly detail?: unknown,
  ) {
    super(message);
    this.name = 'OciError';
  }
}

export interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  urls?: string[];
  annotations?: Record<string, string>;
  artifactType?: string;
  platform?: Record<string, unknown>;
}

export interface ParsedManifest {
  mediaType: string;
  isIndex: boolean;
  /** config and layers (image manifests) */
  blobs: Descriptor[];
  /** child manifests (indexes) */
  manifests: Descriptor[];
  config?: Descriptor;
  subject?: Descriptor;
  artifactType?: string;
  annotations?: Record<string, string>;
}

export function sha256Hex(digest: string): string | null {
  return DIGEST_RE.exec(digest)?.[1] ?? null;
}

/** A reference is a tag or a digest. */
export function isDigest(reference: string): boolean {
  return reference.includes(':');
}

/** A reference Granary can hold: a valid tag or a sha256 digest. */
export function isValidReference(reference: string): boolean {
  return isDigest(reference) ? DIGEST_RE.test(reference) : TAG_RE.test(reference);
}

/** A digest the client sent: malformed → DIGEST_INVALID; another algorithm → UNSUPPORTED. */
export function requireSha256(digest: string | undefined): string {
  if (!digest || !ANY_DIGEST_RE.test(digest))
    throw new OciError(400, 'DIGEST_INVALID', `'${digest ?? ''}' is not a digest`);
  const hex = sha256Hex(digest);
  if (!hex) throw new OciError(400, 'UNSUPPORTED', `Only sha256 digests are supported, not '${digest}'`);
  return hex;
}

function descriptor(value: unknown, where: string): Descriptor {
  const d = value as Descriptor;
  if (
    !d ||
    typeof d !== 'object' ||
    typeof d.mediaType !== 'string' ||
    typeof d.digest !== 'string' ||
    !ANY_DIGEST_RE.test(d.digest) ||
    typeof d.size !== 'number' ||
    !Number.isSafeInteger(d.size) ||
    d.size < 0
  )
    throw new OciError(400, 'MANIFEST_INVALID', `${where} is not a descriptor (mediaType, digest, size)`);
  return d;
}

/**
 * Checks a pushed manifest: the Content-Type is a manifest type we know (before the body is parsed),
 * the body is JSON of that shape, and a `mediaType` in the body agrees with the Content-Type.
 */
export function parseManifest(contentType: string | undefined, body: Buffer): ParsedManifest {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (!MANIFEST_TYPES.includes(type))
    throw new OciError(
      400,
      'MANIFEST_INVALID',
      `Content-Type '${type || '(none)'}' is not a manifest media type (${MANIFEST_TYPES.join(', ')})`,
    );
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(body.toString('utf8'));
  } catch {
    throw new OciError(400, 'MANIFEST_INVALID', 'The manifest is not valid JSON');
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc))
    throw new OciError(400, 'MANIFEST_INVALID', 'The manifest is not a JSON object');
  if (doc.schemaVersion !== 2) throw new OciError(400, 'MANIFEST_INVALID', 'schemaVersion must be 2');
  if (doc.mediaType !== undefined && doc.mediaType !== type)
    throw new OciError(
      400,
      'MANIFEST_INVALID',
      `The manifest's mediaType '${String(doc.mediaType)}' differs from its Content-Type '${type}'`,
    );
  // spec: an image manifest has layers, an index manifests; one claiming both is neither (issue 12 §14).
  if (doc.layers !== undefined && doc.manifests !== undefined)
    throw new OciError(400, 'MANIFEST_INVALID', 'A manifest has layers or manifests, not both');
  const isIndex = INDEX_TYPES.includes(type);
  const subject = doc.subject === undefined ? undefined : descriptor(doc.subject, 'subject');
  const artifactType = typeof doc.artifactType === 'string' ? doc.artifactType : undefined;
  const annotations = (doc.annotations ?? undefined) as Record<string, string> | undefined;
  if (isIndex) {
    if (!Array.isArray(doc.manifests)) throw new OciError(400, 'MANIFEST_INVALID', 'manifests[] is missing');
    const manifests = doc.manifests.map((m, i) => descriptor(m, `manifests[${i}]`));
    return { mediaType: type, isIndex, blobs: [], manifests, subject, artifactType, annotations };
  }
  const config = descriptor(doc.config, 'config');
  if (!Array.isArray(doc.layers)) throw new OciError(400, 'MANIFEST_INVALID', 'layers[] is missing');
  const layers = doc.layers.map((l, i) => descriptor(l, `layers[${i}]`));
  return {
    mediaType: type,
    isIndex,
    blobs: [config, ...layers],
    manifests: [],
    config,
    subject,
    artifactType: artifactType ?? config.mediaType,
    annotations,
  };
}

/** Layers a registry never holds (foreign / non-distributable, fetched from their `urls`). */
export function isForeign(d: Descriptor): boolean {
  return /foreign|nondistributable/.test(d.mediaType) && (d.urls?.length ?? 0) > 0;
}

/** The media type of stored manifest bytes (the pushed Content-Type is the body's `mediaType`, or told by shape). */
export function mediaTypeOf(body: Buffer): string {
  try {
    const doc = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
    if (typeof doc.mediaType === 'string' && MANIFEST_TYPES.includes(doc.mediaType)) return doc.mediaType;
    return Array.isArray(doc.manifests) ? MEDIA_TYPES.ociIndex : MEDIA_TYPES.ociManifest;
  } catch {
    return MEDIA_TYPES.ociManifest;
  }
}

/** Path segment Artifactory uses for a digest (`sha256__<hex>`: `:` is awkward in paths). */
export const digestFile = (hex: string) => `sha256__${hex}`;
/** Where an image's content-addressed blobs and manifests live. */
export const UPLOADS = '_uploads';
export const TAG_MANIFEST = 'manifest.json';
export const TAG_LIST_MANIFEST = 'list.manifest.json';
