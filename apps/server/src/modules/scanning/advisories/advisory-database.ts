import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import {
  type AdvisoryImportResult,
  type AdvisoryStatus,
  type CustomIssue,
  customIssueSchema,
} from '@granary/contracts';
import { desc, eq, sql } from 'drizzle-orm';
import { ArchiveError, type ArchiveLimits } from '../../../platform/archives/bounded-archive.ts';
import { queryRows } from '../../../platform/db/index.ts';
import { ConflictError, InvalidError, NotFoundError, UpstreamError } from '../../../platform/errors.ts';
import { OutboundBlockedError } from '../../../platform/outbound/index.ts';
import type { Platform } from '../../../platform/platform.ts';
import type { ComponentQuery, Finding } from '../model.ts';
import { baseEcosystem } from '../versions/index.ts';
import {
  scanningAdvisories,
  scanningAdvisoryImports,
  scanningAdvisoryPackages,
  scanningAdvisoryState,
} from './advisories.schema.ts';
import {
  customIssueToOsv,
  InvalidRangeError,
  isVulnerable,
  normaliseName,
  type OsvRecord,
  parseOsvRecord,
  severityOf,
} from './osv.ts';
import { osvArchiveEntries } from './osv-archive.ts';

/** An OSV `all.zip`: a record per entry; the whole of OSV (every ecosystem) is well within these. */
export const OSV_ARCHIVE_LIMITS: ArchiveLimits = {
  entries: 2_000_000,
  entryBytes: 16 * 1024 * 1024,
  totalBytes: 64 * 1024 ** 3,
  ratio: 200,
  ratioFloor: 64 * 1024 * 1024,
};
/** The largest archive taken from a request body or a URL (kept in `$GRANARY_HOME/tmp` while read). */
export const OSV_ARCHIVE_MAX_BYTES = 8 * 1024 ** 3;

const WRITE_BATCH = 1_000;
/** …or fewer when their JSON passes this (real OSV records run to tens of kilobytes of details). */
const WRITE_BATCH_BYTES = 4 * 1024 * 1024;
const LOOKUP_BATCH = 20_000;
const MATCH_BATCH = 1_000;
const LOCK = 'scanning.advisories.write';

type Row = typeof scanningAdvisories.$inferInsert;

/** The columns and index rows of one record. */
function rowOf(
  record: OsvRecord,
  source: 'osv' | 'custom',
): { row: Row; packages: { ecosystem: string; name: string }[] } {
  const sev = severityOf(record);
  const packages = new Map<string, { ecosystem: string; name: string }>();
  for (const a of record.affected ?? []) {
    const eco = a.package?.ecosystem;
    const name = a.package?.name;
    if (typeof eco !== 'string' || typeof name !== 'string' || !eco || !name) continue;
    const p = { ecosystem: baseEcosystem(eco), name: normaliseName(eco, name) };
    packages.set(`${p.ecosystem}\u0000${p.name}`, p);
  }
  return {
    row: {
      id: record.id,
      source,
      modified: new Date(record.modified).toISOString(),
      published:
        record.published && !Number.isNaN(Date.parse(record.published))
          ? new Date(record.published).toISOString()
          : null,
      withdrawn: record.withdrawn ? new Date(record.withdrawn).toISOString() : null,
      summary: (record.summary ?? record.details ?? '').slice(0, 2000),
      aliases: Array.isArray(record.aliases) ? record.aliases.filter((a) => typeof a === 'string') : [],
      severity: sev.severity,
      cvssScore: sev.score,
      cvssVector: sev.vector,
      ecosystems: [...new Set([...packages.values()].map((p) => p.ecosystem))],
      record: record as unknown as Record<string, unknown>,
    },
    packages: [...packages.values()],
  };
}

type Tx = Parameters<Parameters<Platform['database']['db']['transaction']>[0]>[0];

/**
 * Writes a batch of imported records and their index rows: each statement takes the whole batch as
 * one JSON parameter (expanded with `jsonb_to_recordset`), so its cost does not grow with bound
 * parameters. An advisory that is an admin's custom issue is left as it is.
 */
