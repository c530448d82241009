import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import tar from 'tar-stream';

const run = promisify(execFile);

/** Test support: real .deb files, built by dpkg-deb as a maintainer builds them. */
export interface DebSpec {
  name: string;
  version: string;
  arch?: string;
  depends?: string;
  license?: string;
  description?: string;
  /** files of the package: path below the root → content */
  files?: Record<string, string>;
  /** dpkg-deb's -Z (default: dpkg-deb's own, xz) */
  compression?: 'xz' | 'gzip' | 'zstd' | 'none';
}

export async function buildDeb(spec: DebSpec): Promise<Buffer> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'granary-deb-'));
  try {
    const root = path.join(dir, 'root');
    await mkdir(path.join(root, 'DEBIAN'), { recursive: true });
    const control = [
      `Package: ${spec.name}`,
      `Version: ${spec.version}`,
      `Architecture: ${spec.arch ?? 'all'}`,
      'Maintainer: Granary Tests <tests@granary.example>',
      ...(spec.depends ? [`Depends: ${spec.depends}`] : []),
      ...(spec.license ? [`License: ${spec.license}`] : []),
      `Description: ${spec.description ?? `${spec.name} for Granary's tests`}`,
      ' Built by dpkg-deb in a test.',
      '',
    ].join('\n');
    await writeFile(path.join(root, 'DEBIAN', 'control'), control);
    const files = spec.files ?? { [`usr/share/${spec.name}/version.txt`]: `${spec.version}\n` };
    for (const [p, content] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(root, p)), { recursive: true });
      await writeFile(path.join(root, p), content);
    }
    const out = path.join(dir, 'out.deb');
    const z = spec.compression ? [`-Z${spec.compression}`] : [];
    await run('dpkg-deb', [...z, '--root-owner-group', '--build', root, out]);
    return await readFile(out);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** An `ar` archive of the members given, as deb(5) lays them out (for hand-made, broken packages). */
export function arArchive(members: [name: string, data: Buffer][]): Buffer {
  const parts: Buffer[] = [Buffer.from('!<arch>\n')];
  for (const [name, data] of members) {
    const header =
      `${name}/`.padEnd(16) +
      '0'.padEnd(12) +
      '0'.padEnd(6) +
      '0'.padEnd(6) +
      '100644'.padEnd(8) +
      String(data.length).padEnd(10) +
      '`\n';
    parts.push(Buffer.from(header, 'latin1'), data);
    if (data.length % 2) parts.push(Buffer.from('\n'));
  }
  return Buffer.concat(parts);
}

/** A gzip-compressed tar of the entries given (names as written, `../` and all). */
export async function tarGz(entries: [name: string, content: Buffer][]): Promise<Buffer> {
  const pack = tar.pack();
  for (const [name, content] of entries) pack.entry({ name, size: content.length }, content);
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const c of pack) chunks.push(c as Buffer);
  return gzipSync(Buffer.concat(chunks));
}

/** A hand-made .deb: a sound control file, and the data entries given. */
export async function handMadeDeb(
  name: string,
  version: string,
  data: [string, Buffer][],
  control?: Buffer,
): Promise<Buffer> {
  const controlText = Buffer.from(
    `Package: ${name}\nVersion: ${version}\nArchitecture: all\nMaintainer: T <t@example.org>\nDescription: hand made\n`,
  );
  return arArchive([
    ['debian-binary', Buffer.from('2.0\n')],
    ['control.tar.gz', control ?? (await tarGz([['./control', controlText]]))],
    ['data.tar.gz', await tarGz(data)],
  ]);
}
