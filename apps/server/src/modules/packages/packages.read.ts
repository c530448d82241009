import {
  canonicalPackageType,
  dropZeroCounts,
  EXCLUDED_PACKAGE_TYPES,
  GO_LEAD_FILE_EXTENSION_MAP,
  GRAPHQL_DEFAULT_PAGE_SIZE,
  HIDDEN_REPOSITORY_TYPES,
  installCommand,
  isExcludedPackageType,
  packageIdOf,
  packageNamePattern,
  parsePackageId,
  SEVERITIES,
  SPECIAL_PACKAGE_TYPES,
  sortDirection,
  VULNERABILITY_SEVERITY_COUNT_MIN,
} from '@granary/contracts';
import { type SQL, sql } from 'drizzle-orm';
import semver from 'semver';
import { z } from 'zod';
import { type Db, queryRows } from '../../platform/db/index.ts';
import type { Principal } from '../../platform/http/access-control.ts';
import { InvalidError } from '../../platform/http/errors.ts';
import type { Authorizer } from '../access/index.ts';
import { artifacts, repositories } from '../repositories/repositories.schema.ts';
import type { RepositoryClass } from '../repositories/repositories.service.ts';
import { packages, packageVersions, type SeverityCounts } from './packages.schema.ts';
import { latestOf } from './packages.service.ts';

/** A repository as the packages index sees it. */
export interface IndexRepo {
  id: string;
  key: string;
  rclass: string;
  packageType: string;
  /** a virtual repository's settings (its member keys) */
  settings?: unknown;
}

/** How deep virtual repositories nest when a `repos` filter names one. */
const VIRTUAL_DEPTH_MAX = 8;

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

export interface PackageNode {
  id: string;
  name: string;
  packageType: string;
  description: string;
  created: string;
  modified: string;
  versionsCount: number;
  latestVersion: string | null;
  stats: { downloads: number; followers: number };
  licenses: string[];
  tags: string[];
  repos: { name: string; type: string }[];
  vulnerabilities: SeverityCounts;
  operationalRisk: { riskLevel: string | null } | null;
}

export interface VersionNode {
  name: string;
  packageId: string;
  packageType: string;
  packageName: string;
  created: string;
  modified: string;
  description: string;
  repos: { name: string; type: string; leadFilePath: string; repositoryId: string }[];
  licenses: string[];
  size: number;
  stats: { downloadCount: number };
  vulnerabilities: SeverityCounts;
  operationalRisk: { riskLevel: string | null } | null;
  dependencies: { name: string; range?: string; scope?: string }[];
  release: boolean;
  includeFiles: boolean;
}

interface PackageRowRaw {
  id: string;
  repository_id: string;
  package_type: string;
  name: string;
  l: string;
  /** lead path of the latest version */
  latest_lead: string | null;
  description: string;
  latest_version: string | null;
  versions_count: number;
  tags: string[];
  licenses: string[];
  downloads: string | number;
  vulnerabilities: SeverityCounts;
  risk_level: string | null;
  created_at: string | Date;
  modified_at: string | Date;
}

export interface Connection<T> {
  edges: { cursor: string; node: T }[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
}

const MAX_PAGE = 1000;
/** A sort value as the database writes it as text: a timestamp (`2024-05-01 10:00:00.123456+00`), a count. */
const TIMESTAMP_TEXT = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}(:?\d{2})?)?$/;
const BIGINT_TEXT = /^-?\d{1,18}$/;
const REPO_LIST_TTL_MS = 1000;
const encodeCursor = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
/** A cursor this reader wrote, checked against its shape: anything else is the client's error, never a query's. */
function decodeCursor<T>(cursor: string | null | undefined, shape: z.ZodType<T>): T | null {
  if (!cursor) return null;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    value = undefined;
  }
  const parsed = shape.safeParse(value);
  if (!parsed.success) throw new InvalidError('endCursor is not a cursor of this query');
  return parsed.data;
}

const CURSOR_TEXT_MAX = 4096;
const cursorText = z.string().max(CURSOR_TEXT_MAX);
const packagesCursor = z.object({
  s: z.union([cursorText, z.number()]).optional(),
  l: cursorText,
  n: cursorText,
  t: cursorText,
});
const versionsCursor = z.object({ v: cursorText });

