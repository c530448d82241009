import { createHash, randomBytes } from 'node:crypto';

/** Test images built the way registries see them: blobs, a config and a manifest, each with its digest. */
export const digestOf = (bytes: Buffer | string) =>
  `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

export interface TestBlob {
  bytes: Buffer;
  digest: string;
}

export const blobOf = (bytes: Buffer): TestBlob => ({ bytes, digest: digestOf(bytes) });

export interface TestImage {
  config: TestBlob;
  layers: TestBlob[];
  manifest: Buffer;
  digest: string;
  mediaType: string;
}

export function testImage(
  opts: {
    layerSizes?: number[];
    mediaType?: 'oci' | 'docker';
    subject?: { mediaType: string; digest: string; size: number };
    artifactType?: string;
    arch?: string;
  } = {},
): TestImage {
  const layers = (opts.layerSizes ?? [1024, 2048]).map((n) => blobOf(randomBytes(n)));
  const docker = opts.mediaType === 'docker';
  const config = blobOf(
    Buffer.from(
      JSON.stringify({
        architecture: opts.arch ?? 'amd64',
        os: 'linux',
        rootfs: { type: 'layers', diff_ids: layers.map((l) => l.digest) },
      }),
    ),
  );
  const mediaType = docker
    ? 'application/vnd.docker.distribution.manifest.v2+json'
    : 'application/vnd.oci.image.manifest.v1+json';
  const doc = {
    schemaVersion: 2,
    mediaType,
    ...(opts.artifactType ? { artifactType: opts.artifactType } : {}),
    config: {
      mediaType: docker
        ? 'application/vnd.docker.container.image.v1+json'
        : 'application/vnd.oci.image.config.v1+json',
      digest: config.digest,
      size: config.bytes.length,
    },
    layers: layers.map((l) => ({
      mediaType: docker
        ? 'application/vnd.docker.image.rootfs.diff.tar.gzip'
        : 'application/vnd.oci.image.layer.v1.tar+gzip',
      digest: l.digest,
      size: l.bytes.length,
    })),
    ...(opts.subject ? { subject: opts.subject } : {}),
  };
  // Pretty-printed on purpose: a registry must keep the bytes, not re-serialise them.
  const manifest = Buffer.from(JSON.stringify(doc, null, 3));
  return { config, layers, manifest, digest: digestOf(manifest), mediaType };
}

export function testIndex(images: TestImage[]): { bytes: Buffer; digest: string; mediaType: string } {
  const mediaType = 'application/vnd.oci.image.index.v1+json';
  const bytes = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType,
      manifests: images.map((m, i) => ({
        mediaType: m.mediaType,
        digest: m.digest,
        size: m.manifest.length,
        platform: { architecture: ['amd64', 'arm64', 'riscv64'][i % 3], os: 'linux' },
      })),
    }),
  );
  return { bytes, digest: digestOf(bytes), mediaType };
}

/** A layer as docker builds one: a gzipped tar holding one file of `size` random bytes; and its diff id. */
export async function tarGzLayer(size: number, name = 'data.bin'): Promise<{ gz: Buffer; diffId: string }> {
  const { pack } = await import('tar-stream');
  const { gzipSync } = await import('node:zlib');
  const { buffer } = await import('node:stream/consumers');
  const p = pack();
  const collected = buffer(p);
  p.entry({ name, size, mode: 0o644, mtime: new Date(0) }, randomBytes(size));
  p.finalize();
  const tar = await collected;
  return { gz: gzipSync(tar, { level: 1 }), diffId: digestOf(tar) };
}

/**
 * Writes an OCI image layout (what `umoci` and `skopeo copy oci:` read): blobs, `index.json` naming
 * each tag. `images` are manifests with their layer sizes; `index` makes the tag a multi-arch index.
 */
export async function writeOciLayout(
  dir: string,
  tag: string,
  platforms: { arch: string; layerSizes: number[] }[],
): Promise<{ manifests: Buffer[]; top: Buffer; topDigest: string }> {
  const { mkdir, writeFile } = await import('node:fs/promises');
  const path = await import('node:path');
  const blobs = path.join(dir, 'blobs', 'sha256');
  await mkdir(blobs, { recursive: true });
  await writeFile(path.join(dir, 'oci-layout'), JSON.stringify({ imageLayoutVersion: '1.0.0' }));
  const put = async (bytes: Buffer) => {
    const digest = digestOf(bytes);
    await writeFile(path.join(blobs, digest.slice(7)), bytes);
    return { digest, size: bytes.length };
  };
  const manifests: Buffer[] = [];
  const descriptors = [];
  for (const platform of platforms) {
    const layers = [];
    const diffIds = [];
    for (const size of platform.layerSizes) {
      const layer = await tarGzLayer(size);
      layers.push({ mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip', ...(await put(layer.gz)) });
      diffIds.push(layer.diffId);
    }
    const config = Buffer.from(
      JSON.stringify({
        architecture: platform.arch,
        os: 'linux',
        config: { Cmd: ['/bin/sh'] },
        rootfs: { type: 'layers', diff_ids: diffIds },
      }),
    );
    const manifest = Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: 'application/vnd.oci.image.manifest.v1+json',
        config: { mediaType: 'application/vnd.oci.image.config.v1+json', ...(await put(config)) },
        layers,
      }),
    );
    manifests.push(manifest);
    descriptors.push({
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      ...(await put(manifest)),
      platform: { architecture: platform.arch, os: 'linux' },
    });
  }
  let top = manifests[0]!;
  let topDescriptor: Record<string, unknown> = descriptors[0]!;
  if (platforms.length > 1) {
    top = Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: 'application/vnd.oci.image.index.v1+json',
        manifests: descriptors,
      }),
    );
    topDescriptor = { mediaType: 'application/vnd.oci.image.index.v1+json', ...(await put(top)) };
  }
  await writeFile(
    path.join(dir, 'index.json'),
    JSON.stringify({
      schemaVersion: 2,
      manifests: [
        { ...topDescriptor, platform: undefined, annotations: { 'org.opencontainers.image.ref.name': tag } },
      ],
    }),
  );
  return { manifests, top, topDigest: digestOf(top) };
}
