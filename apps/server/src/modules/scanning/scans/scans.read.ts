import type {
  ArtifactScan,
  CustomLicense,
  IssueSeverity,
  ScanStatus,
  securityIssuesQuerySchema,
} from '@granary/contracts';
import type { z } from 'zod';
import { ConflictError, NotFoundError } from '../../../platform/errors.ts';
import type { Principal } from '../../../platform/http/access-control.ts';
import {
  authorize,
  findArtifact,
  findRepository,
  listRepositoryHeads,
  type RepoConfig,
  type RepositoriesContext,
  readableRepositories,
} from '../../repositories/repositories.api.ts';
import type { ComponentFinding, ExtractedArtifact } from '../model.ts';
import { toCycloneDx } from '../sbom/cyclonedx.ts';
import { toSpdx } from '../sbom/spdx.ts';
import {
  allComponents,
  artifactScanView,
  cvesOf,
  impactPath,
  severityRank,
  xrayComponentId,
  xrayStatus,
  xraySummary,
} from './scan-view.ts';
import {
  deleteCustomLicense,
  findContent,
  findSbom,
  findScanArtifact,
  listCustomLicenses,
  notIndexedIds,
  putCustomLicense,
  saveSbom,
  scannedWithContents,
  setNotIndexed,
} from './scans.queries.ts';
import type { ScanService } from './scans.service.ts';

type BlockedReason = (file: { repositoryId: string; path: string; sha256: string }) => Promise<string | null>;
type Target = { type: 'artifact' | 'version' | 'repository'; path?: string; name?: string; version?: string };
type SecurityIssuesQuery = z.infer<typeof securityIssuesQuerySchema>;

/** A UUID made of a content's sha256: the same content's SBOM keeps its serial number. */
const uuidOf = (sha256: string) =>
  `${sha256.slice(0, 8)}-${sha256.slice(8, 12)}-4${sha256.slice(13, 16)}-a${sha256.slice(17, 20)}-${sha256.slice(20, 32)}`;

/** The scans' reads and admin writes behind the routes: every read asks the caller's permission on the artifact. */
export class ScansReader {
  private blockedReason: BlockedReason | null = null;

  constructor(
    private readonly scans: ScanService,
    private readonly repos: RepositoriesContext,
    private readonly opts: { baseUrl?: string; toolVersion?: string } = {},
  ) {}

  /** The policies say why a file may not be downloaded (`blocked` of an artifact's scan). */
  useBlockedReason(reason: BlockedReason): void {
    this.blockedReason = reason;
  }

  private get db() {
    return this.scans.deps.db;
  }

  private async repoFor(principal: Principal | null, key: string, action: 'read' | 'write', path: string) {
    const repo = await findRepository(this.db, key);
    if (!repo) throw new NotFoundError(`Repository '${key}' not found`);
    await authorize(this.repos, principal, action, repo, path);
    return repo;
  }

  // Indexed repositories ---------------------------------------------------------------------------

  async indexedRepos() {
    const heads = (await listRepositoryHeads(this.db)).filter((h) => h.rclass !== 'virtual');
    const off = await notIndexedIds(this.db);
    const row = (h: (typeof heads)[number]) => ({ name: h.key, pkgType: h.packageType, type: h.rclass });
    const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
    return {
      indexed: heads
        .filter((h) => !off.has(h.id))
        .map(row)
        .sort(byName),
      notIndexed: heads
        .filter((h) => off.has(h.id))
        .map(row)
        .sort(byName),
    };
  }

  /** Only the named repositories are indexed from now on (new ones are, by default). */
  async setIndexed(names: string[]) {
    const heads = (await listRepositoryHeads(this.db)).filter((h) => h.rclass !== 'virtual');
    const wanted = new Set(names.map((n) => n.toLowerCase()));
    await setNotIndexed(
      this.db,
      heads.filter((h) => !wanted.has(h.key.toLowerCase())).map((h) => h.id),
    );
    this.scans.forgetIndexed();
    return this.indexedRepos();
  }

  // Scan status and scan now -------------------------------------------------------------------------

  async scanStatus(principal: Principal | null, repoKey: string, target: Target) {
    const repo = await this.repoFor(principal, repoKey, 'read', target.path ?? '');
    const paths = await this.scans.filesOf(repo, target);
    const state = await this.scans.combinedState(repo.id, paths);
    return { status: state.status, scannedAt: state.scannedAt?.toISOString() ?? null };
  }

