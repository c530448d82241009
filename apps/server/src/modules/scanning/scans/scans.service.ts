import type { Readable } from 'node:stream';
import type { ScanStatus } from '@granary/contracts';
import { inArray } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { BlobStore } from '../../../platform/blobs/index.ts';
import type { Database, Db } from '../../../platform/db/index.ts';
import type { Executor, StoredEvent } from '../../../platform/events/index.ts';
import { enqueueJob, enqueueJobs, type Jobs } from '../../../platform/jobs/index.ts';
import {
  leadFilesAmong,
  leadPathOfVersion,
  leadPathsOfRepository,
  setVersionScanFacts,
  versionOfLeadFile,
} from '../../packages/packages.api.ts';
import {
  findArtifact,
  findRepository,
  listRepositoryHeads,
  type RepoConfig,
  type RepositoryHead,
} from '../../repositories/repositories.api.ts';
import { scanningAdvisories } from '../advisories/advisories.schema.ts';
import type { OsvRecord } from '../advisories/osv.ts';
import type {
  Component,
  ComponentFinding,
  ComponentQuery,
  ExtractedArtifact,
  ExtractResult,
  Finding,
  ScanListener,
  ScanRecord,
} from '../model.ts';
import { cveList, rootLicenses, sameFindings, severityCounts } from './scan-view.ts';
import {
  artifactsHolding,
  dropScanArtifact,
  findContent,
  findScanArtifact,
  markInProgress,
  notIndexedIds,
  pruneContent,
  type ScanContentRow,
  saveContent,
  setContentFindings,
  setScanOutcome,
  staleContents,
} from './scans.queries.ts';

export const SCAN_QUEUE = 'scanning.scan';
export const REMATCH_QUEUE = 'scanning.rematch';
export const TRIGGER_SUBSCRIBER = 'scanning.trigger';

/** What the advisory database offers the pipeline (`advisories/AdvisoryDatabase`). */
export interface AdvisoryPort {
  match(queries: ComponentQuery[]): Promise<Finding[][]>;
  generation(opts?: { cached?: boolean }): Promise<number>;
  onChanged(listener: () => Promise<void>): void;
}

/** The extractor (`components/extractArtifact`). */
export type Extractor = (input: {
  path: string;
  size: number;
  packageType: string;
  open(): Promise<Readable>;
  sibling?(path: string): Promise<{ size: number; open(): Promise<Readable> } | null>;
}) => Promise<ExtractResult>;

export interface ScansDeps {
  db: Db;
  blobs: BlobStore;
  log: Logger;
  now: () => number;
  jobs: Jobs;
  withLock: Database['withLock'];
  advisories: AdvisoryPort;
  extract: Extractor;
  /** After an image's manifest is extracted: attaches its SBOM as an OCI referrer (sbom/). */
  afterImageScan?: (scan: ScanRecord) => Promise<void>;
}

interface ScanJob {
  repositoryId: string;
  repoKey: string;
  path: string;
  /** scan now: read the file again even when its content was extracted before */
  force?: boolean;
}

/** Names of generic files that may be one of the archives the extractors read. */
const MAVEN_BINARY = /(?<!-sources|-javadoc|-tests)\.(jar|war|ear|aar)$/i;
const GENERIC_ARCHIVE = /\.(tgz|tar\.gz|tar|whl|jar|war|ear|aar|zip|pom)$/i;
/** Components matched per re-match round (one `match` call, one transaction of updates). */
const REMATCH_COMPONENTS = 20_000;
const ERROR_MAX = 2000;

/** The queries that match a component: its own name, and the source package an OS package came from. */
function queriesOf(c: Component): ComponentQuery[] {
  const own = { ecosystem: c.ecosystem, name: c.name, version: c.version };
  return c.source && (c.source.name !== c.name || c.source.version !== c.version)
    ? [own, { ecosystem: c.ecosystem, name: c.source.name, version: c.source.version }]
    : [own];
}