/** An own key of a table of choices (`constructor` or `__proto__` are not choices). */
function choiceOf<T>(name: string, table: Record<string, T>, value: string): T {
  if (!Object.hasOwn(table, value))
    throw new InvalidError(`${name} must be one of ${Object.keys(table).join(', ')}`);
  return table[value]!;
}

/** `*` and `?` wildcards (spec 001 §5) → a LIKE pattern, everything else literal. */
export function likePattern(pattern: string): string {
  return pattern
    .replace(/[\\%_]/g, (c) => `\\${c}`)
    .replace(/\*/g, '%')
    .replace(/\?/g, '_');
}

function pageSize(limit: number | null | undefined): number {
  if (limit === null || limit === undefined) return GRAPHQL_DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(limit) || limit < 1) throw new InvalidError('limit must be a positive integer');
  return Math.min(limit, MAX_PAGE);
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

/** Version names by semantic version; names that are not semver after those, by natural order. */
export function compareVersionNames(a: string, b: string): number {
  const va = semver.valid(a, { loose: true });
  const vb = semver.valid(b, { loose: true });
  if (va && vb) return semver.compare(va, vb, { loose: true }) || a.localeCompare(b);
  if (va) return 1;
  if (vb) return -1;
  return a.localeCompare(b, 'en', { numeric: true });
}

const iso = (d: Date | string) => (d instanceof Date ? d : new Date(d)).toISOString();

function unionSorted(lists: string[][]): string[] {
  return [...new Set(lists.flat())].sort();
}

function addCounts(into: SeverityCounts, from: SeverityCounts | null | undefined) {
  for (const s of SEVERITIES) {
    const n = from?.[s];
    if (typeof n === 'number' && n > 0) into[s] = (into[s] ?? 0) + n;
  }
}

/** Files of a version: the lead's whole folder for the types whose version is a folder, else the lead and its sidecars. */
function filesCondition(packageType: string, leadPath: string): SQL {
  const folder = leadPath.includes('/') ? leadPath.slice(0, leadPath.lastIndexOf('/') + 1) : '';
  if ((SPECIAL_PACKAGE_TYPES as readonly string[]).includes(packageType)) {
    const below = `${likePattern(folder)}%`;
    return sql`${artifacts.path} like ${below} and ${artifacts.path} not like ${`${below}/%`}`;
  }
  if (packageType === 'go') {
    // `{version}.zip`, `.mod` and `.info` side by side
    const stem = leadPath.replace(/\.[^./]+$/, '');
    return sql`${artifacts.path} in (${`${stem}.zip`}, ${`${stem}.mod`}, ${`${stem}.info`})`;
  }
  return sql`(${artifacts.path} = ${leadPath} or ${artifacts.path} like ${`${likePattern(leadPath)}.%`})`;
}

/**
 * The read side of the packages index: the GraphQL queries of spec 001 §3/§7, over the repositories
 * the caller can read (repository level, then each version's lead path).
 */
export class PackageReader {
  constructor(
    private readonly db: Db,
    private readonly authorizer: Authorizer,
  ) {}

  private repoList: { at: number; rows: Promise<IndexRepo[]> } | null = null;

  /** The repositories, read at most once a second (a new repository's packages show within that second). */
  private allRepos(): Promise<IndexRepo[]> {
    if (this.repoList && Date.now() - this.repoList.at < REPO_LIST_TTL_MS) return this.repoList.rows;
    const query = this.db
      .select({
        id: repositories.id,
        key: repositories.key,
        rclass: repositories.rclass,
        packageType: repositories.packageType,
        settings: repositories.settings,
      })
      .from(repositories);
    // a drizzle query runs on every `then`: keep the promise of one run
    const rows: Promise<IndexRepo[]> = (async () => query)();
    this.repoList = { at: Date.now(), rows };
    rows.catch(() => {
      this.repoList = null;
    });
    return rows;
  }

  /** Repositories whose packages the caller may see (hidden types left out). */
  async readableRepos(principal: Principal | null): Promise<IndexRepo[]> {
    const rows = await this.allRepos();
    const out: IndexRepo[] = [];
    for (const r of rows) {
      if ((HIDDEN_REPOSITORY_TYPES as readonly string[]).includes(r.packageType.toLowerCase())) continue;
      if (r.rclass === 'virtual') continue;
      if (
        await this.authorizer.can(principal, 'read', {
          key: r.key,
          rclass: r.rclass as RepositoryClass,
          path: '',
        })
      )
        out.push(r);
    }
    return out;
  }

