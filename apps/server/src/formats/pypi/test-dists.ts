import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import tar from 'tar-stream';
import yazl from 'yazl';

/**
 * Test support: wheels and sdists built the way the packaging tools lay them out (a wheel is a zip with
 * `{name}-{version}.dist-info/METADATA`, `WHEEL` and `RECORD`; an sdist a gzip'd tar with
 * `{name}-{version}/PKG-INFO`), with knobs to break them.
 */

export interface DistSpec {
  name: string;
  version: string;
  summary?: string;
  requires?: string[];
  requiresPython?: string;
  /** METADATA's Name, when it should differ from the file name's */
  metadataName?: string;
  /** leave METADATA / PKG-INFO out */
  omitMetadata?: boolean;
  readme?: string;
}

const escaped = (name: string) => name.replace(/[-_.]+/g, '_');

export function coreMetadata(spec: DistSpec): string {
  const lines = [
    'Metadata-Version: 2.1',
    `Name: ${spec.metadataName ?? spec.name}`,
    `Version: ${spec.version}`,
    `Summary: ${spec.summary ?? `The ${spec.name} test package`}`,
    'License: MIT',
    ...(spec.requiresPython ? [`Requires-Python: ${spec.requiresPython}`] : []),
    ...(spec.requires ?? []).map((r) => `Requires-Dist: ${r}`),
    'Description-Content-Type: text/markdown',
  ];
  return `${lines.join('\n')}\n\n${spec.readme ?? `# ${spec.name}\n`}`;
}

const recordHash = (data: Buffer) => `sha256=${createHash('sha256').update(data).digest('base64url')}`;

export function wheelFilename(spec: DistSpec): string {
  return `${escaped(spec.name)}-${spec.version}-py3-none-any.whl`;
}

export async function makeWheel(spec: DistSpec): Promise<{ filename: string; bytes: Buffer }> {
  const module = escaped(spec.name).toLowerCase();
  const distInfo = `${escaped(spec.name)}-${spec.version}.dist-info`;
  const files: [string, Buffer][] = [
    [`${module}/__init__.py`, Buffer.from(`VERSION = ${JSON.stringify(spec.version)}\n`)],
    ...(spec.omitMetadata
      ? []
      : ([[`${distInfo}/METADATA`, Buffer.from(coreMetadata(spec))]] as [string, Buffer][])),
    [
      `${distInfo}/WHEEL`,
      Buffer.from('Wheel-Version: 1.0\nGenerator: granary-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n'),
    ],
  ];
  const record = `${files.map(([n, d]) => `${n},${recordHash(d)},${d.length}`).join('\n')}\n${distInfo}/RECORD,,\n`;
  files.push([`${distInfo}/RECORD`, Buffer.from(record)]);
  const zip = new yazl.ZipFile();
  for (const [n, d] of files) zip.addBuffer(d, n, { mtime: new Date('2024-01-01T00:00:00Z') });
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream) chunks.push(c as Buffer);
  return { filename: wheelFilename(spec), bytes: Buffer.concat(chunks) };
}

export async function makeSdist(spec: DistSpec): Promise<{ filename: string; bytes: Buffer }> {
  const top = `${escaped(spec.name)}-${spec.version}`;
  const pack = tar.pack();
  const entries: [string, string][] = [
    ...(spec.omitMetadata ? [] : ([[`${top}/PKG-INFO`, coreMetadata(spec)]] as [string, string][])),
    [
      `${top}/setup.py`,
      `from setuptools import setup\nsetup(name=${JSON.stringify(spec.name)}, version=${JSON.stringify(spec.version)})\n`,
    ],
  ];
  for (const [name, text] of entries) pack.entry({ name, mtime: new Date('2024-01-01T00:00:00Z') }, text);
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const c of pack) chunks.push(c as Buffer);
  return { filename: `${top}.tar.gz`, bytes: gzipSync(Buffer.concat(chunks)) };
}

/** A multipart body as twine sends it (the legacy upload API), with its content type. */
export async function uploadForm(
  file: { filename: string; bytes: Buffer },
  fields: Record<string, string> = {},
): Promise<{ body: Buffer; contentType: string }> {
  const form = new FormData();
  const all: Record<string, string> = {
    ':action': 'file_upload',
    protocol_version: '1',
    sha256_digest: createHash('sha256').update(file.bytes).digest('hex'),
    md5_digest: createHash('md5').update(file.bytes).digest('hex'),
    ...fields,
  };
  for (const [k, v] of Object.entries(all)) form.append(k, v);
  form.append('content', new Blob([file.bytes]), file.filename);
  const res = new Response(form);
  return { body: Buffer.from(await res.arrayBuffer()), contentType: res.headers.get('content-type')! };
}
