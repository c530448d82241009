import { gzipSync } from 'node:zlib';
import { pack } from 'tar-stream';
import { zipBomb } from '../../platform/archives/archive-bombs.ts';

/** A module zip of `files` (names as given, escapes included: what a hostile upload holds). */
export const moduleZip = (files: Record<string, string>) =>
  zipBomb(Object.entries(files).map(([name, content]) => ({ name, content })));

/** A module as a gzipped tar; `links` become symbolic links. */
export async function moduleTarGz(files: Record<string, string>, links: Record<string, string> = {}) {
  const p = pack();
  for (const [name, text] of Object.entries(files)) p.entry({ name, mode: 0o644 }, text);
  for (const [name, linkname] of Object.entries(links)) p.entry({ name, type: 'symlink', linkname });
  p.finalize();
  const chunks: Buffer[] = [];
  for await (const c of p) chunks.push(c as Buffer);
  return gzipSync(Buffer.concat(chunks));
}

/** A provider package: the executable `terraform-provider-{type}_v{version}` at the zip's root. */
export const providerZipOf = (type: string, version: string, platform: string) =>
  zipBomb([
    { name: `terraform-provider-${type}_v${version}`, content: `#!/bin/sh\n# ${platform}\nexit 0\n` },
  ]);