/**
 * Matches every component of several artifacts in one call: each artifact's findings (an advisory
 * once per component, even when it names both the binary and the source package).
 */
export async function matchArtifacts(
  advisories: AdvisoryPort,
  artifacts: ExtractedArtifact[],
): Promise<ComponentFinding[][]> {
  const queries: ComponentQuery[] = [];
  const owners: { artifact: number; purl: string }[] = [];
  artifacts.forEach((a, i) => {
    for (const c of [a.root, ...a.components])
      for (const q of queriesOf(c)) {
        queries.push(q);
        owners.push({ artifact: i, purl: c.purl });
      }
  });
  const results = queries.length > 0 ? await advisories.match(queries) : [];
  const out: ComponentFinding[][] = artifacts.map(() => []);
  const seen = artifacts.map(() => new Set<string>());
  results.forEach((findings, i) => {
    const owner = owners[i]!;
    for (const finding of findings) {
      const key = `${owner.purl}\u0000${finding.advisoryId}`;
      if (seen[owner.artifact]!.has(key)) continue;
      seen[owner.artifact]!.add(key);
      out[owner.artifact]!.push({ purl: owner.purl, finding });
    }
  });
  return out;
}

/** How long the list of repositories left out of scanning is kept on a node (other nodes' changes). */
const NOT_INDEXED_TTL_MS = 5_000;

/**
 * The scan pipeline (issue 16 "Scanning"): stored files of indexed repositories are queued on deploy
 * and remote caching (an outbox subscriber), read once per content (sha256), matched against the
 * advisory database, recorded, written into the packages index and handed to the listeners (the
 * policies); re-matched without reading when the database changes.
 */
export class ScanService {
  private readonly listeners: ScanListener[] = [];
  private notIndexed: { at: number; ids: Promise<Set<string>> } | null = null;

  constructor(readonly deps: ScansDeps) {}

  /** Called after each scan or re-match stored its record (the policies evaluate watches there). */
  onScan(listener: ScanListener): void {
    this.listeners.push(listener);
  }

  register(): void {
    const { jobs } = this.deps;
    jobs.subscribe({
      name: TRIGGER_SUBSCRIBER,
      types: [
        'artifact.deployed',
        'artifact.cached',
        'artifact.copied',
        'artifact.moved',
        'artifact.deleted',
      ],
      handle: (events) => this.onEvents(events),
    });
    jobs.queue<ScanJob>({
      name: SCAN_QUEUE,
      concurrency: 2,
      maxAttempts: 3,
      leaseMs: 120_000,
      handler: (job) => this.runScan(job),
    });
    jobs.queue<Record<string, never>>({
      name: REMATCH_QUEUE,
      concurrency: 1,
      maxAttempts: 5,
      leaseMs: 120_000,
      handler: async () => {
        await this.deps.withLock('scanning.rematch', () => this.rematch());
      },
    });
    this.deps.advisories.onChanged(async () => {
      await enqueueJob(this.deps.db, REMATCH_QUEUE, {}, { dedupeKey: 'rematch' });
    });
  }

  // -------------------------------------------------------------------------------------------
  // What is scanned

  /**
   * Whether a repository's files are scanned. Asked on every deploy and on downloads held for a
   * verdict: the list of repositories left out is read once per NOT_INDEXED_TTL_MS (issue 24); a change
   * here clears it at once (forgetIndexed), another node's shows within the TTL.
   */
  async isIndexed(repositoryId: string): Promise<boolean> {
    const now = Date.now();
    if (!this.notIndexed || now - this.notIndexed.at >= NOT_INDEXED_TTL_MS) {
      const ids = notIndexedIds(this.deps.db);
      this.notIndexed = { at: now, ids };
      ids.catch(() => {
        if (this.notIndexed?.ids === ids) this.notIndexed = null;
      });
    }
    return !(await this.notIndexed.ids).has(repositoryId);
  }