  /** The repositories to search: readable ones, narrowed to `repos` when given (by key, case-insensitively; `{key}-cache` names a remote). */
  private async scope(principal: Principal | null, repos: string[] | null | undefined) {
    const readable = await this.readableRepos(principal);
    const all = principal?.admin === true && (!repos || repos.length === 0);
    if (!repos || repos.length === 0) return { repos: readable, all };
    const wanted = await this.expandVirtual(
      principal,
      repos.map((k) => k.toLowerCase().replace(/-cache$/, '')),
    );
    return { repos: readable.filter((r) => wanted.has(r.key.toLowerCase())), all: false };
  }

  /**
   * A virtual repository holds no packages of its own: naming one (that the caller may read) in a `repos`
   * filter stands for its members, nested virtual ones included. Members still need their own read.
   */
  private async expandVirtual(principal: Principal | null, keys: string[]): Promise<Set<string>> {
    const byKey = new Map((await this.allRepos()).map((r) => [r.key.toLowerCase(), r]));
    const wanted = new Set<string>();
    let next = keys;
    for (let depth = 0; next.length > 0 && depth <= VIRTUAL_DEPTH_MAX; depth++) {
      const members: string[] = [];
      for (const key of next) {
        if (wanted.has(key)) continue;
        wanted.add(key);
        const repo = byKey.get(key);
        if (repo?.rclass !== 'virtual') continue;
        const readable = await this.authorizer.can(principal, 'read', {
          key: repo.key,
          rclass: 'virtual',
          path: '',
        });
        const list = (repo.settings as { virtual?: { repositories?: unknown } } | null)?.virtual
          ?.repositories;
        if (readable && Array.isArray(list)) for (const m of list) members.push(String(m).toLowerCase());
      }
      next = members;
    }
    return wanted;
  }

  private async leadReadable(principal: Principal | null, repo: IndexRepo, leadPath: string) {
    if (principal?.admin) return true;
    return this.authorizer.can(principal, 'read', {
      key: repo.key,
      rclass: repo.rclass as RepositoryClass,
      path: leadPath,
    });
  }