  /** Queues the target's files; write permission (or admin) on the repository at the path. */
  async scanNow(principal: Principal | null, repoKey: string, target: Target): Promise<number> {
    const repo = await this.repoFor(principal, repoKey, 'write', target.path ?? '');
    if (!(await this.scans.isIndexed(repo.id)))
      throw new ConflictError(`Repository '${repo.key}' is not indexed for scanning`);
    const paths = await this.scans.filesOf(repo, target);
    if (paths.length === 0 && target.type !== 'repository') throw new NotFoundError('Nothing to scan there');
    return this.scans.scanNow(repo, paths);
  }

  /** Xray's `{componentID}`: `npm://name:version` — the version's lead file in every repository the caller may write. */
  async scanComponent(principal: Principal | null, componentId: string): Promise<number> {
    const m = /^([a-z0-9]+):\/\/(.+):([^:]+)$/.exec(componentId);
    if (!m) throw new NotFoundError(`Component '${componentId}' not found`);
    let n = 0;
    for (const head of await listRepositoryHeads(this.db)) {
      if (head.rclass === 'virtual') continue;
      const repo = await findRepository(this.db, head.key);
      if (!repo) continue;
      const paths = await this.scans.filesOf(repo, { type: 'version', name: m[2]!, version: m[3]! });
      if (paths.length === 0) continue;
      if (
        !(await this.repos.authorizer.can(principal, 'write', {
          key: repo.key,
          rclass: repo.rclass,
          path: paths[0]!,
        }))
      )
        continue;
      n += await this.scans.scanNow(repo, paths);
    }
    if (n === 0) throw new NotFoundError(`Component '${componentId}' not found`);
    return n;
  }

  async xrayStatus(principal: Principal | null, repoKey: string, path: string) {
    const repo = await this.repoFor(principal, repoKey, 'read', path);
    const state = await this.scans.scanState(repo.id, path);
    const status: ScanStatus = state?.status ?? 'not scanned';
    return {
      overall: {
        status: xrayStatus(status),
        time: (state?.scannedAt ?? new Date(this.scans.deps.now())).toISOString(),
      },
    };
  }

  // An artifact's scan ---------------------------------------------------------------------------------

  private async loaded(repo: RepoConfig, path: string) {
    const state = await this.scans.scanState(repo.id, path);
    if (!state) return null;
    const row = await findScanArtifact(this.db, repo.id, path);
    const content = row && state.status === 'scanned' ? await findContent(this.db, row.sha256) : null;
    return { state, sha256: row?.sha256 ?? null, content };
  }

  async artifactScan(principal: Principal | null, repoKey: string, path: string): Promise<ArtifactScan> {
    const repo = await this.repoFor(principal, repoKey, 'read', path);
    const found = await this.loaded(repo, path);
    if (!found) throw new NotFoundError(`'${repo.key}/${path}' is not a file that is scanned`);
    const sha256 = found.sha256 ?? (await findArtifact(this.db, repo.id, path))?.sha256;
    const blocked =
      this.blockedReason && sha256 ? await this.blockedReason({ repositoryId: repo.id, path, sha256 }) : null;
    return artifactScanView({
      blocked,
      repoKey: repo.key,
      path,
      status: found.state.status,
      error: found.state.error,
      scannedAt: found.state.scannedAt,
      artifact: found.content?.artifact ?? null,
      findings: found.content?.findings ?? [],
    });
  }

  async xraySummaries(principal: Principal | null, paths: string[]) {
    const artifacts: unknown[] = [];
    const errors: { identifier: string; error: string }[] = [];
    for (const full of paths) {
      const m = /^(?:default\/)?([^/]+)\/(.+)$/.exec(full);
      try {
        if (!m) throw new NotFoundError('Expected default/{repo}/{path}');
        const repo = await this.repoFor(principal, m[1]!, 'read', m[2]!);
        const found = await this.loaded(repo, m[2]!);
        if (!found?.content?.artifact || !found.sha256) throw new NotFoundError('Artifact was not scanned');
        artifacts.push(
          xraySummary({
            repoKey: repo.key,
            path: m[2]!,
            packageType: repo.packageType,
            sha256: found.sha256,
            artifact: found.content.artifact,
            findings: found.content.findings,
          }),
        );
      } catch (err) {
        errors.push({ identifier: full, error: (err as Error).message });
      }
    }
    return { artifacts: artifacts as Record<string, unknown>[], errors };
  }