  /** Called when this node changed which repositories are indexed. */
  forgetIndexed(): void {
    this.notIndexed = null;
  }

  /**
   * A file the pipeline scans: a package version's lead file, or a generic archive. `leads`: the lead
   * files among a batch's paths, already read (`leadFilesOf`).
   */
  async scannable(
    repo: Pick<RepoConfig, 'id' | 'packageType'>,
    path: string,
    leads?: Set<string>,
  ): Promise<boolean> {
    if (repo.packageType === 'generic') return GENERIC_ARCHIVE.test(path);
    // A Maven version's lead file is its POM (declared dependencies); its binaries are scanned too,
    // for what only they hold (their own and shaded artifacts' pom.properties).
    if (repo.packageType === 'maven' && MAVEN_BINARY.test(path)) return true;
    if (leads) return leads.has(path);
    return (await versionOfLeadFile(this.deps.db, repo.id, path)) !== null;
  }

  /**
   * The lead files among the paths a batch of events stored, by repository id: one query per
   * repository with more than one such path (issue 24: an image push's manifest and layers, a Maven
   * deploy's POM, jar and checksums, each asked on its own before). A repository with one path is
   * absent: `scannable` asks for it alone.
   */
  private async leadFilesOf(events: StoredEvent[]): Promise<Map<string, Set<string>>> {
    const byRepo = new Map<string, Set<string>>();
    for (const event of events) {
      if (event.type === 'artifact.deleted') continue;
      const p = event.payload as Record<string, unknown>;
      if (typeof p.repo_key !== 'string' || typeof p.path !== 'string') continue;
      const repo = await findRepository(this.deps.db, p.repo_key);
      if (!repo || repo.rclass === 'virtual' || repo.packageType === 'generic') continue;
      const paths = byRepo.get(repo.id) ?? new Set<string>();
      paths.add(p.path);
      byRepo.set(repo.id, paths);
    }
    const leads = new Map<string, Set<string>>();
    for (const [id, paths] of byRepo)
      if (paths.size > 1 && (await this.isIndexed(id)))
        leads.set(id, await leadFilesAmong(this.deps.db, id, [...paths]));
    return leads;
  }

  /** The outbox subscriber: deploys and caches of indexed repositories queue scans; deletes drop them. */
  async onEvents(events: StoredEvent[]): Promise<void> {
    const leads = await this.leadFilesOf(events);
    for (const event of events) {
      const p = event.payload as Record<string, unknown>;
      const key = typeof p.repo_key === 'string' ? p.repo_key : null;
      const path = typeof p.path === 'string' ? p.path : null;
      if (
        event.type === 'artifact.moved' &&
        typeof p.source_repo_key === 'string' &&
        typeof p.source_path === 'string'
      )
        await this.forget(p.source_repo_key, p.source_path);
      if (!key || !path) continue;
      if (event.type === 'artifact.deleted') {
        await this.forget(key, path);
        continue;
      }
      const repo = await findRepository(this.deps.db, key);
      if (!repo || repo.rclass === 'virtual') continue;
      if (!(await this.isIndexed(repo.id)) || !(await this.scannable(repo, path, leads.get(repo.id))))
        continue;
      // The event names the content it stored (issue 24: no read of the row). Replaced or deleted
      // since, the job reads the file as it is then, and a deletion's own event comes after this one.
      const sha256 =
        typeof p.sha256 === 'string' ? p.sha256 : (await findArtifact(this.deps.db, repo.id, path))?.sha256;
      if (!sha256) continue;
      // These very bytes were scanned already (a download held for its verdict scans inline, before
      // its `artifact.cached` event arrives): a second scan would only show 'in progress' again.
      const scanned = await findScanArtifact(this.deps.db, repo.id, path);
      if (scanned?.status === 'scanned' && scanned.sha256 === sha256) continue;
      await this.queue(repo, [{ path, sha256 }]);
    }
  }