  /** `packages(...)`: one entry per (type, name) over the readable repositories, cursor-paged. */
  async listPackages(principal: Principal | null, f: PackageFilter): Promise<Connection<PackageNode>> {
    const limit = pageSize(f.limit);
    const { repos, all } = await this.scope(principal, f.repos);
    if (repos.length === 0) return { edges: [], pageInfo: { hasNextPage: false, endCursor: null } };
    const byId = new Map(repos.map((r) => [r.id, r]));

    const where: SQL[] = [];
    if (!all)
      where.push(
        sql`p.repository_id in (${sql.join(
          repos.map((r) => sql`${r.id}::uuid`),
          sql`, `,
        )})`,
      );
    const types = (f.package_type ?? []).map(canonicalPackageType).filter((t) => !isExcludedPackageType(t));
    if ((f.package_type ?? []).length > 0) {
      if (types.length === 0) return { edges: [], pageInfo: { hasNextPage: false, endCursor: null } };
      where.push(
        sql`p.package_type in (${sql.join(
          types.map((t) => sql`${t}`),
          sql`, `,
        )})`,
      );
    } else
      where.push(
        sql`lower(p.package_type) not in (${sql.join(
          EXCLUDED_PACKAGE_TYPES.map((t) => sql`${t.toLowerCase()}`),
          sql`, `,
        )})`,
      );
    if (f.packageId) {
      const id = parsePackageId(f.packageId);
      if (!id) throw new InvalidError(`packageId '${f.packageId}' is not {type}://{name}`);
      where.push(sql`p.package_type = ${id.packageType} and p.name = ${id.name}`);
    }
    const name = f.name ?? f.lowercase_name;
    if (name) {
      const pattern = likePattern(packageNamePattern(name.toLowerCase()));
      where.push(sql`lower(p.name) collate "C" like ${pattern}`);
    }
    if (f.scope) {
      const scope = f.scope.replace(/^@/, '').replace(/\/$/, '').toLowerCase();
      where.push(sql`lower(p.name) collate "C" like ${`@${likePattern(scope)}/%`}`);
    }
    if (f.description) where.push(sql`p.description ilike ${`%${likePattern(f.description)}%`}`);
    if (f.tags && f.tags.length > 0)
      where.push(
        sql`jsonb_exists_any(p.tags, array[${sql.join(
          f.tags.map((t) => sql`${t}`),
          sql`, `,
        )}]::text[])`,
      );
    if (f.licenses && f.licenses.length > 0)
      where.push(
        sql`jsonb_exists_any(p.licenses, array[${sql.join(
          f.licenses.map((t) => sql`${t}`),
          sql`, `,
        )}]::text[])`,
      );
    const severities = severitiesOf(f.severities);
    if (severities.length > 0)
      where.push(
        sql`(${sql.join(
          severities.map(
            (s) => sql`coalesce((p.vulnerabilities ->> ${s})::int, 0) >= ${VULNERABILITY_SEVERITY_COUNT_MIN}`,
          ),
          sql` or `,
        )})`,
      );
    const before = dateOf('before', f.before);
    const after = dateOf('after', f.after);
    if (before) where.push(sql`p.modified_at < ${before.toISOString()}::timestamptz`);
    if (after) where.push(sql`p.modified_at > ${after.toISOString()}::timestamptz`);
    if (f.version)
      where.push(
        sql`exists (select 1 from ${packageVersions} v where v.package_id = p.id and v.version = ${f.version})`,
      );
    if (f.ignorePreRelease)
      where.push(sql`exists (select 1 from ${packageVersions} v where v.package_id = p.id and v.release)`);
    if (f.checksum) {
      const c = f.checksum.toLowerCase();
      where.push(sql`exists (select 1 from ${packageVersions} v join ${artifacts} a
        on a.repository_id = p.repository_id and a.path = v.lead_path
        where v.package_id = p.id and (a.sha256 = ${c} or a.sha1 = ${c} or a.md5 = ${c}))`);
    }

    const sortBy = f.sort_by ?? 'name';
    const dir = sortDirection(f.sort_type);
    const agg: Record<string, { expr: SQL; cast: SQL; value: RegExp } | null> = {
      name: null,
      created: { expr: sql`min(p.created_at)`, cast: sql`timestamptz`, value: TIMESTAMP_TEXT },
      modified: { expr: sql`max(p.modified_at)`, cast: sql`timestamptz`, value: TIMESTAMP_TEXT },
      downloads: { expr: sql`sum(p.downloads)::bigint`, cast: sql`bigint`, value: BIGINT_TEXT },
      versionsCount: { expr: sql`sum(p.versions_count)::bigint`, cast: sql`bigint`, value: BIGINT_TEXT },
    };
    const sortAgg = choiceOf('sort_by', agg, sortBy);
    const cursor = decodeCursor(f.endCursor, packagesCursor);
    // the sort value goes back into the query as its column's type: it must be one
    if (cursor && sortAgg && !sortAgg.value.test(String(cursor.s ?? '')))
      throw new InvalidError('endCursor is not a cursor of this query');
    const cmp = dir === 'ASC' ? sql`>` : sql`<`;
    const d = dir === 'ASC' ? sql`asc` : sql`desc`;
    const keyCols = Object.assign(
      sql`lower(p.name) collate "C", p.name collate "C", p.package_type collate "C"`,
      {
        d: (dir: SQL) =>
          sql`lower(p.name) collate "C" ${dir}, p.name collate "C" ${dir}, p.package_type collate "C" ${dir}`,
      },
    );

    const nodes: PackageNode[] = [];
    let hasNextPage = false;
    let after_: typeof cursor = cursor;
    // Non-admins may lose a package whose every version sits on a path they cannot read: fetch more.
    for (let round = 0; round < 20 && nodes.length <= limit; round++) {
      const conds = [...where];
      let having: SQL | undefined;
      if (after_) {
        if (!sortAgg) conds.push(sql`(${keyCols}) ${cmp} (${after_.l}, ${after_.n}, ${after_.t})`);
        else
          having = sql`(${sortAgg.expr}, ${keyCols}) ${cmp} (${after_.s}::${sortAgg.cast}, ${after_.l}, ${after_.n}, ${after_.t})`;
      }
      const want = limit + 1 - nodes.length;
      let keys: { l: string; n: string; t: string; s?: string | number | Date }[];
      let pkgRows: PackageRowRaw[];
      let exhausted: boolean;
      const whereSql = conds.length > 0 ? sql.join(conds, sql` and `) : sql`true`;
      if (!sortAgg) {
        // Name order: the rows themselves, straight off the name index; a package in several
        // repositories is several consecutive rows.
        const fetchN = want + 4;
        pkgRows = await queryRows<PackageRowRaw>(
          this.db,
          sql`select p.*, lower(p.name) collate "C" as l,
                (select lv.lead_path from ${packageVersions} lv where lv.package_id = p.id and lv.version = p.latest_version) as latest_lead
              from ${packages} p where ${whereSql}
              order by ${keyCols.d(d)} limit ${fetchN}`,
        );
        exhausted = pkgRows.length < fetchN;
        keys = [];
        for (const r of pkgRows) {
          const last = keys.at(-1);
          if (!last || last.n !== r.name || last.t !== r.package_type)
            keys.push({ l: r.l, n: r.name, t: r.package_type });
        }
        if (!exhausted && keys.length > 1) {
          const dropped = keys.pop()!; // possibly cut short: read again next round
          pkgRows = pkgRows.filter((r) => r.name !== dropped.n || r.package_type !== dropped.t);
        } else if (!exhausted) {
          const only = keys[0]!;
          pkgRows = await this.rowsOf([only], byId, all);
        }
      } else {
        keys = await queryRows<{ l: string; n: string; t: string; s?: string | number | Date }>(
          this.db,
          sql`select lower(p.name) collate "C" as l, p.name collate "C" as n, p.package_type collate "C" as t,
                (${sortAgg.expr})::text as s
              from ${packages} p where ${whereSql}
              group by 1, 2, 3
              ${having ? sql`having ${having}` : sql``}
              order by ${sortAgg.expr} ${d}, 1 ${d}, 2 ${d}, 3 ${d}
              limit ${want}`,
        );
        exhausted = keys.length < want;
        pkgRows = await this.rowsOf(keys, byId, all);
      }
      const built = await this.buildPackages(principal, pkgRows, byId, !!f.ignorePreRelease);
      for (const row of keys) {
        const node = built.get(`${row.t}\u0000${row.n}`);
        // the sort value as the database wrote it (microseconds kept), cast back in the next query
        const s = row.s instanceof Date ? row.s.toISOString() : row.s;
        const key = {
          ...(sortAgg ? { s: s === undefined ? undefined : String(s) } : {}),
          l: row.l,
          n: row.n,
          t: row.t,
        };
        if (node) {
          if (nodes.length === limit) {
            hasNextPage = true;
            break;
          }
          nodes.push(Object.assign(node, { _cursor: encodeCursor(key) }));
        }
        after_ = key;
      }
      if (hasNextPage || exhausted) break;
    }
    const edges = nodes.map((node) => {
      const { _cursor, ...rest } = node as PackageNode & { _cursor: string };
      return { cursor: _cursor, node: rest };
    });
    return { edges, pageInfo: { hasNextPage, endCursor: edges.at(-1)?.cursor ?? null } };
  }