async function writeBatch(
  tx: Tx,
  rows: { row: Row; packages: { ecosystem: string; name: string }[]; changed: boolean }[],
): Promise<void> {
  const records = JSON.stringify(
    rows.map(({ row }) => ({
      id: row.id,
      modified: row.modified,
      published: row.published,
      withdrawn: row.withdrawn,
      summary: row.summary,
      aliases: row.aliases,
      severity: row.severity,
      cvss_score: row.cvssScore,
      cvss_vector: row.cvssVector,
      ecosystems: row.ecosystems,
      record: row.record,
    })),
  );
  await tx.execute(
    sql`insert into scanning_advisories
          (id, source, modified, published, withdrawn, summary, aliases, severity, cvss_score, cvss_vector, ecosystems, record)
        select r.id, 'osv', r.modified, r.published, r.withdrawn, coalesce(r.summary, ''), coalesce(r.aliases, '[]'::jsonb),
               r.severity, r.cvss_score, r.cvss_vector, coalesce(r.ecosystems, '[]'::jsonb), r.record
          from jsonb_to_recordset(${records}::jsonb) as r(id text, modified timestamptz, published timestamptz,
               withdrawn timestamptz, summary text, aliases jsonb, severity text, cvss_score real, cvss_vector text,
               ecosystems jsonb, record jsonb)
        on conflict (id) do update set
          modified = excluded.modified, published = excluded.published, withdrawn = excluded.withdrawn,
          summary = excluded.summary, aliases = excluded.aliases, severity = excluded.severity,
          cvss_score = excluded.cvss_score, cvss_vector = excluded.cvss_vector, ecosystems = excluded.ecosystems,
          record = excluded.record, updated_at = now()
        where scanning_advisories.source = 'osv'`,
  );
  const changed = rows.filter((r) => r.changed).map((r) => r.row.id);
  if (changed.length > 0)
    await tx.execute(
      sql`delete from scanning_advisory_packages p
           using jsonb_array_elements_text(${JSON.stringify(changed)}::jsonb) as k(id)
           where p.advisory_id = k.id`,
    );
  const packages = rows.flatMap((r) => r.packages.map((p) => ({ e: p.ecosystem, n: p.name, a: r.row.id })));
  if (packages.length > 0)
    await tx.execute(
      sql`insert into scanning_advisory_packages (ecosystem, name, advisory_id)
          select k.e, k.n, k.a from jsonb_to_recordset(${JSON.stringify(packages)}::jsonb) as k(e text, n text, a text)
          on conflict do nothing`,
    );
}

const toFinding = (
  r: {
    id: string;
    aliases: string[];
    summary: string;
    severity: string;
    cvssScore: number | null;
    cvssVector: string | null;
    modified: string;
    record: OsvRecord;
  },
  fixed: string[],
): Finding => ({
  advisoryId: r.id,
  aliases: r.aliases,
  summary: r.summary,
  severity: r.severity as Finding['severity'],
  cvssScore: r.cvssScore,
  cvssVector: r.cvssVector,
  fixedVersions: fixed,
  references: (r.record.references ?? []).flatMap((x) => (typeof x?.url === 'string' ? [x.url] : [])),
  modified: new Date(r.modified).toISOString(),
});

/**
 * The OSV advisory database (issue 16 "Advisory database"): imports OSV archives incrementally (by
 * `modified`), keeps the admins' custom issues beside them, and matches components with OSV's
 * `IsVulnerable` in each ecosystem's version order. Every change that changed something bumps the
 * generation (in the database, so every node sees it) and, once committed, calls the listeners of
 * this node (the scan pipeline re-matches there, through its jobs).
 */
const GENERATION_TTL_MS = 2_000;

export class AdvisoryDatabase {
  private readonly listeners: (() => Promise<void>)[] = [];

  constructor(
    private readonly platform: Pick<Platform, 'database' | 'outbound' | 'config' | 'logging' | 'now'>,
  ) {}

