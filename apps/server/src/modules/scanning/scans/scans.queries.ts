import { and, asc, eq, gt, inArray, ne, sql } from 'drizzle-orm';
import type { Db } from '../../../platform/db/index.ts';
import type { Executor } from '../../../platform/events/index.ts';
import type { ComponentFinding, ExtractedArtifact } from '../model.ts';
import {
  scanArtifacts,
  scanContents,
  scanCustomLicenses,
  scanNotIndexed,
  scanSboms,
} from './scans.schema.ts';

export type ScanArtifactRow = typeof scanArtifacts.$inferSelect;
export type ScanContentRow = typeof scanContents.$inferSelect;

export async function findScanArtifact(db: Executor, repositoryId: string, path: string) {
  const [row] = await db
    .select()
    .from(scanArtifacts)
    .where(and(eq(scanArtifacts.repositoryId, repositoryId), eq(scanArtifacts.path, path)))
    .limit(1);
  return row ?? null;
}

export async function scanArtifactsOf(db: Executor, repositoryId: string, paths?: string[]) {
  const where = paths
    ? and(eq(scanArtifacts.repositoryId, repositoryId), inArray(scanArtifacts.path, paths))
    : eq(scanArtifacts.repositoryId, repositoryId);
  return db.select().from(scanArtifacts).where(where);
}

/** A file queued for its scan: 'in progress' (its sha256 as the event told). */
export async function markInProgress(db: Executor, repositoryId: string, path: string, sha256: string) {
  await db
    .insert(scanArtifacts)
    .values({ repositoryId, path, sha256, status: 'in progress', error: null })
    .onConflictDoUpdate({
      target: [scanArtifacts.repositoryId, scanArtifacts.path],
      set: { sha256, status: 'in progress', error: null, requestedAt: sql`now()` },
    });
}

export async function setScanOutcome(
  db: Executor,
  row: { repositoryId: string; path: string; sha256: string; status: string; error: string | null; at: Date },
) {
  await db
    .insert(scanArtifacts)
    .values({
      repositoryId: row.repositoryId,
      path: row.path,
      sha256: row.sha256,
      status: row.status,
      error: row.error,
      scannedAt: row.at,
    })
    .onConflictDoUpdate({
      target: [scanArtifacts.repositoryId, scanArtifacts.path],
      set: { sha256: row.sha256, status: row.status, error: row.error, scannedAt: row.at },
    });
}

export async function dropScanArtifact(db: Executor, repositoryId: string, path: string) {
  await db
    .delete(scanArtifacts)
    .where(and(eq(scanArtifacts.repositoryId, repositoryId), eq(scanArtifacts.path, path)));
}

export async function findContent(db: Executor, sha256: string): Promise<ScanContentRow | null> {
  const [row] = await db.select().from(scanContents).where(eq(scanContents.sha256, sha256)).limit(1);
  return row ?? null;
}

export async function saveContent(
  db: Executor,
  row: {
    sha256: string;
    status: string;
    error: string | null;
    artifact: ExtractedArtifact | null;
    findings: ComponentFinding[];
    generation: number;
    at: Date;
  },
): Promise<ScanContentRow> {
  const values = {
    sha256: row.sha256,
    status: row.status,
    error: row.error,
    artifact: row.artifact,
    findings: row.findings,
    componentCount: row.artifact ? row.artifact.components.length + 1 : 0,
    generation: row.generation,
    extractedAt: row.at,
    matchedAt: row.at,
  };
  // The row as stored, in the same statement (issue 24: no read after the write).
  const [stored] = await db
    .insert(scanContents)
    .values(values)
    .onConflictDoUpdate({ target: scanContents.sha256, set: values })
    .returning();
  return stored!;
}

export async function setContentFindings(
  db: Executor,
  sha256: string,
  findings: ComponentFinding[],
  generation: number,
  at: Date,
) {
  await db
    .update(scanContents)
    .set({ findings, generation, matchedAt: at })
    .where(eq(scanContents.sha256, sha256));
}