  /** Every row of these (type, name) keys in the searched repositories (looked up by the name index). */
  private async rowsOf(
    keys: { l: string; n: string; t: string }[],
    byId: Map<string, IndexRepo>,
    all: boolean,
  ): Promise<PackageRowRaw[]> {
    if (keys.length === 0) return [];
    const rows = await queryRows<PackageRowRaw>(
      this.db,
      sql`select p.*, lower(p.name) collate "C" as l,
            (select lv.lead_path from ${packageVersions} lv where lv.package_id = p.id and lv.version = p.latest_version) as latest_lead
          from ${packages} p
          where lower(p.name) collate "C" in (${sql.join(
            [...new Set(keys.map((k) => k.l))].map((l) => sql`${l}`),
            sql`, `,
          )})
          ${
            all
              ? sql``
              : sql`and p.repository_id in (${sql.join(
                  [...byId.keys()].map((id) => sql`${id}::uuid`),
                  sql`, `,
                )})`
          }`,
    );
    const wanted = new Set(keys.map((k) => `${k.t}\u0000${k.n}`));
    return rows.filter((r) => wanted.has(`${r.package_type}\u0000${r.name}`) && byId.has(r.repository_id));
  }

  /** These package rows merged into packages by (type, name), with the caller's path checks. */
  private async buildPackages(
    principal: Principal | null,
    rows: PackageRowRaw[],
    byId: Map<string, IndexRepo>,
    releasesOnly: boolean,
  ): Promise<Map<string, PackageNode>> {
    const out = new Map<string, PackageNode>();
    rows = rows.filter((r) => byId.has(r.repository_id));
    if (rows.length === 0) return out;
    const groups = new Map<string, typeof rows>();
    for (const r of rows) {
      const k = `${r.package_type}\u0000${r.name}`;
      groups.set(k, [...(groups.get(k) ?? []), r]);
    }
    // Versions are read only when they change the answer: several repositories, path checks or releases only.
    const needVersions = rows.filter(
      (r) => releasesOnly || groups.get(`${r.package_type}\u0000${r.name}`)!.length > 1,
    );
    const versions = new Map<
      string,
      { version: string; lead_path: string; release: boolean; created_at: Date }[]
    >();
    if (needVersions.length > 0) {
      const vrows = await queryRows<{
        package_id: string;
        version: string;
        lead_path: string;
        release: boolean;
        created_at: string | Date;
      }>(
        this.db,
        sql`select package_id, version, lead_path, release, created_at from ${packageVersions}
            where package_id in (${sql.join(
              needVersions.map((r) => sql`${r.id}::uuid`),
              sql`, `,
            )})`,
      );
      for (const v of vrows) {
        const list = versions.get(v.package_id) ?? [];
        list.push({ ...v, created_at: new Date(v.created_at) });
        versions.set(v.package_id, list);
      }
    }
    for (const [k, group] of groups) {
      const first = group[0]!;
      let names: Set<string> | null = null;
      let visibleVersions: { version: string; createdAt: Date }[] = [];
      const usedRows: typeof rows = [];
      for (const r of group) {
        const list = versions.get(r.id);
        if (!list) {
          // One repository: the package is seen when its latest version's lead file is readable.
          if (
            !r.latest_lead ||
            (await this.leadReadable(principal, byId.get(r.repository_id)!, r.latest_lead))
          )
            usedRows.push(r);
          continue;
        }
        const repo = byId.get(r.repository_id)!;
        let any = false;
        for (const v of list) {
          if (releasesOnly && !v.release) continue;
          if (!(await this.leadReadable(principal, repo, v.lead_path))) continue;
          any = true;
          names ??= new Set();
          names.add(v.version);
          visibleVersions.push({ version: v.version, createdAt: v.created_at });
        }
        if (any) usedRows.push(r);
      }
      if (usedRows.length === 0) continue;
      const newest = usedRows.reduce((a, b) => (new Date(b.modified_at) > new Date(a.modified_at) ? b : a));
      const vulnerabilities: SeverityCounts = {};
      for (const r of usedRows) addCounts(vulnerabilities, r.vulnerabilities);
      let latest: string | null;
      if (names) {
        visibleVersions = visibleVersions.filter(
          (v, i, a) => a.findIndex((x) => x.version === v.version) === i,
        );
        latest = latestOf(visibleVersions);
      } else latest = first.latest_version;
      out.set(k, {
        id: packageIdOf(first.package_type, first.name),
        name: first.name,
        packageType: first.package_type,
        description: newest.description,
        created: iso(usedRows.map((r) => new Date(r.created_at)).reduce((a, b) => (a < b ? a : b))),
        modified: iso(newest.modified_at),
        versionsCount: names ? names.size : usedRows.reduce((n, r) => n + r.versions_count, 0),
        latestVersion: latest,
        stats: { downloads: usedRows.reduce((n, r) => n + Number(r.downloads), 0), followers: 0 },
        licenses: unionSorted(usedRows.map((r) => r.licenses)),
        tags: unionSorted(usedRows.map((r) => r.tags)),
        repos: usedRows.map((r) => {
          const repo = byId.get(r.repository_id)!;
          return { name: repo.key, type: repo.rclass };
        }),
        vulnerabilities: dropZeroCounts(vulnerabilities),
        operationalRisk: newest.risk_level ? { riskLevel: newest.risk_level } : null,
      });
    }
    return out;
  }

