import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import yauzl from 'yauzl';
import { writeBundle } from './bundle-writer.ts';
import { Redactor } from './redact.ts';

function entries(file: string): Promise<Map<string, string>> {
  return new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true }, (err, zip) => {
      if (err || !zip) return reject(err);
      const out = new Map<string, string>();
      zip.on('entry', (entry: yauzl.Entry) =>
        zip.openReadStream(entry, (e, stream) => {
          if (e || !stream) return reject(e);
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('end', () => {
            out.set(entry.fileName, Buffer.concat(chunks).toString());
            zip.readEntry();
          });
        }),
      );
      zip.on('end', () => resolve(out));
      zip.readEntry();
    });
  });
}

const line = (time: string, msg: string) => `${JSON.stringify({ level: 30, time, msg })}\n`;

describe('issue 15 support bundles: logs', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'granary-bundle-'));
    await mkdir(path.join(dir, 'logs'));
    await mkdir(path.join(dir, 'support'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const input = (over: Partial<Parameters<typeof writeBundle>[0]> = {}) => ({
    id: 'b1',
    name: 'b',
    description: '',
    parameters: {
      configuration: false,
      system: false,
      logs: { include: true },
      thread_dump: { count: 0, interval: 0 },
    },
    dir: path.join(dir, 'support'),
    logsDir: path.join(dir, 'logs'),
    maxBytes: 20 * 1024 * 1024,
    configuration: [],
    system: [],
    redactor: new Redactor(),
    flushLogs: () => {},
    signal: new AbortController().signal,
    meta: {},
    ...over,
  });

  it('the size cap cuts the logs to fit, newest kept, and the manifest says so', async () => {
    const old = Array.from({ length: 50 }, (_, i) => line('2026-01-01T00:00:00Z', `old ${i}`)).join('');
    const recent = Array.from({ length: 50 }, (_, i) => line('2026-01-02T00:00:00Z', `recent ${i}`)).join('');
    await writeFile(path.join(dir, 'logs', 'server.1.log'), old);
    await utimes(path.join(dir, 'logs', 'server.1.log'), new Date('2026-01-01'), new Date('2026-01-01'));
    await writeFile(path.join(dir, 'logs', 'server.log'), recent);
    // 64 KiB are kept for the manifest: about 600 bytes of logs fit
    await writeBundle(input({ maxBytes: 64 * 1024 + 600 }));
    const zip = await entries(path.join(dir, 'support', 'b1.zip'));
    const kept = zip.get('logs/server.log')!;
    expect(kept.length).toBeLessThanOrEqual(600);
    expect(kept).toContain('recent 49');
    expect(kept).not.toContain('recent 0"');
    expect(kept.startsWith('{')).toBe(true);
    expect(zip.has('logs/server.1.log')).toBe(false);
    const manifest = JSON.parse(zip.get('manifest.json')!);
    expect(manifest.files[0].note).toMatch(/truncated to the newest/);
    expect(manifest.notes.join('\n')).toMatch(/logs\/server\.1\.log left out/);
    expect((await readdir(path.join(dir, 'support'))).sort()).toEqual(['b1.zip']);
  });

  it('the date range keeps only the lines of those days', async () => {
    await writeFile(
      path.join(dir, 'logs', 'server.log'),
      line('2026-01-01T10:00:00Z', 'day one') +
        line('2026-01-02T10:00:00Z', 'day two') +
        line('2026-01-03T10:00:00Z', 'day three'),
    );
    await writeBundle(
      input({
        parameters: {
          configuration: false,
          system: false,
          logs: { include: true, start_date: '2026-01-02', end_date: '2026-01-02' },
          thread_dump: { count: 0, interval: 0 },
        },
      }),
    );
    const log = (await entries(path.join(dir, 'support', 'b1.zip'))).get('logs/server.log')!;
    expect(log).toContain('day two');
    expect(log).not.toContain('day one');
    expect(log).not.toContain('day three');
  });

  it('nothing partial is left when generation fails', async () => {
    const failing = {
      path: 'configuration/x.json',
      read: async () => ({ ok: true }),
    };
    const controller = new AbortController();
    controller.abort(new Error('stopping'));
    await expect(writeBundle(input({ configuration: [failing], signal: controller.signal }))).rejects.toThrow(
      'stopping',
    );
    expect(await readdir(path.join(dir, 'support'))).toEqual([]);
  });
});