  async impactPaths(
    principal: Principal | null,
    q: { repoKey: string; path: string; purl?: string; issueId?: string },
  ): Promise<{ paths: string[][] }> {
    const repo = await this.repoFor(principal, q.repoKey, 'read', q.path);
    const found = await this.loaded(repo, q.path);
    const artifact = found?.content?.artifact;
    if (!artifact) return { paths: [] };
    const purls = new Set<string>();
    if (q.purl) purls.add(q.purl);
    if (q.issueId)
      for (const f of found.content!.findings)
        if (f.finding.advisoryId === q.issueId || f.finding.aliases.includes(q.issueId)) purls.add(f.purl);
    return { paths: [...purls].map((p) => impactPath(artifact, p, `${repo.key}/${q.path}`)) };
  }

  // Lists over what the caller may read -----------------------------------------------------------------

  private async readable(principal: Principal | null) {
    const heads = await readableRepositories(
      this.repos.authorizer,
      principal,
      await listRepositoryHeads(this.db),
    );
    const rows = await scannedWithContents(
      this.db,
      heads.map((h) => h.id),
    );
    const keys = new Map(heads.map((h) => [h.id, h]));
    const out: {
      repoKey: string;
      path: string;
      artifact: ExtractedArtifact;
      findings: ComponentFinding[];
    }[] = [];
    for (const r of rows) {
      const head = keys.get(r.repositoryId);
      if (!head || !r.artifact) continue;
      if (
        !(await this.repos.authorizer.can(principal, 'read', {
          key: head.key,
          rclass: head.rclass,
          path: r.path,
        }))
      )
        continue;
      out.push({ repoKey: head.key, path: r.path, artifact: r.artifact, findings: r.findings });
    }
    return out;
  }

  async securityIssues(principal: Principal | null, query: SecurityIssuesQuery) {
    const issues = new Map<
      string,
      {
        issueId: string;
        cves: string[];
        summary: string;
        severity: IssueSeverity;
        cvssScore: number | null;
        artifacts: Set<string>;
        components: Set<string>;
        fixedVersions: Set<string>;
      }
    >();
    for (const a of await this.readable(principal))
      for (const { purl, finding } of a.findings) {
        let issue = issues.get(finding.advisoryId);
        if (!issue) {
          issue = {
            issueId: finding.advisoryId,
            cves: cvesOf(finding),
            summary: finding.summary,
            severity: finding.severity,
            cvssScore: finding.cvssScore,
            artifacts: new Set(),
            components: new Set(),
            fixedVersions: new Set(),
          };
          issues.set(finding.advisoryId, issue);
        }
        issue.artifacts.add(`${a.repoKey}/${a.path}`);
        issue.components.add(purl);
        for (const v of finding.fixedVersions) issue.fixedVersions.add(v);
      }
    const search = query.search?.toLowerCase();
    const rows = [...issues.values()]
      .filter((i) => !query.severity || i.severity === query.severity)
      .filter(
        (i) =>
          !search ||
          i.issueId.toLowerCase().includes(search) ||
          i.summary.toLowerCase().includes(search) ||
          i.cves.some((c) => c.toLowerCase().includes(search)) ||
          [...i.components].some((c) => c.toLowerCase().includes(search)),
      )
      .sort(
        (a, b) => severityRank(a.severity) - severityRank(b.severity) || a.issueId.localeCompare(b.issueId),
      );
    const start = (query.page - 1) * query.pageSize;
    return {
      total: rows.length,
      rows: rows.slice(start, start + query.pageSize).map((i) => ({
        issueId: i.issueId,
        cves: i.cves,
        summary: i.summary,
        severity: i.severity,
        cvssScore: i.cvssScore,
        artifacts: i.artifacts.size,
        components: [...i.components].sort(),
        fixedVersions: [...i.fixedVersions].sort(),
      })),
    };
  }