  /** `package(packageId)`: the package over every readable repository, or null. */
  async getPackage(principal: Principal | null, packageId: string): Promise<PackageNode | null> {
    const page = await this.listPackages(principal, { packageId, limit: 1 });
    return page.edges[0]?.node ?? null;
  }

  /** Every visible version of a package, merged across repositories, filtered. */
  private async allVersions(principal: Principal | null, f: VersionFilter): Promise<VersionNode[]> {
    const id = parsePackageId(f.packageId);
    if (!id) throw new InvalidError(`packageId '${f.packageId}' is not {type}://{name}`);
    const { repos } = await this.scope(principal, f.repos);
    if (repos.length === 0) return [];
    const byId = new Map(repos.map((r) => [r.id, r]));
    const conds: SQL[] = [
      sql`p.package_type = ${id.packageType}`,
      sql`p.name = ${id.name}`,
      sql`p.repository_id in (${sql.join(
        repos.map((r) => sql`${r.id}::uuid`),
        sql`, `,
      )})`,
    ];
    if (f.name)
      conds.push(sql`lower(v.version) like ${likePattern(packageNamePattern(f.name.toLowerCase()))}`);
    if (f.ignorePreRelease) conds.push(sql`v.release`);
    if (f.cve) conds.push(sql`jsonb_exists(v.cves, ${f.cve})`);
    const severities = severitiesOf(f.severities);
    if (severities.length > 0)
      conds.push(
        sql`(${sql.join(
          severities.map(
            (s) => sql`coalesce((v.vulnerabilities ->> ${s})::int, 0) >= ${VULNERABILITY_SEVERITY_COUNT_MIN}`,
          ),
          sql` or `,
        )})`,
      );
    if (f.licenses && f.licenses.length > 0)
      conds.push(
        sql`jsonb_exists_any(v.licenses, array[${sql.join(
          f.licenses.map((t) => sql`${t}`),
          sql`, `,
        )}]::text[])`,
      );
    const before = dateOf('before', f.before);
    const after = dateOf('after', f.after);
    if (before) conds.push(sql`v.created_at < ${before.toISOString()}::timestamptz`);
    if (after) conds.push(sql`v.created_at > ${after.toISOString()}::timestamptz`);
    const rows = await queryRows<{
      repository_id: string;
      version: string;
      description: string;
      licenses: string[];
      dependencies: { name: string; range?: string; scope?: string }[];
      lead_path: string;
      size: string | number;
      downloads: string | number;
      release: boolean;
      vulnerabilities: SeverityCounts;
      risk_level: string | null;
      created_at: string | Date;
      modified_at: string | Date;
    }>(
      this.db,
      sql`select p.repository_id, v.version, v.description, v.licenses, v.dependencies, v.lead_path, v.size,
            v.downloads, v.release, v.vulnerabilities, v.risk_level, v.created_at, v.modified_at
          from ${packageVersions} v join ${packages} p on p.id = v.package_id
          where ${sql.join(conds, sql` and `)}`,
    );
    const merged = new Map<string, VersionNode>();
    for (const r of rows) {
      const repo = byId.get(r.repository_id)!;
      if (!(await this.leadReadable(principal, repo, r.lead_path))) continue;
      const existing = merged.get(r.version);
      const entry = { name: repo.key, type: repo.rclass, leadFilePath: r.lead_path, repositoryId: repo.id };
      if (existing) {
        existing.repos.push(entry);
        existing.created = iso(
          new Date(Math.min(Date.parse(existing.created), new Date(r.created_at).getTime())),
        );
        existing.modified = iso(
          new Date(Math.max(Date.parse(existing.modified), new Date(r.modified_at).getTime())),
        );
        existing.stats.downloadCount += Number(r.downloads);
        existing.licenses = unionSorted([existing.licenses, r.licenses]);
        addCounts(existing.vulnerabilities, r.vulnerabilities);
        continue;
      }
      const vulnerabilities: SeverityCounts = {};
      addCounts(vulnerabilities, r.vulnerabilities);
      merged.set(r.version, {
        name: r.version,
        packageId: packageIdOf(id.packageType, id.name),
        packageType: id.packageType,
        packageName: id.name,
        created: iso(r.created_at),
        modified: iso(r.modified_at),
        description: r.description,
        repos: [entry],
        licenses: [...r.licenses].sort(),
        size: Number(r.size),
        stats: { downloadCount: Number(r.downloads) },
        vulnerabilities,
        operationalRisk: r.risk_level ? { riskLevel: r.risk_level } : null,
        dependencies: r.dependencies,
        release: r.release,
        includeFiles: !!f.includeFiles,
      });
    }
    for (const v of merged.values()) {
      v.vulnerabilities = dropZeroCounts(v.vulnerabilities);
      v.repos.sort((a, b) => a.name.localeCompare(b.name));
    }
    return [...merged.values()];
  }

