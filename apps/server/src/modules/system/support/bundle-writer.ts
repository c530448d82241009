import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SupportBundleParameters } from '@granary/contracts';
import { ZipFile } from 'yazl';
import type { Redactor } from './redact.ts';

/** One file of a bundle as the manifest lists it. */
export interface ManifestEntry {
  path: string;
  size: number;
  sha256: string;
  /** How many values were redacted from it. */
  redacted: number;
  note?: string;
}

/** A structured part of a bundle: `configuration/{name}.json` or `system/{name}.json`. */
export interface BundlePart {
  path: string;
  read(): Promise<unknown>;
}

export interface BundleInput {
  id: string;
  name: string;
  description: string;
  parameters: SupportBundleParameters;
  /** `$GRANARY_HOME/support`: the zip lands here as `{id}.zip`. */
  dir: string;
  logsDir: string;
  /** The most content (uncompressed) a bundle holds; logs are cut to fit, newest kept. */
  maxBytes: number;
  /** Read (and redacted) first, so their secrets are known before free text is scrubbed. */
  configuration: BundlePart[];
  system: BundlePart[];
  redactor: Redactor;
  /** Writes what the loggers buffer before the log files are read. */
  flushLogs(): void;
  signal: AbortSignal;
  meta: Record<string, unknown>;
}

/** Room kept for the manifest within the cap. */
const MANIFEST_RESERVE = 64 * 1024;
/** Keys of a diagnostic report that carry the environment: removed at any depth. */
const ENVIRONMENT_KEYS = new Set(['environmentVariables', 'environment', 'env']);

interface BufferEntry {
  path: string;
  data: Buffer;
  redacted: number;
  note?: string;
}
interface FileEntry {
  path: string;
  file: string;
  start: number;
  size: number;
  redacted: number;
  note?: string;
}

export const bundleFile = (dir: string, id: string) => path.join(dir, `${id}.zip`);
const partialFile = (dir: string, id: string) => path.join(dir, `.${id}.zip.partial`);
const stagingDir = (dir: string, id: string) => path.join(dir, `.${id}.staging`);

/** Leftovers of interrupted generations on this node (partial zips, staged logs): removed at start. */
export async function removeLeftovers(dir: string): Promise<number> {
  let removed = 0;
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    if (name.startsWith('.') && (name.endsWith('.partial') || name.endsWith('.staging'))) {
      await rm(path.join(dir, name), { recursive: true, force: true });
      removed += 1;
    }
  }
  return removed;
}

function checkAborted(signal: AbortSignal): void {
  if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('aborted');
}

const json = (value: unknown) => Buffer.from(`${JSON.stringify(value, null, 2)}\n`);
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/** A diagnostic report without anything that carries the environment. */
export function stripEnvironment(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripEnvironment);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (!ENVIRONMENT_KEYS.has(k)) out[k] = stripEnvironment(v);
  return out;
}

/** [from, to] in epoch ms of the logs asked for; a day-only end date covers the whole day. */
function dateRange(logs: SupportBundleParameters['logs']): { from: number; to: number } {
  const day = (v: string) => /^\d{4}-\d{2}-\d{2}$/.test(v);
  const from = logs.start_date ? Date.parse(logs.start_date) : Number.NEGATIVE_INFINITY;
  const to = logs.end_date
    ? Date.parse(logs.end_date) + (day(logs.end_date) ? 86_400_000 - 1 : 0)
    : Number.POSITIVE_INFINITY;
  return { from, to };
}

const LINE_TIME = /"time":"([^"]+)"/;

/**
 * Copies one log file's lines within the range into `target`, scrubbed: read and written as
 * streams, never whole in memory. A line without a time goes with the line before it.
 */
async function stageLog(
  source: string,
  target: string,
  range: { from: number; to: number },
  redactor: Redactor,
  signal: AbortSignal,
): Promise<{ size: number; redacted: number }> {
  const out = createWriteStream(target);
  const lines = createInterface({
    input: createReadStream(source, { encoding: 'utf8' }),
    crlfDelay: Infinity,
  });
  let size = 0;
  let keep = true;
  redactor.take();
  try {
    for await (const line of lines) {
      checkAborted(signal);
      const time = LINE_TIME.exec(line)?.[1];
      if (time) {
        const at = Date.parse(time);
        if (!Number.isNaN(at)) keep = at >= range.from && at <= range.to;
      }
      if (!keep) continue;
      const chunk = `${redactor.text(line)}\n`;
      size += Buffer.byteLength(chunk);
      if (!out.write(chunk)) await new Promise<void>((resolve) => out.once('drain', resolve));
    }
  } finally {
    lines.close();
    await new Promise<void>((resolve, reject) =>
      out.end((err?: Error | null) => (err ? reject(err) : resolve())),
    );
  }
  return { size, redacted: redactor.take() };
}

/** Where a tail of at most `keep` bytes starts on a line boundary. */
async function tailStart(file: string, size: number, keep: number): Promise<number> {
  let start = size - keep;
  if (start <= 0) return 0;
  const handle = await open(file, 'r');
  try {
    const buf = Buffer.alloc(64 * 1024);
    for (let pos = start; pos < size; pos += buf.length) {
      const { bytesRead } = await handle.read(buf, 0, buf.length, pos);
      const nl = buf.subarray(0, bytesRead).indexOf(0x0a);
      if (nl >= 0) return pos + nl + 1;
      if (bytesRead === 0) break;
    }
    start = size;
  } finally {
    await handle.close();
  }
  return start;
}

