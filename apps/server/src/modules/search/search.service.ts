import {
  ARTIFACT_SEARCH_LIMIT,
  type ArtifactSearchAnswer,
  type ArtifactSearchKind,
  type ArtifactSearchRequest,
  HIDDEN_REPOSITORY_TYPES,
} from '@granary/contracts';
import { type SQL, sql } from 'drizzle-orm';
import { queryRows } from '../../platform/db/index.ts';
import type { Principal } from '../../platform/http/access-control.ts';
import { InvalidError } from '../../platform/http/errors.ts';
import { likePattern } from '../packages/packages.read.ts';
import { archiveEntries } from '../packages/packages.schema.ts';
import type { RepositoriesContext } from '../repositories/context.ts';
import { isInternalPath } from '../repositories/internal-paths.ts';
import { artifacts, repositories } from '../repositories/repositories.schema.ts';
import type { RepositoryClass } from '../repositories/repositories.service.ts';

interface SearchRepo {
  id: string;
  key: string;
  rclass: string;
  packageType: string;
}

interface Row {
  repository_id: string;
  path: string;
  size: string | number;
  modified_at: string | Date;
  sha256: string;
  entry?: string;
}

const hasWildcard = (s: string) => /[*?]/.test(s);
const HEX = /^[a-f0-9]+$/;

/**
 * Artifact search (quick, checksum, property, GAVC, archive entry): over the repositories the caller
 * can read, each hit checked at its own path; at most ARTIFACT_SEARCH_LIMIT results.
 */
export class ArtifactSearch {
  constructor(private readonly ctx: RepositoriesContext) {}

  private async repos(principal: Principal | null, keys: string[] | undefined): Promise<SearchRepo[]> {
    const rows = await this.ctx.db
      .select({
        id: repositories.id,
        key: repositories.key,
        rclass: repositories.rclass,
        packageType: repositories.packageType,
      })
      .from(repositories);
    const wanted =
      keys && keys.length > 0 ? new Set(keys.map((k) => k.toLowerCase().replace(/-cache$/, ''))) : null;
    const out: SearchRepo[] = [];
    for (const r of rows) {
      if (r.rclass === 'virtual') continue;
      if ((HIDDEN_REPOSITORY_TYPES as readonly string[]).includes(r.packageType.toLowerCase())) continue;
      if (wanted && !wanted.has(r.key.toLowerCase())) continue;
      if (
        await this.ctx.authorizer.can(principal, 'read', {
          key: r.key,
          rclass: r.rclass as RepositoryClass,
          path: '',
        })
      )
        out.push(r);
    }
    return out;
  }

  /** The condition that picks the files of one kind of search. */
  private condition(kind: ArtifactSearchKind, q: ArtifactSearchRequest, exactName: boolean): SQL {
    switch (kind) {
      case 'quick': {
        const name = (q.query ?? '').trim();
        if (name.replace(/[*?]/g, '') === '') throw new InvalidError('Enter a file name to search for');
        const pattern = hasWildcard(name) || exactName ? name : `*${name}*`;
        return sql`lower(regexp_replace(a.path, '^.*/', '')) like ${likePattern(pattern.toLowerCase())}`;
      }
      case 'checksum': {
        const c = (q.checksum ?? q.query ?? '').trim().toLowerCase();
        if (!HEX.test(c) || ![32, 40, 64].includes(c.length))
          throw new InvalidError('A checksum is an MD5 (32), SHA-1 (40) or SHA-256 (64) hexadecimal value');
        return c.length === 64
          ? sql`a.sha256 = ${c}`
          : c.length === 40
            ? sql`a.sha1 = ${c}`
            : sql`a.md5 = ${c}`;
      }
      case 'property': {
        const props = (q.properties ?? []).filter((p) => p.key.trim() !== '');
        if (props.length === 0) throw new InvalidError('Name at least one property');
        return sql.join(
          props.map((p) =>
            p.value === undefined || p.value === '' || p.value === '*'
              ? sql`a.properties ? ${p.key}`
              : sql`exists (select 1 from jsonb_array_elements_text(case when jsonb_typeof(a.properties -> ${p.key}) = 'array' then a.properties -> ${p.key} else '[]'::jsonb end) x
                      where x like ${likePattern(p.value)})`,
          ),
          sql` and `,
        );
      }
      case 'gavc': {
        const { groupId, artifactId, version, classifier } = q;
        if (![groupId, artifactId, version, classifier].some((x) => x && x.trim() !== ''))
          throw new InvalidError('Name a group, artifact, version or classifier');
        const g = groupId ? groupId.replace(/\./g, '/') : '*';
        const a = artifactId || '*';
        const v = version || '*';
        // without a classifier every file of the version matches (main, -sources, -javadoc…)
        const file = classifier ? `${a}-${v}-${classifier}.*` : `${a}-${v}*`;
        return sql`a.path like ${likePattern(`${g}/${a}/${v}/${file}`)}`;
      }
      default:
        throw new InvalidError(`Unknown search '${kind}'`);
    }
  }