  private async forget(repoKey: string, path: string) {
    const repo = await findRepository(this.deps.db, repoKey);
    if (!repo) return;
    const row = await findScanArtifact(this.deps.db, repo.id, path);
    if (!row) return;
    await this.deps.db.transaction(async (tx) => {
      await dropScanArtifact(tx, repo.id, path);
      await pruneContent(tx, row.sha256);
    });
  }

  /** Marks files 'in progress' and queues their scans, in one transaction. */
  async queue(
    repo: Pick<RepoConfig, 'id' | 'key'>,
    files: { path: string; sha256: string }[],
    force = false,
  ) {
    for (let i = 0; i < files.length; i += 500) {
      const batch = files.slice(i, i + 500);
      await this.deps.db.transaction(async (tx) => {
        for (const f of batch) await markInProgress(tx, repo.id, f.path, f.sha256);
        await enqueueJobs(
          tx,
          SCAN_QUEUE,
          batch.map((f) => ({
            repositoryId: repo.id,
            repoKey: repo.key,
            path: f.path,
            ...(force ? { force } : {}),
          })),
        );
      });
    }
  }

  // -------------------------------------------------------------------------------------------
  // Scan now and scan status

  /** The files a scan-now or scan-status request names: one file, a version's lead file, or a repository's. */
  async filesOf(
    repo: RepoConfig,
    target: { type: 'artifact' | 'version' | 'repository'; path?: string; name?: string; version?: string },
  ): Promise<string[]> {
    if (target.type === 'artifact') return target.path ? [target.path] : [];
    if (target.type === 'version') {
      if (target.path) return [target.path];
      if (!target.name || !target.version) return [];
      const lead = await leadPathOfVersion(this.deps.db, repo.id, target.name, target.version);
      return lead ? [lead] : [];
    }
    return leadPathsOfRepository(this.deps.db, repo.id);
  }

  /** Queues a scan of each file that exists and the pipeline reads; their number. */
  async scanNow(repo: RepoConfig, paths: string[]): Promise<number> {
    const files: { path: string; sha256: string }[] = [];
    for (const path of paths) {
      const file = await findArtifact(this.deps.db, repo.id, path);
      if (file && (await this.scannable(repo, path))) files.push({ path, sha256: file.sha256 });
    }
    await this.queue(repo, files, true);
    return files.length;
  }

  /** Where a stored file stands (spec 001 §3 strings); null when it is not a file the pipeline scans. */
  async scanState(
    repositoryId: string,
    path: string,
  ): Promise<{ status: ScanStatus; scannedAt: Date | null; error: string | null } | null> {
    const row = await findScanArtifact(this.deps.db, repositoryId, path);
    if (row) return { status: row.status as ScanStatus, scannedAt: row.scannedAt, error: row.error };
    const lead = await versionOfLeadFile(this.deps.db, repositoryId, path);
    return lead ? { status: 'not scanned', scannedAt: null, error: null } : null;
  }

  /** One status for several files: in progress while one is; else scanned when one is; else the first's. */
  async combinedState(repositoryId: string, paths: string[]) {
    const states: { status: ScanStatus; scannedAt: Date | null }[] = [];
    for (const p of paths) {
      const s = await this.scanState(repositoryId, p);
      if (s) states.push(s);
    }
    const pick = (status: ScanStatus) => states.find((s) => s.status === status);
    const chosen = pick('in progress') ?? pick('scanned') ?? states[0];
    const latest = states.map((s) => s.scannedAt?.getTime() ?? 0).reduce((a, b) => Math.max(a, b), 0);
    return {
      status: (chosen?.status ?? 'not scanned') as ScanStatus,
      scannedAt: latest > 0 ? new Date(latest) : null,
    };
  }

  // -------------------------------------------------------------------------------------------
  // The scan job

