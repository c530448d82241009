import { SPECIAL_PACKAGE_TYPES, sortDirection } from '@granary/contracts';
import { sql } from 'drizzle-orm';
import type { Db } from '../../platform/db/index.ts';
import type { Principal } from '../../platform/http/access-control.ts';
import type { Authorizer } from '../access/index.ts';
import { filesOfVersion, type RepositoryHead } from '../repositories/repositories.api.ts';
import {
  encodeCursor,
  type PackagesCursor,
  packagesAfter,
  packagesPaging,
  versionsStart,
} from './package-cursor.ts';
import {
  choiceOf,
  isRankedNameSearch,
  type NameRank,
  type PackageFilter,
  packageClauses,
  pageSize,
  parsedPackageId,
  type VersionFilter,
  versionClauses,
} from './package-filters.ts';
import {
  compareVersionNames,
  mergePackages,
  mergeVersions,
  type PackageNode,
  type VersionNode,
  type VersionSummary,
} from './package-merge.ts';
import { PackageVisibility } from './package-visibility.ts';
import {
  type PackageListRow,
  packageKeysInSortOrder,
  packageRowsInNameOrder,
  packageRowsMatchingAnywhere,
  packageRowsNamed,
  versionRowsWhere,
  versionSummaries,
} from './packages.queries.ts';

export type { PackageFilter, VersionFilter } from './package-filters.ts';
export { compareVersionNames, type PackageNode, type VersionNode } from './package-merge.ts';

export interface Connection<T> {
  edges: { cursor: string; node: T }[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
}

const noPage = <T>(): Connection<T> => ({ edges: [], pageInfo: { hasNextPage: false, endCursor: null } });
/** Reads of a `packages(...)` page: more are made while rows the caller cannot see left it short. */
const MAX_ROUNDS = 20;

type PackageKey = { l: string; n: string; t: string; s?: string | number | Date };

/**
 * The read side of the packages index: the GraphQL queries of spec 001 §3/§7, over the repositories
 * the caller can read (repository level, then each version's lead path). Filters become SQL in
 * `package-filters.ts`, pages continue through `package-cursor.ts`, what the caller may see is
 * `package-visibility.ts`, and rows of one package in several repositories merge in `package-merge.ts`.
 */
export class PackageReader {
  private readonly visibility: PackageVisibility;

  constructor(
    private readonly db: Db,
    authorizer: Authorizer,
    /** The clock the repository list's lifetime is measured on (epoch ms); tests move it. */
    now: () => number = Date.now,
  ) {
    this.visibility = new PackageVisibility(db, authorizer, now);
  }

  /** `packages(...)`: one entry per (type, name) over the readable repositories, cursor-paged. */
  async listPackages(principal: Principal | null, f: PackageFilter): Promise<Connection<PackageNode>> {
    const limit = pageSize(f.limit);
    const { repos, all } = await this.visibility.scope(principal, f.repos);
    if (repos.length === 0) return noPage();
    const byId = new Map(repos.map((r) => [r.id, r]));
    const repositoryIds = all ? null : repos.map((r) => r.id);
    const { sort, ascending, cursor } = packagesPaging(f);
    // A name search in name order lists its prefix matches first, then the others (see `NameRank`).
    let rank: NameRank | null = !sort && isRankedNameSearch(f) ? (cursor?.r ?? 0) : null;
    let where = packageClauses(f, repositoryIds, rank);
    if (!where) return noPage();

    const edges: Connection<PackageNode>['edges'] = [];
    let hasNextPage = false;
    let after: PackagesCursor | null = cursor;
    // Non-admins may lose a package whose every version sits on a path they cannot read: fetch more.
    for (let round = 0; round < MAX_ROUNDS && edges.length <= limit; round++) {
      const keyset = packagesAfter(after, sort, ascending);
      const conds = keyset.where ? [...where, keyset.where] : where;
      const whereSql = conds.length > 0 ? sql.join(conds, sql` and `) : sql`true`;
      const want = limit + 1 - edges.length;
      let keys: PackageKey[];
      let pkgRows: PackageListRow[];
      let exhausted: boolean;
      if (!sort) {
        // Name order: the rows themselves, straight off the name index; a package in several
        // repositories is several consecutive rows.
        const fetchN = want + 4;
        pkgRows =
          rank === 1
            ? await packageRowsMatchingAnywhere(this.db, whereSql, ascending, fetchN)
            : await packageRowsInNameOrder(this.db, whereSql, ascending, fetchN);
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
        } else if (!exhausted) pkgRows = await this.rowsOf([keys[0]!], byId, all);
      } else {
        keys = await packageKeysInSortOrder(this.db, whereSql, keyset.having, sort.expr, ascending, want);
        exhausted = keys.length < want;
        pkgRows = await this.rowsOf(keys, byId, all);
      }
      const built = await mergePackages(pkgRows, byId, {
        releasesOnly: !!f.ignorePreRelease,
        versionsOf: (ids) => this.versionsOf(ids),
        canRead: (repo, leadPath) => this.visibility.leadReadable(principal, repo, leadPath),
      });
      for (const row of keys) {
        const node = built.get(`${row.t}\u0000${row.n}`);
        // the sort value as the database wrote it (microseconds kept), cast back in the next query
        const s = row.s instanceof Date ? row.s.toISOString() : row.s;
        const key: PackagesCursor = {
          ...(sort ? { s: s === undefined ? undefined : String(s) } : {}),
          ...(rank === null ? {} : { r: rank }),
          l: row.l,
          n: row.n,
          t: row.t,
        };
        if (node) {
          if (edges.length === limit) {
            hasNextPage = true;
            break;
          }
          edges.push({ cursor: encodeCursor(key), node });
        }
        after = key;
      }
      if (hasNextPage) break;
      if (exhausted) {
        if (rank !== 0) break;
        // the prefix matches are all read: the other matches follow, from their start
        rank = 1;
        after = null;
        where = packageClauses(f, repositoryIds, rank) ?? [];
      }
    }
    return { edges, pageInfo: { hasNextPage, endCursor: edges.at(-1)?.cursor ?? null } };
  }

