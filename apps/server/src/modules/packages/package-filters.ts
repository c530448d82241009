import {
  canonicalPackageType,
  EXCLUDED_PACKAGE_TYPES,
  GRAPHQL_DEFAULT_PAGE_SIZE,
  isExcludedPackageType,
  packageNamePattern,
  parsePackageId,
  SEVERITIES,
  VULNERABILITY_SEVERITY_COUNT_MIN,
} from '@granary/contracts';
import { type SQL, sql } from 'drizzle-orm';
import { likePattern } from '../../platform/db/like-pattern.ts';
import { InvalidError } from '../../platform/errors.ts';
import { storedFileJoin } from '../repositories/repositories.api.ts';
import { packageVersions } from './packages.schema.ts';

/** `packages(...)` arguments (spec 001 §3, §7). */
export interface PackageFilter {
  packageId?: string | null;
  name?: string | null;
  lowercase_name?: string | null;
  description?: string | null;
  tags?: string[] | null;
  version?: string | null;
  checksum?: string | null;
  scope?: string | null;
  repos?: string[] | null;
  package_type?: string[] | null;
  licenses?: string[] | null;
  severities?: string[] | null;
  before?: string | null;
  after?: string | null;
  ignorePreRelease?: boolean | null;
  sort_by?: string | null;
  sort_type?: string | null;
  limit?: number | null;
  endCursor?: string | null;
}

/** `versions(...)` arguments (spec 001 §7). */
export interface VersionFilter {
  packageId: string;
  name?: string | null;
  repos?: string[] | null;
  cve?: string | null;
  severities?: string[] | null;
  licenses?: string[] | null;
  before?: string | null;
  after?: string | null;
  ignorePreRelease?: boolean | null;
  includeFiles?: boolean | null;
  sort?: string | null;
  sort_by?: string | null;
  sort_type?: string | null;
  limit?: number | null;
  endCursor?: string | null;
}

const MAX_PAGE = 1000;

export function pageSize(limit: number | null | undefined): number {
  if (limit === null || limit === undefined) return GRAPHQL_DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(limit) || limit < 1) throw new InvalidError('limit must be a positive integer');
  return Math.min(limit, MAX_PAGE);
}

/** An own key of a table of choices (`constructor` or `__proto__` are not choices). */
export function choiceOf<T>(name: string, table: Record<string, T>, value: string): T {
  if (!Object.hasOwn(table, value))
    throw new InvalidError(`${name} must be one of ${Object.keys(table).join(', ')}`);
  return table[value]!;
}

/** `{type}://{name}`, or the client's error. */
export function parsedPackageId(packageId: string) {
  const id = parsePackageId(packageId);
  if (!id) throw new InvalidError(`packageId '${packageId}' is not {type}://{name}`);
  return id;
}

/** A date filter: `yyyy-mm-dd` (spec 001 §5) or a full ISO timestamp. */
function dateOf(name: string, value: string | null | undefined): Date | null {
  if (!value) return null;
  const d = /^\d{4}-\d{2}-\d{2}$/.test(value) ? new Date(`${value}T00:00:00Z`) : new Date(value);
  if (Number.isNaN(d.getTime())) throw new InvalidError(`${name} must be a date (yyyy-mm-dd)`);
  return d;
}

function severitiesOf(list: string[] | null | undefined): string[] {
  const out = (list ?? []).map((s) => s.trim().toLowerCase()).filter((s) => s !== '');
  for (const s of out)
    if (!(SEVERITIES as readonly string[]).includes(s))
      throw new InvalidError(`Unknown severity '${s}': one of ${SEVERITIES.join(', ')}`);
  return out;
}

const list = (values: readonly string[]) =>
  sql.join(
    values.map((v) => sql`${v}`),
    sql`, `,
  );

/**
 * The one clause builder of both queries: `packages` filters package rows (`p`), `versions` version
 * rows (`v`) joined to theirs; the filters they share (repositories searched, licences, severities,
 * dates) read the columns given. Clauses are joined with `and`; a bad value is the client's error.
 */
class Clauses {
  readonly list: SQL[] = [];

  constructor(private readonly columns: { licenses: SQL; vulnerabilities: SQL; date: SQL }) {}

  add(clause: SQL): this {
    this.list.push(clause);
    return this;
  }

  /** The package rows of these repositories. */
  repositories(ids: string[]): this {
    return this.add(
      sql`p.repository_id in (${sql.join(
        ids.map((id) => sql`${id}::uuid`),
        sql`, `,
      )})`,
    );
  }