  /** `exactName`: a quick search's name without wildcards matches whole names only (REST), not parts (console). */
  async search(
    principal: Principal | null,
    kind: ArtifactSearchKind,
    q: ArtifactSearchRequest,
    opts: { exactName?: boolean } = {},
  ): Promise<ArtifactSearchAnswer> {
    const repos = await this.repos(principal, q.repos);
    const cond = kind === 'archive' ? this.archiveCondition(q) : this.condition(kind, q, !!opts.exactName);
    if (repos.length === 0) return { results: [], limitReached: false };
    const byId = new Map(repos.map((r) => [r.id, r]));
    const inRepos = sql`a.repository_id in (${sql.join(
      repos.map((r) => sql`${r.id}::uuid`),
      sql`, `,
    )})`;
    const limit = ARTIFACT_SEARCH_LIMIT + 1;
    const rows =
      kind === 'archive'
        ? await queryRows<Row>(
            this.ctx.db,
            sql`select a.repository_id, a.path, a.size, a.modified_at, a.sha256, e.entry
                from ${archiveEntries} e join ${artifacts} a on a.repository_id = e.repository_id and a.path = e.path
                where ${inRepos} and ${cond}
                order by e.name, a.path, e.entry limit ${limit}`,
          )
        : await queryRows<Row>(
            this.ctx.db,
            sql`select a.repository_id, a.path, a.size, a.modified_at, a.sha256
                from ${artifacts} a where ${inRepos} and ${cond}
                order by a.path, a.repository_id limit ${limit}`,
          );
    const results: ArtifactSearchAnswer['results'] = [];
    for (const row of rows.slice(0, ARTIFACT_SEARCH_LIMIT)) {
      const repo = byId.get(row.repository_id)!;
      // issue 12 §20: the files a format keeps for itself are not search results
      if (isInternalPath(this.ctx, repo.packageType, row.path)) continue;
      if (
        !principal?.admin &&
        !(await this.ctx.authorizer.can(principal, 'read', {
          key: repo.key,
          rclass: repo.rclass as RepositoryClass,
          path: row.path,
        }))
      )
        continue;
      const key = repo.rclass === 'remote' ? `${repo.key}-cache` : repo.key;
      results.push({
        name: row.path.split('/').at(-1) ?? row.path,
        path: row.path,
        repoKey: key,
        relativePath: `${key}/${row.path}`,
        size: Number(row.size),
        modified: new Date(row.modified_at).toISOString(),
        sha256: row.sha256,
        ...(row.entry !== undefined ? { entry: row.entry } : {}),
      });
    }
    return { results, limitReached: rows.length > ARTIFACT_SEARCH_LIMIT };
  }

  /** Archive entries by name: `Foo`, `Foo.class`, `*.xml`; classes only and without inner classes on request. */
  private archiveCondition(q: ArtifactSearchRequest): SQL {
    const name = (q.query ?? '').trim();
    if (name.replace(/[*?]/g, '') === '') throw new InvalidError('Enter an entry name to search for');
    const lower = name.toLowerCase();
    const conds: SQL[] = [];
    if (hasWildcard(lower)) conds.push(sql`lower(e.name) collate "C" like ${likePattern(lower)}`);
    else if (q.searchClassOnly || lower.endsWith('.class'))
      conds.push(sql`lower(e.name) collate "C" = ${lower.endsWith('.class') ? lower : `${lower}.class`}`);
    else conds.push(sql`lower(e.name) collate "C" in (${lower}, ${`${lower}.class`})`);
    if (q.searchClassOnly) conds.push(sql`e.name like '%.class'`);
    if (q.excludeInnerClasses) conds.push(sql`e.name not like '%$%'`);
    if (q.path) conds.push(sql`e.path like ${likePattern(q.path)}`);
    return sql.join(conds, sql` and `);
  }
}