/** Scanned contents matched against another generation, by sha256 after `after`, about `components` components a page. */
export async function staleContents(
  db: Executor,
  generation: number,
  after: string,
  limit: number,
): Promise<ScanContentRow[]> {
  return db
    .select()
    .from(scanContents)
    .where(
      and(
        eq(scanContents.status, 'scanned'),
        ne(scanContents.generation, generation),
        gt(scanContents.sha256, after),
      ),
    )
    .orderBy(asc(scanContents.sha256))
    .limit(limit);
}

/** Every stored file holding one of these contents. */
export async function artifactsHolding(db: Executor, sha256s: string[]): Promise<ScanArtifactRow[]> {
  if (sha256s.length === 0) return [];
  return db.select().from(scanArtifacts).where(inArray(scanArtifacts.sha256, sha256s));
}

/** A content no stored file holds any more is dropped with its SBOMs. */
export async function pruneContent(db: Executor, sha256: string) {
  await db.execute(sql`
    delete from ${scanContents} c where c.sha256 = ${sha256}
      and not exists (select 1 from ${scanArtifacts} a where a.sha256 = ${sha256})`);
  await db.execute(sql`
    delete from ${scanSboms} s where s.sha256 = ${sha256}
      and not exists (select 1 from ${scanArtifacts} a where a.sha256 = ${sha256})`);
}

// Indexed repositories ------------------------------------------------------------------------

export async function notIndexedIds(db: Executor): Promise<Set<string>> {
  const rows = await db.select({ id: scanNotIndexed.repositoryId }).from(scanNotIndexed);
  return new Set(rows.map((r) => r.id));
}

/** Replaces the list of repositories not indexed. */
export async function setNotIndexed(db: Db, ids: string[]) {
  await db.transaction(async (tx) => {
    await tx.delete(scanNotIndexed);
    if (ids.length > 0) await tx.insert(scanNotIndexed).values(ids.map((repositoryId) => ({ repositoryId })));
  });
}

// Custom licences -------------------------------------------------------------------------------

export const listCustomLicenses = (db: Executor) =>
  db.select().from(scanCustomLicenses).orderBy(asc(scanCustomLicenses.name));

export async function putCustomLicense(
  db: Executor,
  row: { name: string; fullName: string | null; url: string | null },
) {
  await db.execute(sql`delete from ${scanCustomLicenses} where lower(name) = lower(${row.name})`);
  await db.insert(scanCustomLicenses).values(row);
}

export async function deleteCustomLicense(db: Executor, name: string): Promise<boolean> {
  const gone = await db
    .delete(scanCustomLicenses)
    .where(sql`lower(${scanCustomLicenses.name}) = lower(${name})`)
    .returning({ name: scanCustomLicenses.name });
  return gone.length > 0;
}

// SBOM cache ------------------------------------------------------------------------------------

export async function findSbom(db: Executor, sha256: string, generation: number, format: string) {
  const [row] = await db
    .select({ document: scanSboms.document })
    .from(scanSboms)
    .where(
      and(eq(scanSboms.sha256, sha256), eq(scanSboms.generation, generation), eq(scanSboms.format, format)),
    )
    .limit(1);
  return row?.document ?? null;
}

export async function saveSbom(
  db: Executor,
  sha256: string,
  generation: number,
  format: string,
  document: string,
) {
  await db.delete(scanSboms).where(and(eq(scanSboms.sha256, sha256), eq(scanSboms.format, format)));
  await db.insert(scanSboms).values({ sha256, generation, format, document }).onConflictDoNothing();
}

// Console lists ---------------------------------------------------------------------------------

/** Scanned files with their contents, of the given repositories (the security issues and licences lists read them). */
export async function scannedWithContents(db: Executor, repositoryIds: string[]) {
  if (repositoryIds.length === 0) return [];
  return db
    .select({
      repositoryId: scanArtifacts.repositoryId,
      path: scanArtifacts.path,
      sha256: scanArtifacts.sha256,
      artifact: scanContents.artifact,
      findings: scanContents.findings,
    })
    .from(scanArtifacts)
    .innerJoin(scanContents, eq(scanContents.sha256, scanArtifacts.sha256))
    .where(and(inArray(scanArtifacts.repositoryId, repositoryIds), eq(scanArtifacts.status, 'scanned')));
}