  /** Licence names found (spec 001 §7 "Licence names returns a list") with counts, and every custom licence. */
  async licenses(principal: Principal | null) {
    const custom = await listCustomLicenses(this.db);
    const customByLower = new Map(custom.map((c) => [c.name.toLowerCase(), c]));
    const found = new Map<string, { components: Set<string>; artifacts: Set<string> }>();
    for (const a of await this.readable(principal))
      for (const c of allComponents(a.artifact))
        for (const l of c.licenses.length > 0 ? c.licenses : ['Unknown']) {
          const entry = found.get(l) ?? { components: new Set(), artifacts: new Set() };
          entry.components.add(c.purl);
          entry.artifacts.add(`${a.repoKey}/${a.path}`);
          found.set(l, entry);
        }
    const rows = [...found].map(([name, e]) => ({
      name,
      fullName: customByLower.get(name.toLowerCase())?.fullName ?? null,
      custom: customByLower.has(name.toLowerCase()),
      components: e.components.size,
      artifacts: e.artifacts.size,
    }));
    for (const c of custom)
      if (!found.has(c.name))
        rows.push({ name: c.name, fullName: c.fullName, custom: true, components: 0, artifacts: 0 });
    return rows.sort((a, b) => a.name.localeCompare(b.name));
  }

  async putCustomLicense(body: CustomLicense): Promise<CustomLicense> {
    await putCustomLicense(this.db, {
      name: body.name,
      fullName: body.fullName ?? null,
      url: body.url ?? null,
    });
    return body;
  }

  async deleteCustomLicense(name: string) {
    if (!(await deleteCustomLicense(this.db, name)))
      throw new NotFoundError(`Custom licence '${name}' not found`);
  }

  /** A component's general data (purl, licences, issues) as the caller's readable scans found it. */
  async componentGeneral(principal: Principal | null, q: { purl?: string; component_id?: string }) {
    const wanted = q.purl ?? q.component_id;
    if (!wanted) throw new NotFoundError('Give purl or component_id');
    for (const a of await this.readable(principal))
      for (const c of allComponents(a.artifact)) {
        if (c.purl !== wanted && xrayComponentId(c) !== wanted) continue;
        const issues = a.findings
          .filter((f) => f.purl === c.purl)
          .map((f) => ({
            issueId: f.finding.advisoryId,
            cves: cvesOf(f.finding),
            summary: f.finding.summary,
            severity: f.finding.severity,
            fixedVersions: f.finding.fixedVersions,
          }));
        return {
          purl: c.purl,
          component_id: xrayComponentId(c),
          name: c.name,
          version: c.version,
          ecosystem: c.ecosystem,
          licenses: c.licenses,
          issues,
        };
      }
    throw new NotFoundError(`Component '${wanted}' not found`);
  }

  // SBOM --------------------------------------------------------------------------------------------------

  /** The stored file's SBOM, cached per (content, advisory generation, format); 404 until it is scanned. */
  async sbom(principal: Principal | null, repoKey: string, path: string, format: 'cyclonedx' | 'spdx') {
    const repo = await this.repoFor(principal, repoKey, 'read', path);
    const found = await this.loaded(repo, path);
    if (!found) throw new NotFoundError(`'${repo.key}/${path}' is not a file that is scanned`);
    if (!found.content?.artifact || !found.sha256)
      throw new NotFoundError(
        `'${repo.key}/${path}' has no SBOM: its scan status is '${found.state.status}'`,
      );
    const { sha256 } = found;
    const content = found.content;
    const cached = await findSbom(this.db, sha256, content.generation, format);
    if (cached) return { document: cached, format };
    const document = JSON.stringify(
      this.makeSbom(format, content.artifact!, content.findings, sha256, content.extractedAt),
    );
    await saveSbom(this.db, sha256, content.generation, format, document);
    return { document, format };
  }

  makeSbom(
    format: 'cyclonedx' | 'spdx',
    artifact: ExtractedArtifact,
    findings: ComponentFinding[],
    sha256: string,
    at: Date,
  ) {
    const meta = {
      uuid: uuidOf(sha256),
      sha256,
      timestamp: at,
      ...(this.opts.baseUrl ? { baseUrl: this.opts.baseUrl } : {}),
      ...(this.opts.toolVersion ? { toolVersion: this.opts.toolVersion } : {}),
    };
    return format === 'spdx' ? toSpdx(artifact, findings, meta) : toCycloneDx(artifact, findings, meta);
  }
}