  private get db() {
    return this.platform.database.db;
  }

  onChanged(listener: () => Promise<void>): void {
    this.listeners.push(listener);
  }

  private async changed(): Promise<void> {
    for (const l of this.listeners) {
      try {
        await l();
      } catch (err) {
        this.platform.logging.server.error({ err }, 'advisory database: a change listener failed');
      }
    }
  }

  /**
   * The database's generation. `cached`: read at most once per 2 s, for the stamp on each scan's
   * findings (every scan asks: issue 24) — a stamp older than the database only makes the re-match job
   * match those findings again, and the matching itself always reads the advisories as they are. The
   * re-match job reads it fresh: another node may have imported a moment ago.
   */
  async generation(opts: { cached?: boolean } = {}): Promise<number> {
    const now = Date.now();
    if (opts.cached && this.generationMemo && now - this.generationMemo.at < GENERATION_TTL_MS)
      return this.generationMemo.value;
    const [row] = await this.db.select().from(scanningAdvisoryState).where(eq(scanningAdvisoryState.id, 1));
    const value = row?.generation ?? 0;
    this.generationMemo = { at: now, value };
    return value;
  }

  private generationMemo: { at: number; value: number } | null = null;

  private bump(tx: Pick<typeof this.db, 'execute'>) {
    this.generationMemo = null;
    return tx.execute(
      sql`insert into scanning_advisory_state (id, generation) values (1, 1)
          on conflict (id) do update set generation = scanning_advisory_state.generation + 1`,
    );
  }

  // ---------------------------------------------------------------------------------------------
  // Import

  /**
   * Imports an OSV archive (`all.zip` of `{id}.json`). A request body or stream is kept in
   * `$GRANARY_HOME/tmp` under a name of ours while it is read; entry names are never paths. The
   * archive is read twice: once whole to check it (a bad archive changes nothing) and learn each
   * record's `modified`, then only the new and changed records are written, in batches.
   */
  async importArchive(
    source: Readable | Buffer,
    opts: { source: string; by: string | null },
  ): Promise<AdvisoryImportResult> {
    if (Buffer.isBuffer(source)) return this.importZip(source, opts);
    const file = await this.spool(source);
    try {
      return await this.importZip({ path: file }, opts);
    } finally {
      await rm(file, { force: true });
    }
  }

