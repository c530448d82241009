import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { gzipSync } from 'node:zlib';
import tar from 'tar-stream';
import yazl from 'yazl';
import type { ExtractInput } from './extract-artifact.ts';

/**
 * Test support: real archives built by the tests (npm tarballs, wheels, jars, image layers) and
 * stored files to hand to `extractArtifact`.
 */

export type TarFile = {
  name: string;
  content?: string | Buffer;
  type?: 'file' | 'directory' | 'symlink';
  linkname?: string;
};

/** A tar of `files` (gzip'd unless `gzip: false`). */
export async function tarOf(files: TarFile[], opts: { gzip?: boolean } = {}): Promise<Buffer> {
  const pack = tar.pack();
  const out = buffer(pack);
  for (const f of files) {
    if (f.type === 'directory') pack.entry({ name: f.name, type: 'directory', mode: 0o755 });
    else if (f.type === 'symlink') pack.entry({ name: f.name, type: 'symlink', linkname: f.linkname ?? '' });
    else pack.entry({ name: f.name, mode: 0o644, mtime: new Date(0) }, Buffer.from(f.content ?? ''));
  }
  pack.finalize();
  const bytes = await out;
  return opts.gzip === false ? bytes : gzipSync(bytes);
}

/** A zip (deflated) of `files`. */
export async function zipOf(files: { name: string; content: string | Buffer }[]): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const f of files) zip.addBuffer(Buffer.from(f.content), f.name, { mtime: new Date(0) });
  zip.end();
  return buffer(zip.outputStream);
}

export const sha256Hex = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** A stored file of `bytes` at `path`; `siblings` are the files beside it by name. */
export function storedFile(
  path: string,
  bytes: Buffer | Readable,
  packageType: string,
  siblings: Record<string, Buffer | (() => Readable)> = {},
): ExtractInput {
  const open = (b: Buffer | (() => Readable) | Readable) =>
    Buffer.isBuffer(b) ? Readable.from([b]) : typeof b === 'function' ? b() : b;
  return {
    path,
    size: Buffer.isBuffer(bytes) ? bytes.length : 0,
    packageType,
    open: async () => open(bytes),
    sibling: async (name) => {
      const s = siblings[name];
      if (!s) return null;
      return { size: Buffer.isBuffer(s) ? s.length : 0, open: async () => open(s) };
    },
  };
}

/** An image tag's `manifest.json` and its layer files (`sha256__{hex}`) from layer bytes. */
export function imageOf(layers: Buffer[]): {
  manifest: Buffer;
  digest: string;
  siblings: Record<string, Buffer>;
} {
  const config = Buffer.from(
    JSON.stringify({ architecture: 'amd64', os: 'linux', rootfs: { type: 'layers' } }),
  );
  const siblings: Record<string, Buffer> = { [`sha256__${sha256Hex(config)}`]: config };
  for (const l of layers) siblings[`sha256__${sha256Hex(l)}`] = l;
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      config: {
        mediaType: 'application/vnd.oci.image.config.v1+json',
        digest: `sha256:${sha256Hex(config)}`,
        size: config.length,
      },
      layers: layers.map((l) => ({
        mediaType:
          l[0] === 0x1f
            ? 'application/vnd.oci.image.layer.v1.tar+gzip'
            : 'application/vnd.oci.image.layer.v1.tar',
        digest: `sha256:${sha256Hex(l)}`,
        size: l.length,
      })),
    }),
  );
  return { manifest, digest: `sha256:${sha256Hex(manifest)}`, siblings };
}

export const DPKG_STATUS = `Package: libssl3
Status: install ok installed
Architecture: amd64
Source: openssl
Version: 3.0.11-1~deb12u2
Description: Secure Sockets Layer toolkit
 multi-line description

Package: bash
Status: install ok installed
Architecture: amd64
Version: 5.2.15-2+b2

Package: removed-thing
Status: deinstall ok config-files
Architecture: amd64
Version: 1.0-1
`;

export const APK_INSTALLED = `C:Q1abc=
P:musl
V:1.2.4-r2
A:x86_64
L:MIT
o:musl

C:Q1def=
P:libcrypto3
V:3.1.4-r0
A:x86_64
L:Apache-2.0
o:openssl

P:busybox
V:1.36.1-r5
A:x86_64
L:GPL-2.0-only
o:busybox
`;
