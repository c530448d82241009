import { PassThrough, type Readable } from 'node:stream';
import { ARCHIVE_ENTRIES_MAX, ARCHIVE_ENTRY_PATH_MAX } from '@granary/contracts';
import { and, eq, inArray } from 'drizzle-orm';
import yauzl from 'yauzl';
import type { BlobStore } from '../../platform/blobs/index.ts';
import type { Db } from '../../platform/db/index.ts';
import type { Executor } from '../../platform/events/index.ts';
import { enqueueJob, type Jobs } from '../../platform/jobs/index.ts';
import { findArtifact } from '../repositories/repositories.api.ts';
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

/** The queued job that reads an archive's entries after the file is committed. */
export const ARCHIVE_ENTRIES_JOB = 'packages.archive-entries';

interface ArchiveJob {
  repositoryId: string;
  path: string;
  sha256: string;
  size: number;
}

/**
 * In the storing transaction: the archive's entries, read by `collectArchiveEntries`. A file stored
 * with metadata given by its format (no extraction before the transaction) gets a queued job in the
 * same transaction instead, which reads them off the request once the file is committed.
 */
export async function indexArchiveEntries(
  tx: Executor,
  repositoryId: string,
  path: string,
  blob: { sha256: string; size: number },
): Promise<void> {
  if (!ARCHIVE_NAME.test(path)) return;
  const found = pending.get(blob.sha256);
  if (found) {
    await writeEntries(tx, repositoryId, path, found.entries);
    return;
  }
  if (blob.size < 22 || blob.size > ARCHIVE_MAX_BYTES) return;
  const job: ArchiveJob = { repositoryId, path, sha256: blob.sha256, size: blob.size };
  await enqueueJob(tx, ARCHIVE_ENTRIES_JOB, job, {
    dedupeKey: `${repositoryId}:${blob.sha256}:${path}`,
  });
}

/** Whether stored jars and zips have their entries indexed: always on a running server (a queued job). */
export function archiveIndexingEnabled(): boolean {
  return true;
}

/** The file is still the one the job was made for (not removed, not replaced). */
const storedAs = async (db: Executor, job: ArchiveJob) =>
  (await findArtifact(db, job.repositoryId, job.path))?.sha256 === job.sha256;

/**
 * The queue that indexes archives after their commit. A file gone or replaced since is skipped; an
 * archive that cannot be read is left without entries, as at deploy; a database failure is retried.
 */
export function registerArchiveIndexer(jobs: Jobs, deps: { db: Db; blobs: BlobStore }): void {
  jobs.queue<ArchiveJob>({
    name: ARCHIVE_ENTRIES_JOB,
    maxAttempts: 5,
    backoffMs: 1_000,
    async handler(job) {
      if (!(await storedAs(deps.db, job))) return;
      const entries = await readZipEntries(deps.blobs, job.sha256, job.size).catch(() => null);
      if (!entries) return;
      await deps.db.transaction(async (tx) => {
        // still the same file: a later change has unindexed or replaced it otherwise
        if (await storedAs(tx, job)) await writeEntries(tx, job.repositoryId, job.path, entries);
      });
    },
  });
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