  /** Imports from a URL (through the outbound client: private addresses refused unless allow-listed) or a path on the server. */
  async importFrom(
    from: { url: string } | { path: string },
    by: string | null,
  ): Promise<AdvisoryImportResult> {
    if ('path' in from) {
      if (!path.isAbsolute(from.path)) throw new InvalidError('path: give an absolute path on the server');
      const info = await stat(from.path).catch(() => null);
      if (!info?.isFile()) throw new InvalidError(`path: no file at ${from.path}`);
      return this.importZip({ path: from.path }, { source: `path ${from.path}`, by });
    }
    let url: URL;
    try {
      url = new URL(from.url);
    } catch {
      throw new InvalidError('url: not a URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new InvalidError('url: only http and https URLs');
    let res: Awaited<ReturnType<Platform['outbound']['fetch']>>;
    try {
      res = await this.platform.outbound.fetch(url);
    } catch (err) {
      if (err instanceof OutboundBlockedError) throw new InvalidError(`url: ${err.message}`);
      throw new UpstreamError(`url: ${(err as Error).message}`);
    }
    if (!res.ok || !res.body) {
      await res.body?.cancel().catch(() => {});
      throw new UpstreamError(`url: ${url.origin}${url.pathname} answered ${res.status}`);
    }
    const file = await this.spool(Readable.fromWeb(res.body as unknown as WebReadableStream<Uint8Array>));
    try {
      return await this.importZip({ path: file }, { source: `url ${url.origin}${url.pathname}`, by });
    } finally {
      await rm(file, { force: true });
    }
  }

  private async spool(stream: Readable): Promise<string> {
    const dir = path.join(this.platform.config.home, 'tmp');
    await mkdir(dir, { recursive: true });
    const file = path.join(dir, `osv-import-${randomUUID()}.zip`);
    let bytes = 0;
    const counter = async function* (src: AsyncIterable<Buffer>) {
      for await (const chunk of src) {
        bytes += chunk.length;
        if (bytes > OSV_ARCHIVE_MAX_BYTES)
          throw new InvalidError(`the archive is larger than ${OSV_ARCHIVE_MAX_BYTES} bytes`);
        yield chunk;
      }
    };
    try {
      await pipeline(stream, counter, createWriteStream(file, { mode: 0o600 }));
    } catch (err) {
      await rm(file, { force: true });
      throw err;
    }
    return file;
  }

  private async importZip(
    zip: Buffer | { path: string },
    opts: { source: string; by: string | null },
  ): Promise<AdvisoryImportResult> {
    return this.platform.database.withLock(LOCK, async () => {
      // Pass 1: the whole archive, checked; each record's id and modified.
      const seen = new Map<string, { modified: number; entry: number }>();
      let skipped = 0;
      let entries = 0;
      for await (const entry of osvArchiveEntries(zip, OSV_ARCHIVE_LIMITS)) {
        entries++;
        if (!entry.name.endsWith('.json')) continue;
        const bytes = await entry.read();
        try {
          const record = parseOsvRecord(JSON.parse(bytes.toString('utf8')));
          seen.set(record.id, { modified: Date.parse(record.modified), entry: entry.index });
        } catch {
          skipped++;
        }
      }
      if (entries === 0) throw new ArchiveError('the archive has no entries');
      // Which of them are new or changed: the ids go as one JSON parameter per batch.
      const wanted = new Map<number, 'new' | 'changed'>();
      let unchanged = 0;
      const ids = [...seen.keys()];
      for (let i = 0; i < ids.length; i += LOOKUP_BATCH) {
        const chunk = ids.slice(i, i + LOOKUP_BATCH);
        const existing = await queryRows<{ id: string; modified_ms: string | number; source: string }>(
          this.db,
          sql`select a.id, floor(extract(epoch from a.modified) * 1000)::text as modified_ms, a.source
                from jsonb_array_elements_text(${JSON.stringify(chunk)}::jsonb) as k(id)
                join scanning_advisories a on a.id = k.id`,
        );
        const byId = new Map(existing.map((e) => [e.id, e]));
        for (const id of chunk) {
          const s = seen.get(id)!;
          const e = byId.get(id);
          if (!e) wanted.set(s.entry, 'new');
          else if (e.source === 'custom')
            skipped++; // an admin's custom issue of that id wins
          else if (Number(e.modified_ms) !== s.modified) wanted.set(s.entry, 'changed');
          else unchanged++;
        }
      }
      seen.clear();
      // Pass 2: write the new and changed records, a batch per statement (one JSON parameter each).
      let imported = 0;
      let updated = 0;
      const ecosystems: Record<string, number> = {};
      let batch: { row: Row; packages: { ecosystem: string; name: string }[]; changed: boolean }[] = [];
      let batchBytes = 0;
      const flush = async () => {
        if (batch.length === 0) return;
        const rows = batch;
        batch = [];
        batchBytes = 0;
        await this.db.transaction((tx) => writeBatch(tx, rows));
      };
      if (wanted.size > 0) {
        for await (const entry of osvArchiveEntries(zip, OSV_ARCHIVE_LIMITS)) {
          const kind = wanted.get(entry.index);
          if (!kind) continue;
          const bytes = await entry.read();
          const record = parseOsvRecord(JSON.parse(bytes.toString('utf8')));
          const r = rowOf(record, 'osv');
          batchBytes += bytes.length;
          batch.push({ ...r, changed: kind === 'changed' });
          if (kind === 'new') imported++;
          else updated++;
          for (const e of r.row.ecosystems ?? []) ecosystems[e] = (ecosystems[e] ?? 0) + 1;
          if (batch.length >= WRITE_BATCH || batchBytes >= WRITE_BATCH_BYTES) await flush();
        }
        await flush();
      }
      await this.db.transaction(async (tx) => {
        await tx.insert(scanningAdvisoryImports).values({
          source: opts.source,
          by: opts.by,
          imported,
          updated,
          unchanged,
          skipped,
          ecosystems,
        });
        if (imported + updated > 0) await this.bump(tx);
      });
      // Fresh statistics for the matcher's plans after a large change (PGlite has no autovacuum).
      if (imported + updated > 10_000)
        await this.db.execute(sql`analyze scanning_advisories, scanning_advisory_packages`);
      this.platform.logging.server.info(
        { source: opts.source, by: opts.by, imported, updated, unchanged, skipped },
        'advisory database: import done',
      );
      if (imported + updated > 0) await this.changed();
      return { imported, updated, unchanged, skipped, ecosystems };
    });
  }

  // ---------------------------------------------------------------------------------------------
  // Status

  async status(): Promise<AdvisoryStatus> {
    const counts = await queryRows<{ ecosystem: string; n: string | number }>(
      this.db,
      sql`select e.value as ecosystem, count(*) as n
            from scanning_advisories a, jsonb_array_elements_text(a.ecosystems) e
           where a.withdrawn is null group by e.value order by e.value`,
    );
    const [total] = await queryRows<{ n: string | number }>(
      this.db,
      sql`select count(*) as n from scanning_advisories where withdrawn is null`,
    );
    const [last] = await this.db
      .select()
      .from(scanningAdvisoryImports)
      .orderBy(desc(scanningAdvisoryImports.id))
      .limit(1);
    return {
      total: Number(total?.n ?? 0),
      ecosystems: Object.fromEntries(counts.map((c) => [c.ecosystem, Number(c.n)])),
      lastImport: last
        ? {
            at: last.at.toISOString(),
            source: last.source,
            imported: last.imported,
            updated: last.updated,
            by: last.by,
          }
        : null,
    };
  }

  // ---------------------------------------------------------------------------------------------
  // Matching

  /**
   * The findings of each query, in the queries' order: the candidate advisories are read in
   * batches by (base ecosystem, normalised name), then OSV's IsVulnerable runs in memory.
   */
  async match(queries: ComponentQuery[]): Promise<Finding[][]> {
    const keyOf = (q: ComponentQuery) =>
      `${baseEcosystem(q.ecosystem)}\u0000${normaliseName(q.ecosystem, q.name)}`;
    const keys = [...new Set(queries.map(keyOf))];
    type Candidate = Parameters<typeof toFinding>[0];
    const byKey = new Map<string, Candidate[]>();
    for (let i = 0; i < keys.length; i += MATCH_BATCH) {
      const chunk = keys.slice(i, i + MATCH_BATCH).map((k) => k.split('\u0000') as [string, string]);
      // One JSON parameter, whatever the batch's size (a list of bound tuples hits the engines' parameter
      // limits), driving the join: each key is looked up in the packages' primary key (as `(…) in (select …)`
      // the planner scanned every package per key, quadratic at 100,000 records).
      const keysJson = JSON.stringify(chunk.map(([e, n]) => ({ e, n })));
      const rows = await queryRows<{
        ecosystem: string;
        name: string;
        id: string;
        aliases: string[];
        summary: string;
        severity: string;
        cvss_score: number | null;
        cvss_vector: string | null;
        modified: string | Date;
        record: OsvRecord | string;
      }>(
        this.db,
        // Only the parts of the record matching and a finding read (not its details, often kilobytes).
        sql`select p.ecosystem, p.name, a.id, a.aliases, a.summary, a.severity, a.cvss_score, a.cvss_vector, a.modified,
                   jsonb_build_object('affected', a.record->'affected', 'references', a.record->'references') as record
              from jsonb_to_recordset(${keysJson}::jsonb) as k(e text, n text)
              join scanning_advisory_packages p on p.ecosystem = k.e and p.name = k.n
              join scanning_advisories a on a.id = p.advisory_id
             where a.withdrawn is null`,
      );
      for (const r of rows) {
        const k = `${r.ecosystem}\u0000${r.name}`;
        const list = byKey.get(k) ?? [];
        list.push({
          id: r.id,
          aliases: typeof r.aliases === 'string' ? JSON.parse(r.aliases) : r.aliases,
          summary: r.summary,
          severity: r.severity,
          cvssScore: r.cvss_score === null ? null : Number(r.cvss_score),
          cvssVector: r.cvss_vector,
          modified: r.modified instanceof Date ? r.modified.toISOString() : String(r.modified),
          record: typeof r.record === 'string' ? JSON.parse(r.record) : r.record,
        });
        byKey.set(k, list);
      }
    }
    return queries.map((q) => {
      const out: Finding[] = [];
      for (const c of byKey.get(keyOf(q)) ?? []) {
        const fixed = isVulnerable(c.record, q.ecosystem, q.name, q.version);
        if (fixed) out.push(toFinding(c, fixed));
      }
      return out;
    });
  }

  // ---------------------------------------------------------------------------------------------
  // Custom issues (spec 001 §7)

  async getCustomIssue(id: string): Promise<CustomIssue> {
    const [row] = await this.db.select().from(scanningAdvisories).where(eq(scanningAdvisories.id, id));
    if (row?.source !== 'custom') throw new NotFoundError(`No custom issue '${id}'`);
    return (row.record.database_specific as { custom: CustomIssue }).custom;
  }

  async listCustomIssues(): Promise<CustomIssue[]> {
    const rows = await this.db
      .select()
      .from(scanningAdvisories)
      .where(eq(scanningAdvisories.source, 'custom'));
    return rows.map((r) => (r.record.database_specific as { custom: CustomIssue }).custom);
  }

  /** Creates (`create`) or replaces a custom issue. */
  async saveCustomIssue(input: unknown, opts: { create: boolean; id?: string }): Promise<CustomIssue> {
    const parsed = customIssueSchema.safeParse(input);
    if (!parsed.success)
      throw new InvalidError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
    const issue = parsed.data;
    if (opts.id !== undefined && opts.id !== issue.id)
      throw new InvalidError('id: the body names another custom issue');
    let record: OsvRecord;
    try {
      record = customIssueToOsv(issue, new Date(this.platform.now()).toISOString());
    } catch (err) {
      if (err instanceof InvalidRangeError) throw new InvalidError(err.message);
      throw err;
    }
    const { row, packages } = rowOf(record, 'custom');
    row.severity = issue.severity;
    await this.platform.database.withLock(LOCK, () =>
      this.db.transaction(async (tx) => {
        const [existing] = await tx
          .select({ source: scanningAdvisories.source })
          .from(scanningAdvisories)
          .where(eq(scanningAdvisories.id, issue.id));
        if (opts.create && existing)
          throw new ConflictError(`An advisory or custom issue '${issue.id}' already exists`);
        if (!opts.create && existing?.source !== 'custom')
          throw new NotFoundError(`No custom issue '${issue.id}'`);
        if (existing) await tx.delete(scanningAdvisories).where(eq(scanningAdvisories.id, issue.id));
        await tx.insert(scanningAdvisories).values(row);
        if (packages.length > 0)
          await tx
            .insert(scanningAdvisoryPackages)
            .values(packages.map((p) => ({ ...p, advisoryId: issue.id })));
        await this.bump(tx);
      }),
    );
    await this.changed();
    return issue;
  }

  async deleteCustomIssue(id: string): Promise<void> {
    await this.platform.database.withLock(LOCK, () =>
      this.db.transaction(async (tx) => {
        const gone = await tx
          .delete(scanningAdvisories)
          .where(sql`${scanningAdvisories.id} = ${id} and ${scanningAdvisories.source} = 'custom'`)
          .returning({ id: scanningAdvisories.id });
        if (gone.length === 0) throw new NotFoundError(`No custom issue '${id}'`);
        await this.bump(tx);
      }),
    );
    await this.changed();
  }
}