  /** `versions(...)`: a package's versions, sorted (names by semantic version), cursor-paged. */
  async listVersions(principal: Principal | null, f: VersionFilter): Promise<Connection<VersionNode>> {
    const limit = pageSize(f.limit);
    const list = await this.allVersions(principal, f);
    const sortBy = f.sort_by ?? f.sort ?? 'name';
    const compare: Record<string, (a: VersionNode, b: VersionNode) => number> = {
      name: (a, b) => compareVersionNames(a.name, b.name),
      created: (a, b) => a.created.localeCompare(b.created) || compareVersionNames(a.name, b.name),
      modified: (a, b) => a.modified.localeCompare(b.modified) || compareVersionNames(a.name, b.name),
      downloads: (a, b) =>
        a.stats.downloadCount - b.stats.downloadCount || compareVersionNames(a.name, b.name),
      size: (a, b) => a.size - b.size || compareVersionNames(a.name, b.name),
    };
    const fn = choiceOf('sort_by', compare, sortBy);
    const sign = sortDirection(f.sort_type) === 'DESC' ? -1 : 1;
    list.sort((a, b) => sign * fn(a, b));
    const cursor = decodeCursor(f.endCursor, versionsCursor);
    let start = 0;
    if (cursor) {
      const at = list.findIndex((v) => v.name === cursor.v);
      start = at >= 0 ? at + 1 : list.length;
    }
    const page = list.slice(start, start + limit);
    const edges = page.map((node) => ({ cursor: encodeCursor({ v: node.name }), node }));
    return {
      edges,
      pageInfo: { hasNextPage: start + limit < list.length, endCursor: edges.at(-1)?.cursor ?? null },
    };
  }

