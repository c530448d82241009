import { and, asc, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Db } from '../db/index.ts';
import { blobFaults } from './blob-faults.schema.ts';
import type { BlobDamagedError, BlobFaultKind } from './errors.ts';
import type { BlobStore } from './types.ts';

export interface BlobFault {
  sha256: string;
  kind: BlobFaultKind;
  detail: string;
  /** `repository/path` of an artifact with this content. */
  artifact: string | null;
  source: 'download' | 'scrub';
  firstSeenAt: string;
  lastSeenAt: string;
  occurrences: number;
}

export interface FoundFault {
  sha256: string;
  kind: BlobFaultKind;
  detail: string;
  artifact?: string;
  source: 'download' | 'scrub';
}

/** Records a damaged blob (or counts one more sighting of it); a repaired blob found damaged again is reopened. */
export async function recordBlobFault(db: Db, fault: FoundFault): Promise<void> {
  await db
    .insert(blobFaults)
    .values({
      sha256: fault.sha256,
      kind: fault.kind,
      detail: fault.detail,
      artifact: fault.artifact ?? null,
      source: fault.source,
    })
    .onConflictDoUpdate({
      target: blobFaults.sha256,
      set: {
        kind: fault.kind,
        detail: fault.detail,
        artifact: sql`coalesce(excluded.artifact, ${blobFaults.artifact})`,
        source: fault.source,
        lastSeenAt: sql`now()`,
        firstSeenAt: sql`case when ${blobFaults.repairedAt} is null then ${blobFaults.firstSeenAt} else now() end`,
        occurrences: sql`case when ${blobFaults.repairedAt} is null then ${blobFaults.occurrences} + 1 else 1 end`,
        repairedAt: null,
      },
    });
}

/** Closes the open faults of these blobs (they verify again, or nothing refers to them any more); answers how many. */
export async function markBlobsRepaired(db: Db, sha256s: string[]): Promise<number> {
  let closed = 0;
  for (let i = 0; i < sha256s.length; i += 1000) {
    const rows = await db
      .update(blobFaults)
      .set({ repairedAt: sql`now()` })
      .where(and(inArray(blobFaults.sha256, sha256s.slice(i, i + 1000)), isNull(blobFaults.repairedAt)))
      .returning({ sha256: blobFaults.sha256 });
    closed += rows.length;
  }
  return closed;
}

/** The blobs marked for repair, oldest sighting first. */
export async function openBlobFaults(db: Db, limit = 1000): Promise<BlobFault[]> {
  const rows = await db
    .select()
    .from(blobFaults)
    .where(isNull(blobFaults.repairedAt))
    .orderBy(asc(blobFaults.firstSeenAt), asc(blobFaults.sha256))
    .limit(limit);
  return rows.map((r) => ({
    sha256: r.sha256,
    kind: r.kind as BlobFaultKind,
    detail: r.detail,
    artifact: r.artifact,
    source: r.source as BlobFault['source'],
    firstSeenAt: r.firstSeenAt.toISOString(),
    lastSeenAt: r.lastSeenAt.toISOString(),
    occurrences: r.occurrences,
  }));
}

export async function isBlobFaultOpen(db: Db, sha256: string): Promise<boolean> {
  const rows = await db
    .select({ sha256: blobFaults.sha256 })
    .from(blobFaults)
    .where(and(eq(blobFaults.sha256, sha256), isNull(blobFaults.repairedAt)))
    .limit(1);
  return rows.length > 0;
}

/**
 * What is done when a blob is found damaged, by a download or the scrub: the fault is recorded
 * (the blob is marked for repair) and a blob with the right size but other bytes is moved aside,
 * so that storing the same content again repairs it. Never throws: failing to record must not hide
 * the fault from the caller, who logs it anyway.
 */
export async function handleDamagedBlob(
  deps: { db: Db; blobs: BlobStore; log: { warn(obj: object, msg: string): void } },
  fault: FoundFault,
  damaged?: BlobDamagedError,
): Promise<void> {
  try {
    await recordBlobFault(deps.db, fault);
  } catch (err) {
    deps.log.warn({ err, sha256: fault.sha256 }, 'could not record a blob fault');
  }
  if (fault.kind !== 'corrupt' || !damaged?.sameSize) return;
  try {
    await deps.blobs.quarantine(fault.sha256);
    deps.log.warn(
      { sha256: fault.sha256 },
      'damaged blob moved to quarantine: storing the same content again repairs it',
    );
  } catch (err) {
    deps.log.warn({ err, sha256: fault.sha256 }, 'could not move a damaged blob to quarantine');
  }
}
