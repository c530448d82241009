import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { Db } from '../db/index.ts';
import { handleDamagedBlob, markBlobsRepaired, openBlobFaults } from './blob-faults.ts';
import { BlobDamagedError, type BlobFaultKind, BlobNotFoundError } from './errors.ts';
import type { BlobStore } from './types.ts';
import { BlobVerifier } from './verify.ts';

/** The recurring job that runs the scrub (platform/jobs). */
export const SCRUB_JOB_NAME = 'blobs.scrub';

/** A blob to check: its name, the size its artifacts have, and one of them (`repository/path`). */
export interface ScrubTarget {
  sha256: string;
  size: number;
  artifact?: string;
}

/** What one pass of the scrub found (kept as the `blobs.scrub` job's last result). */
export interface ScrubReport {
  store: BlobStore['kind'];
  startedAt: string;
  finishedAt: string;
  /** False when the pass was stopped (shutdown) before it saw every blob. */
  complete: boolean;
  rateBytesPerSec: number;
  /** Blobs read and verified, and their bytes. */
  checked: number;
  bytes: number;
  corrupt: number;
  missing: number;
  empty: number;
  /** Blobs that could not be read for another reason (an I/O or network error): not marked, tried again next pass. */
  unreadable: number;
  /** Open faults closed by this pass: the blob verifies again, or no artifact has that content any more. */
  repaired: number;
  /** The faults found by this pass (the first 100). */
  faults: { sha256: string; kind: BlobFaultKind; detail: string; artifact: string | null }[];
}

const REPORTED_FAULTS = 100;

export interface ScrubOptions {
  db: Db;
  blobs: BlobStore;
  log: Logger;
  /** Every blob artifacts refer to, each once. */
  targets: AsyncIterable<ScrubTarget>;
  /** Reading stays at or under this rate (bytes per second), so serving is not starved of I/O. */
  rateBytesPerSec: number;
  signal: AbortSignal;
}

/**
 * Re-hashes every blob artifacts refer to, at a bounded rate, on either store: a blob whose bytes
 * hash differently, that is gone, or that is stored empty is recorded as a fault (marked for
 * repair, and moved aside when the same content stored again would not replace it); an open fault
 * whose blob verifies again is closed.
 */
export async function scrubBlobs(opts: ScrubOptions): Promise<ScrubReport> {
  const { db, blobs, log, rateBytesPerSec, signal } = opts;
  const started = Date.now();
  const report: ScrubReport = {
    store: blobs.kind,
    startedAt: new Date(started).toISOString(),
    finishedAt: '',
    complete: false,
    rateBytesPerSec,
    checked: 0,
    bytes: 0,
    corrupt: 0,
    missing: 0,
    empty: 0,
    unreadable: 0,
    repaired: 0,
    faults: [],
  };
  const open = new Set((await openBlobFaults(db, 100_000)).map((f) => f.sha256));
  const seen = new Set<string>();
  const verifiedAgain: string[] = [];
  let budgetStart = Date.now();
  let budgetBytes = 0;

  /** Waits as long as the bytes read so far are ahead of the rate. */
  const throttle = async (bytes: number) => {
    budgetBytes += bytes;
    const dueMs = (budgetBytes / rateBytesPerSec) * 1000 - (Date.now() - budgetStart);
    if (dueMs > 5) await sleep(dueMs, undefined, { signal });
    // Start a new window now and then, so a pause (a slow store) is not made up for with a burst.
    if (budgetBytes > rateBytesPerSec * 10) {
      budgetStart = Date.now();
      budgetBytes = 0;
    }
  };

  const found = async (
    target: ScrubTarget,
    kind: BlobFaultKind,
    detail: string,
    damaged?: BlobDamagedError,
  ) => {
    report[kind] += 1;
    if (report.faults.length < REPORTED_FAULTS)
      report.faults.push({ sha256: target.sha256, kind, detail, artifact: target.artifact ?? null });
    log.error(
      { sha256: target.sha256, artifact: target.artifact, fault: kind, detail },
      `scrub: stored content of ${target.artifact ?? 'an artifact'} is ${kind === 'corrupt' ? 'damaged' : kind}`,
    );
    await handleDamagedBlob(
      { db, blobs, log },
      { sha256: target.sha256, kind, detail, artifact: target.artifact, source: 'scrub' },
      damaged,
    );
  };

  try {
    for await (const target of opts.targets) {
      if (signal.aborted) break;
      seen.add(target.sha256);
      const verifier = new BlobVerifier(target.sha256, target.size);
      try {
        const stream = (await blobs.get(target.sha256)) as AsyncIterable<Uint8Array> & {
          destroy?: () => void;
        };
        try {
          for await (const chunk of stream) {
            verifier.update(chunk);
            await throttle(chunk.length);
          }
        } finally {
          stream.destroy?.();
        }
        report.bytes += verifier.bytesSeen;
        verifier.finish();
        report.checked += 1;
        if (open.has(target.sha256)) verifiedAgain.push(target.sha256);
      } catch (error) {
        if (signal.aborted) break;
        if (error instanceof BlobNotFoundError) {
          report.checked += 1;
          await found(target, 'missing', 'the blob is not in the store');
        } else if (error instanceof BlobDamagedError) {
          report.checked += 1;
          await found(target, error.kind, error.detail, error);
        } else {
          report.unreadable += 1;
          log.warn(
            { err: error, sha256: target.sha256, artifact: target.artifact },
            'scrub: could not read a blob',
          );
        }
      }
    }
    report.complete = !signal.aborted;
  } finally {
    report.repaired += await markBlobsRepaired(db, verifiedAgain);
    // After a whole pass, an open fault no artifact refers to any more has nothing left to repair.
    if (report.complete)
      report.repaired += await markBlobsRepaired(
        db,
        [...open].filter((s) => !seen.has(s)),
      );
    report.finishedAt = new Date().toISOString();
  }
  return report;
}