  /** Any of these licences. */
  licenses(licenses: string[] | null | undefined): this {
    if (licenses && licenses.length > 0)
      this.add(sql`jsonb_exists_any(${this.columns.licenses}, array[${list(licenses)}]::text[])`);
    return this;
  }

  /** Vulnerabilities of any of these severities. */
  severities(given: string[] | null | undefined): this {
    const severities = severitiesOf(given);
    if (severities.length > 0)
      this.add(
        sql`(${sql.join(
          severities.map(
            (s) =>
              sql`coalesce((${this.columns.vulnerabilities} ->> ${s})::int, 0) >= ${VULNERABILITY_SEVERITY_COUNT_MIN}`,
          ),
          sql` or `,
        )})`,
      );
    return this;
  }

  /** `before` and `after`, exclusive. */
  dates(beforeText: string | null | undefined, afterText: string | null | undefined): this {
    const before = dateOf('before', beforeText);
    const after = dateOf('after', afterText);
    if (before) this.add(sql`${this.columns.date} < ${before.toISOString()}::timestamptz`);
    if (after) this.add(sql`${this.columns.date} > ${after.toISOString()}::timestamptz`);
    return this;
  }
}

/**
 * The `where` clauses of `packages(...)` over package rows `p` in these repositories (null: every
 * repository, an admin's unfiltered list), or null when no package can match (only excluded types asked).
 */
export function packageClauses(f: PackageFilter, repositoryIds: string[] | null): SQL[] | null {
  const where = new Clauses({
    licenses: sql`p.licenses`,
    vulnerabilities: sql`p.vulnerabilities`,
    date: sql`p.modified_at`,
  });
  if (repositoryIds) where.repositories(repositoryIds);
  const types = (f.package_type ?? []).map(canonicalPackageType).filter((t) => !isExcludedPackageType(t));
  if ((f.package_type ?? []).length > 0) {
    if (types.length === 0) return null;
    where.add(sql`p.package_type in (${list(types)})`);
  } else
    where.add(
      sql`lower(p.package_type) not in (${list(EXCLUDED_PACKAGE_TYPES.map((t) => t.toLowerCase()))})`,
    );
  if (f.packageId) {
    const id = parsedPackageId(f.packageId);
    where.add(sql`p.package_type = ${id.packageType} and p.name = ${id.name}`);
  }
  const name = f.name ?? f.lowercase_name;
  if (name) {
    const pattern = likePattern(packageNamePattern(name.toLowerCase()));
    where.add(sql`lower(p.name) collate "C" like ${pattern}`);
  }
  if (f.scope) {
    const scope = f.scope.replace(/^@/, '').replace(/\/$/, '').toLowerCase();
    where.add(sql`lower(p.name) collate "C" like ${`@${likePattern(scope)}/%`}`);
  }
  if (f.description) where.add(sql`p.description ilike ${`%${likePattern(f.description)}%`}`);
  if (f.tags && f.tags.length > 0) where.add(sql`jsonb_exists_any(p.tags, array[${list(f.tags)}]::text[])`);
  where.licenses(f.licenses).severities(f.severities).dates(f.before, f.after);
  if (f.version)
    where.add(
      sql`exists (select 1 from ${packageVersions} v where v.package_id = p.id and v.version = ${f.version})`,
    );
  if (f.ignorePreRelease)
    where.add(sql`exists (select 1 from ${packageVersions} v where v.package_id = p.id and v.release)`);
  if (f.checksum) {
    // the lead file's stored checksums, read in the same statement (the repositories module's join)
    const lead = storedFileJoin(sql`p.repository_id`, sql`v.lead_path`);
    where.add(sql`exists (select 1 from ${packageVersions} v ${lead.join}
      where v.package_id = p.id and ${lead.checksumIs(f.checksum.toLowerCase())})`);
  }
  return where.list;
}

/** The `where` clauses of `versions(...)` over version rows `v` joined to their package rows `p`. */
export function versionClauses(
  f: VersionFilter,
  id: { packageType: string; name: string },
  repositoryIds: string[],
): SQL[] {
  const where = new Clauses({
    licenses: sql`v.licenses`,
    vulnerabilities: sql`v.vulnerabilities`,
    date: sql`v.created_at`,
  })
    .add(sql`p.package_type = ${id.packageType}`)
    .add(sql`p.name = ${id.name}`)
    .repositories(repositoryIds);
  if (f.name) where.add(sql`lower(v.version) like ${likePattern(packageNamePattern(f.name.toLowerCase()))}`);
  if (f.ignorePreRelease) where.add(sql`v.release`);
  if (f.cve) where.add(sql`jsonb_exists(v.cves, ${f.cve})`);
  where.severities(f.severities).licenses(f.licenses).dates(f.before, f.after);
  return where.list;
}
