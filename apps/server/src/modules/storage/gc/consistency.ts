import type { StorageConsistencyReport } from '@granary/contracts';
import { sql } from 'drizzle-orm';
import type { Logger } from 'pino';
import { type BlobStore, HOLDERS, JSON_HOLDERS } from '../../../platform/blobs/index.ts';
import { type Db, queryRows } from '../../../platform/db/index.ts';

/**
 * The storage consistency check (issue 21): the blob store against the `blobs` table and the table
 * against its holders. What it may repair safely, it repairs (with `repair`):
 * - bytes in the store with no row: adopted as held by nothing (so the GC deletes them after the
 *   grace period — never at once: the grace is the margin for whatever put them there);
 * - rows whose bytes are gone and that nothing holds: removed;
 * - counts that disagree with a recount from the holder tables: set right, one row at a time under
 *   its lock (a concurrent change's trigger waits for it, then applies on top of the right count).
 * What it cannot repair it reports: artifacts whose bytes are gone (deploy the bytes again).
 */

const CHUNK = 1000;
const MAX_LISTED = 1000;

/** Every holder's rows as `SELECT sha256, size` parts of a UNION ALL (for one digest when `sha` is given). */
function holderRows(sha?: string) {
  const parts = [
    ...HOLDERS.map((h) =>
      sql.raw(
        `SELECT ${h.column} AS sha256, ${h.size ?? '0'}::bigint AS size FROM ${h.table}${sha ? ` WHERE ${h.column} = ` : ''}`,
      ),
    ),
    ...JSON_HOLDERS.map((h) =>
      sql.raw(
        `SELECT ${h.column} ->> '${h.key}' AS sha256, 0::bigint AS size FROM ${h.table} WHERE ${h.column} ? '${h.key}'${sha ? ` AND ${h.column} ->> '${h.key}' = ` : ''}`,
      ),
    ),
  ].map((part) => (sha ? sql`${part}${sha}` : part));
  return sql.join(parts, sql` UNION ALL `);
}

