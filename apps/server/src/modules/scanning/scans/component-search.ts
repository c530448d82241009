import type { ComponentSearchRow } from '@granary/contracts';
import { and, desc, eq, inArray, or, sql } from 'drizzle-orm';
import type { Principal } from '../../../platform/http/access-control.ts';
import {
  listRepositoryHeads,
  mayRead,
  type RepositoriesContext,
  readableRepositories,
} from '../../repositories/repositories.api.ts';
import type { Component, ComponentFinding, ExtractedArtifact } from '../model.ts';
import { severityCounts } from './scan-view.ts';
import { scanArtifacts, scanContents } from './scans.schema.ts';
import type { ScanService } from './scans.service.ts';

/** Scanned files a search reads at most (the newest first): the rows beyond are not counted. */
export const SEARCH_MAX_ARTIFACTS = 2000;

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** `pkg:npm/…` → `npm`; the component's package type as the search answers it. */
const typeOfPurl = (purl: string) => /^pkg:([^/]+)\//.exec(purl)?.[1] ?? 'generic';

/**
 * The toolbar's "Xray security and compliance" search (issue 16, spec 001 §2, §7
 * `POST /xray/ui/component/paginatedsearch`, §9 20 rows a page by last_updated descending): every
 * component of a scanned file (the file's own package included) whose name or purl contains the query,
 * or that has an issue whose id or CVE contains it — among the files the caller may read. One row per
 * component and file.
 */
export async function searchComponents(
  scans: ScanService,
  repos: RepositoriesContext,
  principal: Principal | null,
  input: { query: string; page: number; pageSize: number },
): Promise<{ total: number; rows: ComponentSearchRow[] }> {
  const { db } = scans.deps;
  const q = input.query.trim().toLowerCase();
  const heads = await readableRepositories(repos.authorizer, principal, await listRepositoryHeads(db));
  if (heads.length === 0 || q === '') return { total: 0, rows: [] };
  const byId = new Map(heads.map((h) => [h.id, h]));
  const pattern = `%${escapeLike(q)}%`;
  // The database narrows to the files whose content names the query somewhere; the rows are cut here.
  const found = await db
    .select({
      repositoryId: scanArtifacts.repositoryId,
      path: scanArtifacts.path,
      scannedAt: scanArtifacts.scannedAt,
      matchedAt: scanContents.matchedAt,
      artifact: scanContents.artifact,
      findings: scanContents.findings,
    })
    .from(scanArtifacts)
    .innerJoin(scanContents, eq(scanContents.sha256, scanArtifacts.sha256))
    .where(
      and(
        inArray(scanArtifacts.repositoryId, [...byId.keys()]),
        eq(scanArtifacts.status, 'scanned'),
        or(
          sql`lower(${scanContents.artifact}::text) like ${pattern}`,
          sql`lower(${scanContents.findings}::text) like ${pattern}`,
        ),
      ),
    )
    .orderBy(desc(scanContents.matchedAt), scanArtifacts.repositoryId, scanArtifacts.path)
    .limit(SEARCH_MAX_ARTIFACTS);

  const rows: ComponentSearchRow[] = [];
  for (const f of found) {
    const head = byId.get(f.repositoryId)!;
    if (!f.artifact || !(await mayRead(repos.authorizer, principal, head, f.path))) continue;
    const at = [f.scannedAt, f.matchedAt].reduce<Date>(
      (a, b) => (b && b.getTime() > a.getTime() ? b : a),
      new Date(0),
    );
    for (const c of componentsOf(f.artifact)) {
      const own = f.findings.filter((x) => x.purl === c.purl);
      const issues = matchingIssues(own, q);
      const named = c.name.toLowerCase().includes(q) || c.purl.toLowerCase().includes(q);
      if (!named && issues.length === 0) continue;
      rows.push({
        componentId: c.purl,
        name: c.name,
        version: c.version,
        pkgType: typeOfPurl(c.purl),
        repoKey: head.key,
        path: f.path,
        vulnerabilities: severityCounts(own),
        issues,
        licenses: c.licenses,
        lastUpdated: at.toISOString(),
      });
    }
  }
  rows.sort(
    (a, b) =>
      b.lastUpdated.localeCompare(a.lastUpdated) ||
      a.repoKey.localeCompare(b.repoKey) ||
      a.path.localeCompare(b.path) ||
      a.componentId.localeCompare(b.componentId),
  );
  const start = (input.page - 1) * input.pageSize;
  return { total: rows.length, rows: rows.slice(start, start + input.pageSize) };
}

function componentsOf(artifact: ExtractedArtifact): Component[] {
  const seen = new Set<string>();
  return [artifact.root, ...artifact.components].filter((c) => !seen.has(c.purl) && seen.add(c.purl));
}

/** The component's issue ids and CVEs that contain the query (each issue's id first). */
function matchingIssues(findings: ComponentFinding[], q: string): string[] {
  const out = new Set<string>();
  for (const { finding } of findings) {
    const cves = finding.aliases.filter((a) => a.toLowerCase().includes(q));
    if (finding.advisoryId.toLowerCase().includes(q) || cves.length > 0) {
      out.add(finding.advisoryId);
      for (const cve of cves) out.add(cve);
    }
  }
  return [...out];
}