async function hashRange(file: string, start: number, size: number): Promise<string> {
  const hash = createHash('sha256');
  if (size === 0) return hash.digest('hex');
  for await (const chunk of createReadStream(file, { start, end: start + size - 1 }))
    hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * Generates bundle `id`: configuration and system parts (redacted), `count` diagnostic reports
 * `interval` ms apart (environment stripped), the chosen logs (scrubbed, cut to the cap, newest
 * kept) and `manifest.json`, zipped to a partial file renamed into place only once complete.
 * Answers the zip's size. Nothing partial is left on failure.
 */
export async function writeBundle(input: BundleInput): Promise<number> {
  const { id, parameters, dir, redactor, signal } = input;
  const staging = stagingDir(dir, id);
  const partial = partialFile(dir, id);
  const notes: string[] = [];
  await mkdir(staging, { recursive: true });
  try {
    const buffers: BufferEntry[] = [];
    const files: FileEntry[] = [];

    // 1. Structured parts. All are read (their secrets are learned) even when not asked for.
    const structured = async (parts: BundlePart[], include: boolean) => {
      for (const part of parts) {
        checkAborted(signal);
        let value: unknown;
        try {
          value = await part.read();
        } catch (err) {
          value = { error: err instanceof Error ? err.message : String(err) };
        }
        redactor.take();
        const clean = redactor.value(value);
        const redacted = redactor.take();
        if (include) buffers.push({ path: part.path, data: json(clean), redacted });
      }
    };
    await structured(input.configuration, parameters.configuration);
    await structured(input.system, parameters.system);

    // 2. Thread dumps: Node diagnostic reports, without the environment, scrubbed.
    const { count, interval } = parameters.thread_dump;
    for (let i = 0; i < count; i++) {
      if (i > 0 && interval > 0) await sleep(interval, undefined, { signal });
      checkAborted(signal);
      const report = stripEnvironment(process.report.getReport());
      redactor.take();
      const text = redactor.text(JSON.stringify(redactor.value(report), null, 2));
      buffers.push({
        path: `thread-dumps/thread-dump-${String(i + 1).padStart(2, '0')}.json`,
        data: Buffer.from(`${text}\n`),
        redacted: redactor.take(),
      });
    }

    // 3. Logs: newest first, cut to what the cap leaves.
    if (parameters.logs.include) {
      input.flushLogs();
      const range = dateRange(parameters.logs);
      const names = (await readdir(input.logsDir).catch(() => [] as string[])).filter((n) =>
        n.endsWith('.log'),
      );
      const found: { name: string; file: string; mtimeMs: number; birth: number }[] = [];
      for (const name of names) {
        const file = path.join(input.logsDir, name);
        const s = await stat(file).catch(() => null);
        if (!s?.isFile()) continue;
        // A file last written before the range starts holds nothing of it.
        if (s.mtimeMs < range.from) continue;
        found.push({ name, file, mtimeMs: s.mtimeMs, birth: s.birthtimeMs });
      }
      found.sort((a, b) => b.mtimeMs - a.mtimeMs || a.name.localeCompare(b.name));
      let budget = input.maxBytes - MANIFEST_RESERVE - buffers.reduce((sum, b) => sum + b.data.length, 0);
      for (const log of found) {
        checkAborted(signal);
        const staged = path.join(staging, log.name);
        const { size, redacted } = await stageLog(log.file, staged, range, redactor, signal);
        if (size === 0) continue;
        const entryPath = `logs/${log.name}`;
        if (budget <= 0) {
          notes.push(`${entryPath} left out: the bundle reached its size cap of ${input.maxBytes} bytes`);
          continue;
        }
        if (size <= budget) {
          files.push({ path: entryPath, file: staged, start: 0, size, redacted });
          budget -= size;
          continue;
        }
        const start = await tailStart(staged, size, budget);
        const kept = size - start;
        const note = `truncated to the newest ${kept} of ${size} bytes to fit the size cap of ${input.maxBytes} bytes`;
        notes.push(`${entryPath} ${note}`);
        files.push({ path: entryPath, file: staged, start, size: kept, redacted, note });
        budget = 0;
      }
    }

    // 4. The manifest, then the zip through a partial file.
    const listed: ManifestEntry[] = [];
    for (const b of buffers)
      listed.push({
        path: b.path,
        size: b.data.length,
        sha256: sha256(b.data),
        redacted: b.redacted,
        ...(b.note ? { note: b.note } : {}),
      });
    for (const f of files)
      listed.push({
        path: f.path,
        size: f.size,
        sha256: await hashRange(f.file, f.start, f.size),
        redacted: f.redacted,
        ...(f.note ? { note: f.note } : {}),
      });
    const manifest = {
      id,
      name: input.name,
      description: input.description,
      created: new Date().toISOString(),
      parameters,
      maxBytes: input.maxBytes,
      ...input.meta,
      files: listed,
      notes,
    };
    checkAborted(signal);
    const zip = new ZipFile();
    const mtime = new Date();
    zip.addBuffer(json(manifest), 'manifest.json', { mtime });
    for (const b of buffers) zip.addBuffer(b.data, b.path, { mtime });
    for (const f of files)
      zip.addReadStream(
        f.size === 0
          ? createReadStream(f.file, { start: 0, end: -1 })
          : createReadStream(f.file, { start: f.start, end: f.start + f.size - 1 }),
        f.path,
        { mtime, size: f.size },
      );
    zip.end();
    await new Promise<void>((resolve, reject) => {
      const out = createWriteStream(partial, { mode: 0o600 });
      zip.outputStream.on('error', reject);
      out.on('error', reject);
      out.on('finish', () => resolve());
      zip.outputStream.pipe(out);
    });
    const handle = await open(partial, 'r+');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
    checkAborted(signal);
    const final = bundleFile(dir, id);
    await rename(partial, final);
    return (await stat(final)).size;
  } catch (err) {
    await rm(partial, { force: true });
    throw err;
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