export async function checkConsistency(
  deps: { db: Db; blobs: BlobStore; log: Logger },
  opts: { repair: boolean; signal?: AbortSignal },
): Promise<StorageConsistencyReport> {
  const { db, blobs, log } = deps;
  const started = Date.now();
  const report: StorageConsistencyReport = {
    repair: opts.repair,
    orphanBlobs: 0,
    adoptedBlobs: 0,
    missingBlobs: 0,
    artifactsWithoutBytes: [],
    removedRows: 0,
    miscounted: 0,
    recounted: 0,
    unregistered: 0,
    durationMs: 0,
  };
  const stop = () => {
    if (opts.signal?.aborted) throw new Error('stopped: the server is shutting down');
  };

  // 1. Counts: a recount from every holder against the table (rows missing from it included).
  const off = await queryRows<{
    sha256: string;
    counted: number | null;
    actual: number;
    size: string | number;
  }>(
    db,
    sql`WITH actual AS (SELECT sha256, count(*)::int AS n, max(size) AS size FROM (${holderRows()}) h
          WHERE sha256 IS NOT NULL GROUP BY sha256)
        SELECT coalesce(b.sha256, a.sha256) AS sha256, b.ref_count AS counted, coalesce(a.n, 0) AS actual,
          coalesce(a.size, 0) AS size
        FROM blobs b FULL JOIN actual a ON a.sha256 = b.sha256
        WHERE b.sha256 IS NULL OR b.ref_count <> coalesce(a.n, 0)`,
  );
  for (const row of off) {
    stop();
    if (row.counted === null) report.unregistered += 1;
    else report.miscounted += 1;
    if (!opts.repair) continue;
    await db.transaction(async (tx) => {
      const t = tx as unknown as Db;
      await t.execute(
        sql`INSERT INTO blobs (sha256, size, ref_count, zero_since) VALUES (${row.sha256}, ${Number(row.size)}, 0, now())
            ON CONFLICT (sha256) DO NOTHING`,
      );
      await t.execute(sql`SELECT 1 FROM blobs WHERE sha256 = ${row.sha256} FOR UPDATE`);
      const [{ n } = { n: 0 }] = await queryRows<{ n: number }>(
        t,
        sql`SELECT count(*)::int AS n FROM (${holderRows(row.sha256)}) h`,
      );
      await t.execute(
        sql`UPDATE blobs SET ref_count = ${n},
              zero_since = CASE WHEN ${n}::int = 0 THEN coalesce(zero_since, now()) ELSE NULL END
            WHERE sha256 = ${row.sha256}`,
      );
    });
    report.recounted += 1;
  }

  // 2. The store against the table: bytes without a row (adopted), rows without bytes.
  const listed = new Set<string>();
  let chunk: string[] = [];
  const flush = async () => {
    if (chunk.length === 0) return;
    const known = new Set(
      (
        await queryRows<{ sha256: string }>(
          db,
          sql`SELECT sha256 FROM blobs WHERE sha256 IN (${sql.join(
            chunk.map((s) => sql`${s}`),
            sql`, `,
          )})`,
        )
      ).map((r) => r.sha256),
    );
    const orphans: { sha: string; size: number }[] = [];
    for (const sha of chunk) {
      if (known.has(sha)) continue;
      report.orphanBlobs += 1;
      if (!opts.repair) continue;
      const stat = await blobs.stat(sha);
      if (stat) orphans.push({ sha, size: stat.size });
    }
    chunk = [];
    if (orphans.length === 0) return;
    // Adopted as held by nothing since now: the GC takes them after the grace period.
    const adopted = await queryRows<{ sha256: string }>(
      db,
      sql`INSERT INTO blobs (sha256, size, ref_count, zero_since) VALUES ${sql.join(
        orphans.map((o) => sql`(${o.sha}, ${o.size}, 0, now())`),
        sql`, `,
      )} ON CONFLICT (sha256) DO NOTHING RETURNING sha256`,
    );
    report.adoptedBlobs += adopted.length;
  };
  for await (const sha of blobs.list()) {
    listed.add(sha);
    chunk.push(sha);
    if (chunk.length >= CHUNK) {
      stop();
      await flush();
    }
  }
  await flush();

  let after = '';
  for (;;) {
    stop();
    const rows = await queryRows<{ sha256: string; ref_count: number }>(
      db,
      sql`SELECT sha256, ref_count FROM blobs WHERE sha256 > ${after} ORDER BY sha256 LIMIT ${CHUNK}`,
    );
    if (rows.length === 0) break;
    after = rows.at(-1)!.sha256;
    for (const row of rows) {
      if (listed.has(row.sha256)) continue;
      // Listed before it was written? Ask the store again.
      if (await blobs.stat(row.sha256)) continue;
      if (row.ref_count === 0) {
        if (!opts.repair) {
          report.missingBlobs += 1;
          continue;
        }
        const removed = await queryRows<{ sha256: string }>(
          db,
          sql`DELETE FROM blobs WHERE sha256 = ${row.sha256} AND ref_count = 0 RETURNING sha256`,
        );
        report.missingBlobs += 1;
        report.removedRows += removed.length;
        continue;
      }
      // Held only by holds: a write in progress (its bytes come after its hold). Not a fault.
      const [held] = await queryRows<{ others: number }>(
        db,
        sql`SELECT (SELECT count(*)::int FROM (${holderRows(row.sha256)}) h) -
                   (SELECT count(*)::int FROM blob_holds WHERE sha256 = ${row.sha256}) AS others`,
      );
      if ((held?.others ?? 0) === 0) continue;
      report.missingBlobs += 1;
      if (report.artifactsWithoutBytes.length < MAX_LISTED) {
        const lost = await queryRows<{ key: string; path: string }>(
          db,
          sql`SELECT r.key, a.path FROM artifacts a JOIN repositories r ON r.id = a.repository_id
              WHERE a.sha256 = ${row.sha256} ORDER BY r.key, a.path LIMIT ${MAX_LISTED}`,
        );
        for (const a of lost)
          if (report.artifactsWithoutBytes.length < MAX_LISTED)
            report.artifactsWithoutBytes.push(`${a.key}/${a.path}`);
      }
    }
  }
  report.durationMs = Date.now() - started;
  log.info(
    { ...report, artifactsWithoutBytes: report.artifactsWithoutBytes.length },
    'storage consistency check',
  );
  return report;
}
