import type { ComponentQuery, Finding } from '../model.ts';
import { type NpmBulkAdvisory, npmAdvisory, npmRangeFromFixes, npmRangeOf } from './scan-view.ts';
import type { AdvisoryPort, ScanService } from './scans.service.ts';

/** Versions asked about at most in one audit (a lock file of thousands of packages fits). */
const MAX_QUERIES = 50_000;

/**
 * npm's bulk advisory endpoint (`POST /-/npm/v1/security/advisories/bulk`, issue 16): for each
 * package name the advisories affecting any of the versions asked, each once, with the affected
 * versions as a semver range built from the OSV record's ranges (what `npm audit` reports and fixes by).
 */
export async function npmBulk(
  advisories: AdvisoryPort,
  scans: Pick<ScanService, 'osvRecords'>,
  body: Record<string, string[]>,
): Promise<Record<string, NpmBulkAdvisory[]>> {
  const queries: ComponentQuery[] = [];
  for (const [name, versions] of Object.entries(body))
    for (const version of new Set(versions)) {
      if (queries.length >= MAX_QUERIES) break;
      queries.push({ ecosystem: 'npm', name, version });
    }
  if (queries.length === 0) return {};
  const results = await advisories.match(queries);
  const byName = new Map<string, Map<string, Finding>>();
  results.forEach((findings, i) => {
    const name = queries[i]!.name;
    for (const f of findings) {
      const seen = byName.get(name) ?? new Map<string, Finding>();
      seen.set(f.advisoryId, f);
      byName.set(name, seen);
    }
  });
  const ids = [...new Set([...byName.values()].flatMap((m) => [...m.keys()]))];
  const records = await scans.osvRecords(ids);
  const out: Record<string, NpmBulkAdvisory[]> = {};
  for (const [name, found] of byName) {
    out[name] = [...found.values()].map((f) => {
      const record = records.get(f.advisoryId);
      const range = (record && npmRangeOf(record, name)) ?? npmRangeFromFixes(f.fixedVersions);
      return npmAdvisory(f, range);
    });
  }
  return out;
}
