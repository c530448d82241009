/**
 * Blob reference counting (issue 21 "Blob garbage collection").
 *
 * Every blob the database knows has a row in `blobs` (sha256, size, ref_count, zero_since). The count
 * is kept by Postgres itself — PGlite and PostgreSQL alike — in the same transaction as the change:
 * each table whose rows hold bytes in the blob store has an AFTER trigger calling the one function
 * `granary_blob_ref(column)` (migration 0027_issue21_blob_ref_triggers.sql). It handles INSERT (+1,
 * creating the `blobs` row when needed, size taken from the row's `size` column if it has one),
 * DELETE (-1; `zero_since` set when the count reaches 0) and UPDATE of the column (-1 old, +1 new).
 * A move (UPDATE of another column) changes nothing; a copy (a new row) is +1.
 *
 * HOW A TABLE BECOMES A BLOB HOLDER: in the migration that creates it (after 0027), one statement —
 *
 *   CREATE TRIGGER <table>_blob_ref AFTER INSERT OR DELETE OR UPDATE OF sha256 ON <table>
 *     FOR EACH ROW EXECUTE FUNCTION granary_blob_ref('sha256');
 *
 * (replace `sha256` both times by the column's name if it differs) — and, when the table already has
 * rows, a backfill in the same migration:
 *
 *   INSERT INTO blobs AS b (sha256, size, ref_count) SELECT sha256, max(size), count(*) FROM <table>
 *     GROUP BY sha256 ON CONFLICT (sha256) DO UPDATE SET ref_count = b.ref_count + EXCLUDED.ref_count,
 *     zero_since = NULL;
 *
 * and add the table to HOLDERS below (the consistency check recounts from it). Holders today:
 * `artifacts`, `release_bundle_files`, `blob_holds` (a writer between put() and its row; an OCI upload
 * session's first chunk; a release bundle being received), and `system_settings` (the custom logo: its
 * `value.sha256`, a jsonb key: `granary_blob_ref('value', 'sha256')` on `UPDATE OF value`). Not holders: `package_versions`, `build_run_items`, scan tables and
 * `blob_faults` name content by sha256 but hold no bytes of their own (they describe artifacts).
 *
 * THE RACE WITH DEDUPLICATION (a put of content already stored writes nothing): the writer takes a
 * hold (a `blob_holds` row, +1) after hashing and BEFORE the store decides whether the file exists
 * (`PutOptions.beforeStore`). The GC selects rows with ref_count 0 `FOR UPDATE SKIP LOCKED` and
 * deletes their bytes while holding those row locks, then the rows, in one transaction. So either
 *  - the hold's +1 committed first: the GC's locked re-read sees ref_count 1 and skips the blob; or
 *  - the GC locked the row first: the hold's upsert waits for the GC to commit, then creates a new row,
 *    and only then does the store look for the file — gone — and write it again.
 * In no order does a writer find the file, then see it deleted. The hold lasts until the writer's row
 * that references the bytes is committed (then `release()`), or lapses after `HOLD_TTL_SECS` when the
 * writer died; the grace period is only a second line of defence (ops: a blob copied by hand, etc.).
 */
import { sql } from 'drizzle-orm';
import { type Db, queryRows } from '../db/index.ts';
import type { BlobHold, BlobStore } from './types.ts';

/** Tables (and their sha256 column) whose rows hold bytes; the consistency check recounts from them. */
export const HOLDERS: { table: string; column: string; size: string | null }[] = [
  { table: 'artifacts', column: 'sha256', size: 'size' },
  { table: 'release_bundle_files', column: 'sha256', size: 'size' },
  { table: 'blob_holds', column: 'sha256', size: 'size' },
];

/** Holders whose sha256 sits under a key of a jsonb column (`granary_blob_ref('value', 'sha256')`). */
export const JSON_HOLDERS: { table: string; column: string; key: string }[] = [
  { table: 'system_settings', column: 'value', key: 'sha256' },
];

/** Registers another holder table (a module that owns one calls this at boot, e.g. the trash can). */
export function registerBlobHolder(table: string, column = 'sha256', size: string | null = 'size'): void {
  for (const name of [table, column, size ?? 'x'])
    if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a table/column name: ${name}`);
  if (!HOLDERS.some((h) => h.table === table && h.column === column)) HOLDERS.push({ table, column, size });
}

/** How long a writer's hold lasts when its owner never releases it (a crash between put and row). */
export const HOLD_TTL_SECS = 3600;

/** Takes a hold on `sha256` (creating its `blobs` row): +1 until released or `ttlSecs` passed. */
export async function takeBlobHold(
  db: Db,
  blob: { sha256: string; size: number },
  reason: string,
  ttlSecs = HOLD_TTL_SECS,
): Promise<BlobHold> {
  const rows = await queryRows<{ id: string }>(
    db,
    sql`
    INSERT INTO blob_holds (sha256, size, reason, expires_at)
    VALUES (${blob.sha256}, ${blob.size}, ${reason}, now() + make_interval(secs => ${ttlSecs}))
    RETURNING id`,
  );
  const id = rows[0]!.id;
  let released = false;
  return {
    id,
    release: async () => {
      if (released) return;
      released = true;
      await db.execute(sql`DELETE FROM blob_holds WHERE id = ${id}`);
    },
    releasedElsewhere: () => {
      released = true;
    },
  };
}

/**
 * Deletes the holds' rows in the caller's transaction (the one that writes the rows holding the same
 * content); once it commits, the caller tells each hold `releasedElsewhere()`.
 */
export async function deleteBlobHolds(tx: Pick<Db, 'execute'>, holds: readonly BlobHold[]): Promise<void> {
  if (holds.length === 0) return;
  await tx.execute(
    sql`DELETE FROM blob_holds WHERE id IN (${sql.join(
      holds.map((h) => sql`${h.id}`),
      sql`, `,
    )})`,
  );
}

/** Releases a hold by its id (an owner that kept only the id, e.g. across a restart). */
export async function releaseBlobHold(db: Db, id: string): Promise<void> {
  await db.execute(sql`DELETE FROM blob_holds WHERE id = ${id}`);
}

/**
 * The blob store with reference counting: every `put` holds its content (see the race above) from
 * before the store looks for an existing copy; the hold is handed back with the result for the caller
 * to release once its row is committed (else it lapses after `holdSecs`).
 */
export function countedBlobStore(store: BlobStore, db: Db): BlobStore {
  const counted: BlobStore = {
    kind: store.kind,
    put: async (source, expected, opts = {}) => {
      let hold: BlobHold | undefined;
      try {
        const result = await store.put(source, expected, {
          ...opts,
          beforeStore: async (info) => {
            hold = await takeBlobHold(db, info, opts.holdReason ?? 'put', opts.holdSecs ?? HOLD_TTL_SECS);
            await opts.beforeStore?.(info);
          },
        });
        return { ...result, hold };
      } catch (err) {
        await hold?.release().catch(() => {});
        throw err;
      }
    },
    stat: (sha256) => store.stat(sha256),
    get: (sha256, range) => store.get(sha256, range),
    delete: (sha256) => store.delete(sha256),
    quarantine: (sha256) => store.quarantine(sha256),
    list: () => store.list(),
    purgeTemp: () => store.purgeTemp(),
    close: () => store.close(),
  };
  const { openFile } = store;
  if (openFile) counted.openFile = (sha256) => openFile.call(store, sha256);
  return counted;
}
