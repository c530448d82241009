import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import yazl from 'yazl';
import {
  ArchiveError,
  ArchiveLimitError,
  type ArchiveLimits,
} from '../../../platform/archives/bounded-archive.ts';
import { osvArchiveEntries } from './osv-archive.ts';

type Add = { name: string; bytes: Buffer; how?: 'buffer' | 'stream' | 'stored' | 'zip64' };

async function zipOf(entries: Add[]): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const e of entries) {
    if (e.how === 'stream') zip.addReadStream(Readable.from([e.bytes]), e.name);
    else if (e.how === 'stored') zip.addBuffer(e.bytes, e.name, { compress: false });
    else if (e.how === 'zip64') zip.addBuffer(e.bytes, e.name, { forceZip64Format: true });
    else zip.addBuffer(e.bytes, e.name);
  }
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

async function readAll(zip: Buffer, limits: ArchiveLimits) {
  const out: { index: number; name: string; text: string }[] = [];
  for await (const e of osvArchiveEntries(zip, limits))
    out.push({ index: e.index, name: e.name, text: (await e.read()).toString('utf8') });
  return out;
}

const LIMITS: ArchiveLimits = {
  entries: 100,
  entryBytes: 64 * 1024,
  totalBytes: 1024 * 1024,
  ratio: 20,
  ratioFloor: 10_000,
};
const json = (id: string) =>
  Buffer.from(JSON.stringify({ id, modified: '2024-01-01T00:00:00Z', details: 'x'.repeat(300) }));

describe('issue 16: the OSV archive reader (positional reads, inflate and CRC check, bounded)', () => {
  it('reads deflated, stored, streamed (data descriptor) and zip64 entries in directory order, skipping directories', async () => {
    const zip = await zipOf([
      { name: 'A-1.json', bytes: json('A-1') },
      { name: 'A-2.json', bytes: json('A-2'), how: 'stored' },
      { name: 'A-3.json', bytes: json('A-3'), how: 'stream' },
      { name: 'A-4.json', bytes: json('A-4'), how: 'zip64' },
      { name: 'empty.txt', bytes: Buffer.alloc(0) },
    ]);
    const entries = await readAll(zip, LIMITS);
    expect(entries.map((e) => [e.index, e.name])).toEqual([
      [0, 'A-1.json'],
      [1, 'A-2.json'],
      [2, 'A-3.json'],
      [3, 'A-4.json'],
      [4, 'empty.txt'],
    ]);
    expect(JSON.parse(entries[3]!.text).id).toBe('A-4');
    expect(entries[4]!.text).toBe('');
  });

  it('reads a zip64 end of directory (as archives of more than 65,535 entries have) from a file', async () => {
    const zip = new yazl.ZipFile();
    for (let i = 0; i < 300; i++) zip.addBuffer(Buffer.from(`{"i":${i}}`), `R-${i}.json`);
    // yazl supports the option; its types do not list it
    zip.end({ forceZip64Format: true } as unknown as yazl.EndOptions);
    const chunks: Buffer[] = [];
    for await (const c of zip.outputStream) chunks.push(c as Buffer);
    const bytes = Buffer.concat(chunks);
    // the classic end record defers to the zip64 one
    expect(bytes.readUInt16LE(bytes.length - 22 + 10)).toBe(0xffff);
    const dir = await mkdtemp(path.join(os.tmpdir(), 'osv-archive-'));
    try {
      const file = path.join(dir, 'all.zip');
      await writeFile(file, bytes);
      let n = 0;
      let last = '';
      for await (const e of osvArchiveEntries({ path: file }, { ...LIMITS, entries: 1000 })) {
        n++;
        if (n === 300) last = (await e.read()).toString();
      }
      expect(n).toBe(300);
      expect(last).toBe('{"i":299}');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses too many entries, a decompression bomb and an oversized entry with an ArchiveLimitError', async () => {
    const many = await zipOf(
      Array.from({ length: 5 }, (_, i) => ({ name: `M-${i}.json`, bytes: json(`M-${i}`) })),
    );
    await expect(readAll(many, { ...LIMITS, entries: 4 })).rejects.toThrow(ArchiveLimitError);
    // checked on the whole directory before the first entry is yielded
    const bomb = await zipOf([
      { name: 'ok.json', bytes: json('ok') },
      { name: 'bomb.json', bytes: Buffer.alloc(60_000, 0x20) },
    ]);
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const e of osvArchiveEntries(bomb, LIMITS)) seen.push(e.name);
      })(),
    ).rejects.toThrow(/decompression bomb/);
    expect(seen).toEqual([]);
    await expect(readAll(bomb, { ...LIMITS, ratio: 10_000, entryBytes: 50_000 })).rejects.toThrow(
      /bomb.json is larger than 50000 bytes/,
    );
  });

  it('reports a damaged entry (CRC), a truncated archive and bytes that are no zip as an ArchiveError', async () => {
    const good = await zipOf([{ name: 'D-1.json', bytes: json('D-1') }]);
    const damaged = Buffer.from(good);
    const at = damaged.indexOf(Buffer.from('D-1.json')) + 'D-1.json'.length + 2;
    damaged[at] = damaged[at]! ^ 0xff;
    await expect(readAll(damaged, LIMITS)).rejects.toThrow(ArchiveError);
    await expect(readAll(good.subarray(0, good.length - 30), LIMITS)).rejects.toThrow(ArchiveError);
    await expect(readAll(Buffer.from('not a zip at all, just text'), LIMITS)).rejects.toThrow(ArchiveError);
    expect((await readAll(good, LIMITS)).map((e) => e.name)).toEqual(['D-1.json']);
  });
});
