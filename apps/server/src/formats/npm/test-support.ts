import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { pack } from 'tar-stream';
import { baseName } from './names.ts';

/** A package tarball as `npm pack` makes it: `package/package.json` (+ README.md, index.js), gzipped. */
export async function makeTarball(
  manifest: Record<string, unknown>,
  files: Record<string, string> = {},
): Promise<Buffer> {
  const p = pack();
  const entries: Record<string, string> = {
    'package/package.json': JSON.stringify(manifest, null, 2),
    'package/index.js': `module.exports = ${JSON.stringify(String(manifest.name))};\n`,
    ...Object.fromEntries(Object.entries(files).map(([k, v]) => [`package/${k}`, v])),
  };
  for (const [name, text] of Object.entries(entries)) p.entry({ name, mode: 0o644 }, text);
  p.finalize();
  const chunks: Buffer[] = [];
  for await (const c of p) chunks.push(c as Buffer);
  return gzipSync(Buffer.concat(chunks));
}

export const integrityOf = (data: Buffer) => `sha512-${createHash('sha512').update(data).digest('base64')}`;
export const shasumOf = (data: Buffer) => createHash('sha1').update(data).digest('hex');

/** The document `npm publish` sends for one version (what libnpmpublish builds). */
export function publishDocument(
  manifest: Record<string, unknown> & { name: string; version: string },
  tarball: Buffer,
  opts: { tag?: string; readme?: string } = {},
): Record<string, unknown> {
  const file = `${baseName(manifest.name)}-${manifest.version}.tgz`;
  return {
    _id: manifest.name,
    name: manifest.name,
    description: manifest.description,
    'dist-tags': { [opts.tag ?? 'latest']: manifest.version },
    versions: {
      [manifest.version]: {
        ...manifest,
        _id: `${manifest.name}@${manifest.version}`,
        dist: {
          integrity: integrityOf(tarball),
          shasum: shasumOf(tarball),
          tarball: `http://registry.invalid/${manifest.name}/-/${file}`,
        },
      },
    },
    readme: opts.readme ?? '',
    _attachments: {
      [file]: {
        content_type: 'application/octet-stream',
        data: tarball.toString('base64'),
        length: tarball.length,
      },
    },
  };
}

/** Publishes one version over HTTP as npm would (`PUT {registry}/{escaped name}`). */
export async function httpPublish(
  registry: string,
  authorization: string,
  manifest: Record<string, unknown> & { name: string; version: string },
  files: Record<string, string> = {},
): Promise<Response> {
  const tarball = await makeTarball(manifest, files);
  const url = `${registry.replace(/\/+$/, '')}/${manifest.name.replace('/', '%2f')}`;
  return fetch(url, {
    method: 'PUT',
    headers: { authorization, 'content-type': 'application/json' },
    body: JSON.stringify(publishDocument(manifest, tarball, { readme: files['README.md'] })),
  });
}