  /** Every row of these (type, name) keys in the searched repositories (looked up by the name index). */
  private async rowsOf(
    keys: { l: string; n: string; t: string }[],
    byId: Map<string, RepositoryHead>,
    all: boolean,
  ): Promise<PackageListRow[]> {
    if (keys.length === 0) return [];
    const rows = await packageRowsNamed(
      this.db,
      [...new Set(keys.map((k) => k.l))],
      all ? null : [...byId.keys()],
    );
    const wanted = new Set(keys.map((k) => `${k.t}\u0000${k.n}`));
    return rows.filter((r) => wanted.has(`${r.package_type}\u0000${r.name}`) && byId.has(r.repository_id));
  }

  /** The versions of these package rows, by package row. */
  private async versionsOf(packageIds: string[]): Promise<Map<string, VersionSummary[]>> {
    const versions = new Map<string, VersionSummary[]>();
    for (const v of await versionSummaries(this.db, packageIds)) {
      const list = versions.get(v.package_id) ?? [];
      list.push({ ...v, created_at: new Date(v.created_at) });
      versions.set(v.package_id, list);
    }
    return versions;
  }

  /** `package(packageId)`: the package over every readable repository, or null. */
  async getPackage(principal: Principal | null, packageId: string): Promise<PackageNode | null> {
    const page = await this.listPackages(principal, { packageId, limit: 1 });
    return page.edges[0]?.node ?? null;
  }

  /** Every visible version of a package, merged across repositories, filtered. */
  private async allVersions(principal: Principal | null, f: VersionFilter): Promise<VersionNode[]> {
    const id = parsedPackageId(f.packageId);
    const { repos } = await this.visibility.scope(principal, f.repos);
    if (repos.length === 0) return [];
    const byId = new Map(repos.map((r) => [r.id, r]));
    const rows = await versionRowsWhere(
      this.db,
      versionClauses(
        f,
        id,
        repos.map((r) => r.id),
      ),
    );
    return mergeVersions(rows, byId, id, {
      includeFiles: !!f.includeFiles,
      canRead: (repo, leadPath) => this.visibility.leadReadable(principal, repo, leadPath),
    });
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
    const start = versionsStart(list, f.endCursor);
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

  /**
   * Files of a version in its first repository (checksums and mime types from the stored artifacts):
   * the lead's whole folder for the types whose version is a folder, else the lead and its sidecars.
   */
  async filesOf(v: VersionNode) {
    const first = v.repos[0];
    if (!first) return [];
    const layout = (SPECIAL_PACKAGE_TYPES as readonly string[]).includes(v.packageType)
      ? 'folder'
      : 'sidecars';
    const rows = await filesOfVersion(this.db, first.repositoryId, first.leadFilePath, layout);
    return rows.map((r) => ({
      name: r.path.split('/').at(-1) ?? r.path,
      path: r.path,
      lead: r.path === first.leadFilePath,
      size: r.size,
      md5: r.md5,
      sha1: r.sha1,
      sha256: r.sha256,
      mimeType: r.mimeType,
    }));
  }
}
