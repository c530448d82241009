import { PassThrough, type Readable } from 'node:stream';
import { ARCHIVE_ENTRIES_MAX, ARCHIVE_ENTRY_PATH_MAX } from '@granary/contracts';
import { and, eq, inArray } from 'drizzle-orm';
import yauzl from 'yauzl';
import type { BlobStore } from '../../platform/blobs/index.ts';
import type { Db } from '../../platform/db/index.ts';
import type { Executor } from '../../platform/events/index.ts';
import { artifacts } from '../repositories/repositories.schema.ts';
import { archiveEntries } from './packages.schema.ts';

/** Names of files whose entries are indexed for archive (class) search: zip containers. */
const ARCHIVE_NAME = /\.(jar|war|ear|aar|zip)$/i;
/** Archives larger than this are stored but not indexed. */
const ARCHIVE_MAX_BYTES = 2 * 1024 ** 3;

/** Entries read from stored archives, waiting for the storing transaction (keyed by blob). */
const pending = new Map<string, { entries: string[]; at: number }>();
const PENDING_TTL_MS = 120_000;
const PENDING_MAX = 16;

/**
 * Directory records read at most, folders and overlong names included: a directory of millions of
 * records that are never indexed (a hostile zip) costs no more than this. Entries are never inflated.
 */
export const ARCHIVE_SCAN_MAX = 2 * ARCHIVE_ENTRIES_MAX;

/** Bytes fetched per blob read: the central directory is read in a few windows, not once per entry. */
const READ_WINDOW = 1024 * 1024;

/** A yauzl reader over a blob's byte ranges: only the central directory is read, never the whole file. */
class BlobReader extends yauzl.RandomAccessReader {
  private window: { start: number; data: Buffer } | null = null;

  constructor(
    private readonly blobs: BlobStore,
    private readonly sha256: string,
    private readonly size: number,
  ) {
    super();
  }

  private async bytes(start: number, end: number): Promise<Buffer> {
    const w = this.window;
    if (w && start >= w.start && end <= w.start + w.data.length)
      return w.data.subarray(start - w.start, end - w.start);
    const last = Math.min(this.size, Math.max(end, start + READ_WINDOW));
    const chunks: Buffer[] = [];
    for await (const c of await this.blobs.get(this.sha256, { start, end: last - 1 }))
      chunks.push(c as Buffer);
    this.window = { start, data: Buffer.concat(chunks) };
    return this.window.data.subarray(0, end - start);
  }

  override _readStreamForRange(start: number, end: number): Readable {
    const out = new PassThrough();
    if (end <= start) {
      out.end();
      return out;
    }
    this.bytes(start, end).then(
      (b) => out.end(b),
      (err) => out.destroy(err),
    );
    return out;
  }
}

/** The entry paths of a zip blob, bounded in count and length; folders left out. Only the central directory is read. */
export function readZipEntries(blobs: BlobStore, sha256: string, size: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    yauzl.fromRandomAccessReader(
      new BlobReader(blobs, sha256, size),
      size,
      { lazyEntries: true, autoClose: true, strictFileNames: false, validateEntrySizes: false },
      (err, zip) => {
        if (err || !zip) return reject(err ?? new Error('not a zip'));
        const entries: string[] = [];
        let scanned = 0;
        zip.on('entry', (entry: yauzl.Entry) => {
          const name = entry.fileName;
          scanned += 1;
          if (!name.endsWith('/') && name.length <= ARCHIVE_ENTRY_PATH_MAX) entries.push(name);
          if (entries.length >= ARCHIVE_ENTRIES_MAX || scanned >= ARCHIVE_SCAN_MAX) {
            zip.close();
            resolve(entries);
          } else zip.readEntry();
        });
        zip.on('end', () => resolve(entries));
        zip.on('error', reject);
        zip.readEntry();
      },
    );
  });
}

/**
 * Before a file is stored (outside the transaction): an archive's entries are read from its blob
 * and kept until `indexArchiveEntries` writes them in the storing transaction. Unreadable archives
 * are stored all the same, without entries.
 */
export async function collectArchiveEntries(
  blobs: BlobStore,
  path: string,
  blob: { sha256: string; size: number },
): Promise<void> {
  if (!ARCHIVE_NAME.test(path) || blob.size < 22 || blob.size > ARCHIVE_MAX_BYTES) return;
  if (pending.has(blob.sha256)) return;
  let entries: string[];
  try {
    entries = await readZipEntries(blobs, blob.sha256, blob.size);
  } catch {
    return;
  }
  const now = Date.now();
  for (const [key, value] of pending)
    if (now - value.at > PENDING_TTL_MS || pending.size >= PENDING_MAX) pending.delete(key);
  pending.set(blob.sha256, { entries, at: now });
}

