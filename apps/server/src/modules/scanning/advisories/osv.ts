import type { CustomIssue } from '@granary/contracts';
import cvssCalculator from 'ae-cvss-calculator';
import type { Finding } from '../model.ts';
import { baseEcosystem, comparatorFor, compareSemver, type VersionComparator } from '../versions/index.ts';

/**
 * The OSV schema (https://ossf.github.io/osv-schema/) as far as matching reads it, and its
 * `IsVulnerable` evaluation: explicit `versions`, and SEMVER / ECOSYSTEM ranges of `introduced`,
 * `fixed`, `last_affected` and `limit` events in the ecosystem's own version order (GIT ranges are
 * commits, not versions: ignored).
 */
export interface OsvEvent {
  introduced?: string;
  fixed?: string;
  last_affected?: string;
  limit?: string;
}
export interface OsvRange {
  type: string;
  events: OsvEvent[];
}
export interface OsvAffected {
  package?: { ecosystem?: string; name?: string; purl?: string };
  ranges?: OsvRange[];
  versions?: string[];
  ecosystem_specific?: Record<string, unknown>;
  database_specific?: Record<string, unknown>;
}
export interface OsvRecord {
  id: string;
  modified: string;
  published?: string;
  withdrawn?: string;
  aliases?: string[];
  summary?: string;
  details?: string;
  severity?: { type: string; score: string }[];
  affected?: OsvAffected[];
  references?: { type?: string; url: string }[];
  database_specific?: Record<string, unknown>;
}

/** Checks the parts of a record matching relies on; anything else is kept as it came. */
export function parseOsvRecord(value: unknown): OsvRecord {
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error('not a JSON object');
  const r = value as Record<string, unknown>;
  if (typeof r.id !== 'string' || r.id.length === 0 || r.id.length > 256) throw new Error('no id');
  if (typeof r.modified !== 'string' || Number.isNaN(Date.parse(r.modified)))
    throw new Error(`${r.id}: no valid modified`);
  if (r.withdrawn !== undefined && (typeof r.withdrawn !== 'string' || Number.isNaN(Date.parse(r.withdrawn))))
    throw new Error(`${r.id}: invalid withdrawn`);
  if (r.affected !== undefined && !Array.isArray(r.affected))
    throw new Error(`${r.id}: affected is not a list`);
  for (const a of (r.affected ?? []) as unknown[]) {
    if (!a || typeof a !== 'object') throw new Error(`${r.id}: an affected entry is not an object`);
    const ranges = (a as OsvAffected).ranges;
    if (
      ranges !== undefined &&
      (!Array.isArray(ranges) || ranges.some((x) => !x || !Array.isArray(x.events)))
    )
      throw new Error(`${r.id}: a range has no events`);
  }
  return value as OsvRecord;
}

/** An ecosystem's package name as the index keys it: PyPI per PEP 503, others as published. */
export function normaliseName(ecosystem: string, name: string): string {
  const base = baseEcosystem(ecosystem);
  if (base === 'PyPI') return name.toLowerCase().replace(/[-_.]+/g, '-');
  if (base === 'NuGet' || base === 'Go' || base === 'crates.io')
    return base === 'NuGet' ? name.toLowerCase() : name;
  return name;
}

/** Whether the advisory's ecosystem covers the component's: `Debian` matches any `Debian:*` and back; two releases must agree. */
export function ecosystemMatches(advisory: string, component: string): boolean {
  if (advisory === component) return true;
  if (baseEcosystem(advisory) !== baseEcosystem(component)) return false;
  return !advisory.includes(':') || !component.includes(':');
}

const isZero = (v: string): boolean => v === '0';