  async runScan(job: ScanJob): Promise<void> {
    const { db, blobs, log } = this.deps;
    const repo = await findRepository(db, job.repoKey);
    if (!repo || repo.id !== job.repositoryId) return;
    const file = await findArtifact(db, repo.id, job.path);
    if (!file) {
      await dropScanArtifact(db, repo.id, job.path);
      return;
    }
    const generation = await this.deps.advisories.generation({ cached: true });
    let content = job.force ? null : await findContent(db, file.sha256);
    let fresh = false;
    if (!content || content.status === 'scan failed') {
      fresh = true;
      const at = new Date(this.deps.now());
      const folder = job.path.includes('/') ? job.path.slice(0, job.path.lastIndexOf('/') + 1) : '';
      let result: ExtractResult;
      try {
        result = await this.deps.extract({
          path: job.path,
          size: file.size,
          packageType: repo.packageType,
          open: async () => (await blobs.get(file.sha256)) as Readable,
          sibling: async (name) => {
            const other = await findArtifact(db, repo.id, `${folder}${name}`);
            return other
              ? { size: other.size, open: async () => (await blobs.get(other.sha256)) as Readable }
              : null;
          },
        });
      } catch (err) {
        const error = ((err as Error).message || String(err)).slice(0, ERROR_MAX);
        log.warn({ repo: repo.key, path: job.path, err: error }, 'scan failed');
        content = await saveContent(db, {
          sha256: file.sha256,
          status: 'scan failed',
          error,
          artifact: null,
          findings: [],
          generation,
          at,
        });
        result = { status: 'not supported' };
      }
      if (content?.status !== 'scan failed') {
        if (result.status === 'scanned') {
          const [findings] = await matchArtifacts(this.deps.advisories, [result.artifact]);
          content = await saveContent(db, {
            sha256: file.sha256,
            status: 'scanned',
            error: null,
            artifact: result.artifact,
            findings: findings ?? [],
            generation,
            at,
          });
        } else
          content = await saveContent(db, {
            sha256: file.sha256,
            status: 'not supported',
            error: null,
            artifact: null,
            findings: [],
            generation,
            at,
          });
      }
    } else if (content.status === 'scanned' && content.generation !== generation && content.artifact) {
      const [findings] = await matchArtifacts(this.deps.advisories, [content.artifact]);
      await setContentFindings(db, file.sha256, findings ?? [], generation, new Date(this.deps.now()));
      content = await findContent(db, file.sha256);
    }
    if (!content) return;
    const record = await this.record(repo, job.path, file.sha256, content);
    if (
      fresh &&
      record.status === 'scanned' &&
      this.deps.afterImageScan &&
      /(^|\/)manifest\.json$/.test(job.path)
    )
      await this.deps
        .afterImageScan(record)
        .catch((err: Error) =>
          log.warn({ repo: repo.key, path: job.path, err: err.message }, 'SBOM referrer not attached'),
        );
  }

  /** Stores a file's outcome, writes the packages index's facts and tells the listeners. */
  private async record(
    repo: Pick<RepositoryHead, 'id' | 'key' | 'packageType'>,
    path: string,
    sha256: string,
    content: ScanContentRow,
  ): Promise<ScanRecord> {
    const { db } = this.deps;
    const at = content.matchedAt;
    const findings = content.status === 'scanned' ? content.findings : [];
    await db.transaction(async (tx) => {
      await setScanOutcome(tx, {
        repositoryId: repo.id,
        path,
        sha256,
        status: content.status,
        error: content.error,
        at,
      });
      await this.writeFacts(tx, repo.id, path, content.artifact, findings);
    });
    const record: ScanRecord = {
      repositoryId: repo.id,
      repoKey: repo.key,
      packageType: repo.packageType,
      path,
      sha256,
      status: content.status as ScanRecord['status'],
      error: content.error,
      scannedAt: at,
      artifact: content.artifact,
      findings,
    };
    await this.tell(record);
    return record;
  }