async function writeEntries(tx: Executor, repositoryId: string, path: string, entries: string[]) {
  await tx
    .delete(archiveEntries)
    .where(and(eq(archiveEntries.repositoryId, repositoryId), eq(archiveEntries.path, path)));
  for (let i = 0; i < entries.length; i += 1000) {
    const rows = entries.slice(i, i + 1000).map((entry) => ({
      repositoryId,
      path,
      entry,
      name: entry.split('/').at(-1) ?? entry,
    }));
    await tx.insert(archiveEntries).values(rows);
  }
}

/**
 * In the storing transaction: the archive's entries, read by `collectArchiveEntries`. A file stored
 * with metadata given by its format (no extraction before the transaction) is read after it is
 * committed instead, off the request.
 */
export async function indexArchiveEntries(
  tx: Executor,
  repositoryId: string,
  path: string,
  blob: { sha256: string; size: number },
): Promise<void> {
  if (!ARCHIVE_NAME.test(path)) return;
  const found = pending.get(blob.sha256);
  if (!found) {
    scheduleArchiveIndexing(repositoryId, path, blob);
    return;
  }
  await writeEntries(tx, repositoryId, path, found.entries);
}

// ---------- entries read after the commit ----------

interface Backend {
  db: Db;
  blobs: BlobStore;
  onError: (err: Error) => void;
}
/** The running servers' databases and blob stores (one in production; tests may run several). */
const backends = new Set<Backend>();
const queue: { repositoryId: string; path: string; sha256: string; size: number; attempt: number }[] = [];
const RETRY_MS = [20, 200, 1000, 4000];
let running = false;

export function attachArchiveIndexer(backend: Backend): () => void {
  backends.add(backend);
  return () => backends.delete(backend);
}

/** Whether stored jars and zips have their entries indexed (an indexer is attached to a running server). */
export function archiveIndexingEnabled(): boolean {
  return backends.size > 0;
}

function scheduleArchiveIndexing(repositoryId: string, path: string, blob: { sha256: string; size: number }) {
  if (blob.size < 22 || blob.size > ARCHIVE_MAX_BYTES || backends.size === 0) return;
  const job = { repositoryId, path, sha256: blob.sha256, size: blob.size, attempt: 0 };
  setTimeout(() => enqueue(job), RETRY_MS[0]).unref();
}

function enqueue(job: (typeof queue)[number]) {
  queue.push(job);
  if (!running) void drain();
}

/** One archive at a time: reads its entries once the file's row is committed, retrying briefly until then. */
async function drain() {
  running = true;
  try {
    for (let job = queue.shift(); job; job = queue.shift()) {
      let done = false;
      for (const backend of backends) {
        try {
          const stored = await backend.db
            .select({ id: artifacts.id })
            .from(artifacts)
            .where(
              and(
                eq(artifacts.repositoryId, job.repositoryId),
                eq(artifacts.path, job.path),
                eq(artifacts.sha256, job.sha256),
              ),
            );
          if (stored.length === 0) continue;
          const entries = await readZipEntries(backend.blobs, job.sha256, job.size).catch(() => null);
          done = true;
          if (!entries) break;
          await backend.db.transaction(async (tx) => {
            // still the same file: a later change has unindexed or replaced it otherwise
            const still = await tx
              .select({ id: artifacts.id })
              .from(artifacts)
              .where(
                and(
                  eq(artifacts.repositoryId, job.repositoryId),
                  eq(artifacts.path, job.path),
                  eq(artifacts.sha256, job.sha256),
                ),
              );
            if (still.length > 0) await writeEntries(tx, job.repositoryId, job.path, entries);
          });
          break;
        } catch (err) {
          try {
            backend.onError(err as Error);
          } catch {
            // the server is closing
          }
        }
      }
      const next = RETRY_MS[job.attempt + 1];
      if (!done && next !== undefined) {
        const retry = { ...job, attempt: job.attempt + 1 };
        setTimeout(() => enqueue(retry), next).unref();
      }
    }
  } finally {
    running = false;
  }
}

export async function unindexArchiveEntries(tx: Executor, repositoryId: string, all: string[]) {
  const paths = all.filter((p) => ARCHIVE_NAME.test(p));
  for (let i = 0; i < paths.length; i += 1000)
    await tx
      .delete(archiveEntries)
      .where(
        and(
          eq(archiveEntries.repositoryId, repositoryId),
          inArray(archiveEntries.path, paths.slice(i, i + 1000)),
        ),
      );
}