/** OSV's `IncludedInRanges` and `BeforeLimits` for one range, in `cmp`'s order. */
function inRange(version: string, range: OsvRange, cmp: VersionComparator): boolean {
  const limits = range.events.flatMap((e) => (e.limit !== undefined ? [e.limit] : []));
  if (limits.length > 0 && !limits.some((l) => l === '*' || cmp(version, l) < 0)) return false;
  const key = (e: OsvEvent) => e.introduced ?? e.fixed ?? e.last_affected ?? e.limit ?? '';
  const events = range.events
    .filter((e) => e.limit === undefined)
    .slice()
    .sort((a, b) => {
      const x = key(a);
      const y = key(b);
      if (isZero(x) && e0(a)) return isZero(y) && e0(b) ? 0 : -1;
      if (isZero(y) && e0(b)) return 1;
      return cmp(x, y);
    });
  let vulnerable = false;
  for (const e of events) {
    if (e.introduced !== undefined) {
      if (isZero(e.introduced) || cmp(version, e.introduced) >= 0) vulnerable = true;
    } else if (e.fixed !== undefined) {
      if (cmp(version, e.fixed) >= 0) vulnerable = false;
    } else if (e.last_affected !== undefined) {
      if (cmp(version, e.last_affected) > 0) vulnerable = false;
    }
  }
  return vulnerable;
}
const e0 = (e: OsvEvent): boolean => e.introduced !== undefined;

/**
 * Whether `version` of the package is affected by one `affected[]` entry (its package already
 * matched). Returns the fixed versions of the ranges that matched, or null when not affected.
 */
export function affectedBy(affected: OsvAffected, ecosystem: string, version: string): string[] | null {
  const fixed: string[] = [];
  let hit = (affected.versions ?? []).includes(version);
  const ecoCmp = comparatorFor(ecosystem);
  for (const range of affected.ranges ?? []) {
    const cmp = range.type === 'SEMVER' ? compareSemver : range.type === 'ECOSYSTEM' ? ecoCmp : undefined;
    if (!cmp) continue;
    if (inRange(version, range, cmp)) {
      hit = true;
      for (const e of range.events) if (e.fixed !== undefined) fixed.push(e.fixed);
    }
  }
  return hit ? fixed : null;
}

/** Whether the component (ecosystem, name, version) is affected by the record, and with which fixes. */
export function isVulnerable(
  record: OsvRecord,
  ecosystem: string,
  name: string,
  version: string,
): string[] | null {
  if (record.withdrawn) return null;
  const wanted = normaliseName(ecosystem, name);
  let result: string[] | null = null;
  for (const a of record.affected ?? []) {
    const pkg = a.package;
    if (!pkg?.ecosystem || !pkg.name) continue;
    if (!ecosystemMatches(pkg.ecosystem, ecosystem)) continue;
    if (normaliseName(pkg.ecosystem, pkg.name) !== wanted) continue;
    const fixed = affectedBy(a, ecosystem, version);
    if (fixed) result = [...(result ?? []), ...fixed];
  }
  return result ? [...new Set(result)] : null;
}

// -----------------------------------------------------------------------------------------------
// Severity

// A CommonJS package: its classes come from the default export under Node's ESM loader.
const { Cvss3P0, Cvss3P1, Cvss4P0 } = cvssCalculator;

export type Severity = Finding['severity'];

export function severityOfScore(score: number): Severity {
  if (score >= 9) return 'Critical';
  if (score >= 7) return 'High';
  if (score >= 4) return 'Medium';
  if (score > 0) return 'Low';
  return 'Unknown';
}

/** The base score of a CVSS v3.x or v4.0 vector, or null when it cannot be read. */
export function cvssScore(vector: string): number | null {
  try {
    const v = vector.trim();
    const calc = v.startsWith('CVSS:4.0/')
      ? new Cvss4P0(v)
      : v.startsWith('CVSS:3.1/')
        ? new Cvss3P1(v)
        : v.startsWith('CVSS:3.0/')
          ? new Cvss3P0(v)
          : null;
    const base = calc?.calculateScores().base;
    return typeof base === 'number' && Number.isFinite(base) ? base : null;
  } catch {
    return null;
  }
}

const WORDS: Record<string, Severity> = {
  CRITICAL: 'Critical',
  HIGH: 'High',
  MODERATE: 'Medium',
  MEDIUM: 'Medium',
  LOW: 'Low',
  NEGLIGIBLE: 'Low',
  UNIMPORTANT: 'Low',
};