  private async writeFacts(
    tx: Executor,
    repositoryId: string,
    path: string,
    artifact: ExtractedArtifact | null,
    findings: ComponentFinding[],
  ) {
    await setVersionScanFacts(tx, repositoryId, path, {
      vulnerabilities: severityCounts(findings),
      cves: cveList(findings),
      licenses: rootLicenses(artifact),
    });
  }

  private async tell(record: ScanRecord) {
    for (const listener of this.listeners) {
      try {
        await listener(record);
      } catch (err) {
        this.deps.log.error({ err, repo: record.repoKey, path: record.path }, 'a scan listener failed');
      }
    }
  }

  // -------------------------------------------------------------------------------------------
  // Re-match

  /**
   * Every scanned content matched against an older generation of the advisory database is matched
   * again from its stored components (no artifact is read), in rounds of about 20,000 components;
   * the files holding a content whose findings changed get new counts and their listeners are told.
   */
  async rematch(): Promise<{ contents: number; changed: number }> {
    const { db } = this.deps;
    const generation = await this.deps.advisories.generation();
    let heads: Map<string, RepositoryHead> | null = null;
    let after = '';
    let contents = 0;
    let changed = 0;
    for (;;) {
      const page = await staleContents(db, generation, after, 2000);
      if (page.length === 0) break;
      let round: ScanContentRow[] = [];
      let components = 0;
      const flush = async () => {
        if (round.length === 0) return;
        const results = await matchArtifacts(
          this.deps.advisories,
          round.map((c) => c.artifact!),
        );
        const at = new Date(this.deps.now());
        const differ: { content: ScanContentRow; findings: ComponentFinding[] }[] = [];
        await db.transaction(async (tx) => {
          for (const [i, content] of round.entries()) {
            const findings = results[i] ?? [];
            await setContentFindings(tx, content.sha256, findings, generation, at);
            if (!sameFindings(content.findings, findings)) differ.push({ content, findings });
          }
        });
        contents += round.length;
        if (differ.length > 0) {
          heads ??= new Map((await listRepositoryHeads(db)).map((h) => [h.id, h]));
          const holders = await artifactsHolding(
            db,
            differ.map((d) => d.content.sha256),
          );
          const bySha = new Map(differ.map((d) => [d.content.sha256, d]));
          for (const holder of holders) {
            const d = bySha.get(holder.sha256);
            const head = heads.get(holder.repositoryId);
            if (!d || !head || holder.status !== 'scanned') continue;
            changed += 1;
            await db.transaction((tx) =>
              this.writeFacts(tx, holder.repositoryId, holder.path, d.content.artifact, d.findings),
            );
            await this.tell({
              repositoryId: holder.repositoryId,
              repoKey: head.key,
              packageType: head.packageType,
              path: holder.path,
              sha256: holder.sha256,
              status: 'scanned',
              error: null,
              scannedAt: holder.scannedAt,
              artifact: d.content.artifact,
              findings: d.findings,
            });
          }
        }
        round = [];
        components = 0;
      };
      for (const content of page) {
        after = content.sha256;
        if (!content.artifact) continue;
        round.push(content);
        components += content.componentCount;
        if (components >= REMATCH_COMPONENTS) await flush();
      }
      await flush();
    }
    this.deps.log.info({ contents, changed, generation }, 'scans re-matched against the advisory database');
    return { contents, changed };
  }

  // -------------------------------------------------------------------------------------------
  // Reading

  /** The OSV records of advisory ids (npm audit's ranges). */
  async osvRecords(ids: string[]): Promise<Map<string, OsvRecord>> {
    if (ids.length === 0) return new Map();
    const rows = await this.deps.db
      .select({ id: scanningAdvisories.id, record: scanningAdvisories.record })
      .from(scanningAdvisories)
      .where(inArray(scanningAdvisories.id, ids));
    return new Map(rows.map((r) => [r.id, r.record as unknown as OsvRecord]));
  }
}