  async getVersion(
    principal: Principal | null,
    packageId: string,
    name: string,
    repos?: string[] | null,
  ): Promise<VersionNode | null> {
    const list = await this.allVersions(principal, { packageId, repos, includeFiles: true });
    return list.find((v) => v.name === name) ?? null;
  }

  /** Files of a version in its first repository (checksums and mime types from the stored artifacts). */
  async filesOf(v: VersionNode) {
    const first = v.repos[0];
    if (!first) return [];
    // spec 001 §9: a Go version's lead file is its .zip, where the index may name the .mod
    const { from, to } = GO_LEAD_FILE_EXTENSION_MAP;
    const repo =
      v.packageType === 'go' && first.leadFilePath.endsWith(from)
        ? { ...first, leadFilePath: `${first.leadFilePath.slice(0, -from.length)}${to}` }
        : first;
    const rows = await this.db
      .select({
        path: artifacts.path,
        size: artifacts.size,
        md5: artifacts.md5,
        sha1: artifacts.sha1,
        sha256: artifacts.sha256,
        mimeType: artifacts.mimeType,
      })
      .from(artifacts)
      .where(
        sql`${artifacts.repositoryId} = ${repo.repositoryId} and ${filesCondition(v.packageType, repo.leadFilePath)}`,
      )
      .orderBy(artifacts.path)
      .limit(1000);
    return rows.map((r) => ({
      name: r.path.split('/').at(-1) ?? r.path,
      path: r.path,
      lead: r.path === repo.leadFilePath,
      size: r.size,
      md5: r.md5,
      sha1: r.sha1,
      sha256: r.sha256,
      mimeType: r.mimeType,
    }));
  }

  installCommandOf(v: VersionNode, withVersion: boolean): string | null {
    return installCommand(v.packageType, v.packageName, withVersion ? v.name : null);
  }
}