function wordSeverity(value: unknown): Severity | null {
  return typeof value === 'string' ? (WORDS[value.trim().toUpperCase()] ?? null) : null;
}

/** A record's severity: from its CVSS v3/v4 vector (v4 preferred), else its own word for it, else Unknown. */
export function severityOf(record: OsvRecord): {
  severity: Severity;
  score: number | null;
  vector: string | null;
} {
  const vectors = [
    ...(record.severity ?? []),
    ...(record.affected ?? []).flatMap(
      (a) => (a as { severity?: { type: string; score: string }[] }).severity ?? [],
    ),
  ];
  const ranked = ['CVSS_V4', 'CVSS_V3'];
  for (const type of ranked) {
    for (const s of vectors) {
      if (s?.type !== type || typeof s.score !== 'string') continue;
      const score = cvssScore(s.score);
      if (score !== null) return { severity: severityOfScore(score), score, vector: s.score };
    }
  }
  const own =
    wordSeverity(record.database_specific?.severity) ??
    (record.affected ?? [])
      .map((a) => wordSeverity(a.ecosystem_specific?.severity) ?? wordSeverity(a.database_specific?.severity))
      .find((s) => s !== null) ??
    null;
  return { severity: own ?? 'Unknown', score: null, vector: null };
}

// -----------------------------------------------------------------------------------------------
// Custom issues

/** `>=1.0.0 <1.2.3`, `<=2.0`, `1.4.2` → one OSV range or an explicit version. */
export function customIssueToOsv(issue: CustomIssue, modified: string): OsvRecord {
  const affected: OsvAffected[] = issue.components.map((c) => {
    const versions: string[] = [];
    const ranges: OsvRange[] = [];
    for (const text of c.vulnerableVersions) {
      const parts = text
        .trim()
        .split(/\s*,\s*|\s+(?=[<>=])/)
        .filter(Boolean);
      if (parts.length === 1 && !/^[<>=]/.test(parts[0]!)) {
        if (!/^[0-9A-Za-z][0-9A-Za-z.+\-_:~]*$/.test(parts[0]!)) throw new InvalidRangeError(text);
        versions.push(parts[0]!);
        continue;
      }
      const events: OsvEvent[] = [];
      let introduced = false;
      for (const p of parts) {
        const m = /^(>=|>|<=|<|==?)\s*(.+)$/.exec(p);
        if (!m) throw new InvalidRangeError(text);
        const [, op, v] = m as unknown as [string, string, string];
        if (op === '>=') {
          events.push({ introduced: v });
          introduced = true;
        } else if (op === '<') events.push({ fixed: v });
        else if (op === '<=') events.push({ last_affected: v });
        else if (op === '=' || op === '==') versions.push(v);
        else throw new InvalidRangeError(text);
      }
      if (events.length > 0)
        ranges.push({ type: 'ECOSYSTEM', events: introduced ? events : [{ introduced: '0' }, ...events] });
    }
    if (c.vulnerableVersions.length === 0)
      ranges.push({
        type: 'ECOSYSTEM',
        events: [{ introduced: '0' }, ...c.fixedVersions.map((f) => ({ fixed: f }))],
      });
    for (const f of c.fixedVersions)
      for (const r of ranges) if (!r.events.some((e) => e.fixed === f)) r.events.push({ fixed: f });
    return { package: { ecosystem: c.ecosystem, name: c.name }, ranges, versions };
  });
  return {
    id: issue.id,
    modified,
    aliases: issue.cves,
    summary: issue.summary,
    ...(issue.description ? { details: issue.description } : {}),
    affected,
    database_specific: { severity: issue.severity, source: 'custom', custom: issue },
  };
}

export class InvalidRangeError extends Error {
  constructor(text: string) {
    super(`vulnerableVersions: '${text}' is not a version or a range such as '>=1.0.0 <1.2.3'`);
  }
}
