import {
  ARTIFACT_SEARCH_LIMIT,
  type ArtifactSearchAnswer,
  type ArtifactSearchKind,
  type ArtifactSearchRequest,
} from '@granary/contracts';
import { likePattern } from '../../platform/db/like-pattern.ts';
import { InvalidError } from '../../platform/errors.ts';
import type { Principal } from '../../platform/http/access-control.ts';
import { type ArchiveEntryMatch, searchArchiveEntries } from '../packages/packages.api.ts';
import {
  isInternalPath,
  listRepositoryHeads,
  mayRead,
  type RepositoriesContext,
  type RepositoryHead,
  readableRepositories,
  type StoredFileMatch,
  searchStoredFiles,
} from '../repositories/repositories.api.ts';

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
 * can read, each hit checked at its own path; at most ARTIFACT_SEARCH_LIMIT results. Stored files are
 * the repositories module's to query, archive entries the packages module's: this module owns no table.
 */
export class ArtifactSearch {
  constructor(private readonly ctx: RepositoriesContext) {}

  private async repos(principal: Principal | null, keys: string[] | undefined): Promise<RepositoryHead[]> {
    const rows = await listRepositoryHeads(this.ctx.db);
    const wanted =
      keys && keys.length > 0 ? new Set(keys.map((k) => k.toLowerCase().replace(/-cache$/, ''))) : null;
    return readableRepositories(
      this.ctx.authorizer,
      principal,
      wanted ? rows.filter((r) => wanted.has(r.key.toLowerCase())) : rows,
    );
  }

  /** What one kind of search asks of stored files. */
  private fileMatch(kind: ArtifactSearchKind, q: ArtifactSearchRequest, exactName: boolean): StoredFileMatch {
    switch (kind) {
      case 'quick': {
        const name = (q.query ?? '').trim();
        if (name.replace(/[*?]/g, '') === '') throw new InvalidError('Enter a file name to search for');
        const pattern = hasWildcard(name) || exactName ? name : `*${name}*`;
        return { by: 'name', lowerCaseLike: likePattern(pattern.toLowerCase()) };
      }
      case 'checksum': {
        const c = (q.checksum ?? q.query ?? '').trim().toLowerCase();
        if (!HEX.test(c) || ![32, 40, 64].includes(c.length))
          throw new InvalidError('A checksum is an MD5 (32), SHA-1 (40) or SHA-256 (64) hexadecimal value');
        return {
          by: 'checksum',
          algorithm: c.length === 64 ? 'sha256' : c.length === 40 ? 'sha1' : 'md5',
          value: c,
        };
      }
      case 'property': {
        const props = (q.properties ?? []).filter((p) => p.key.trim() !== '');
        if (props.length === 0) throw new InvalidError('Name at least one property');
        return {
          by: 'properties',
          properties: props.map((p) =>
            p.value === undefined || p.value === '' || p.value === '*'
              ? { key: p.key }
              : { key: p.key, valueLike: likePattern(p.value) },
          ),
        };
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
        return { by: 'path', like: likePattern(`${g}/${a}/${v}/${file}`) };
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
    const match: { archive: ArchiveEntryMatch } | { files: StoredFileMatch } =
      kind === 'archive'
        ? { archive: this.archiveMatch(q) }
        : { files: this.fileMatch(kind, q, !!opts.exactName) };
    if (repos.length === 0) return { results: [], limitReached: false };
    const byId = new Map(repos.map((r) => [r.id, r]));
    const ids = repos.map((r) => r.id);
    const limit = ARTIFACT_SEARCH_LIMIT + 1;
    const rows: Row[] =
      'archive' in match
        ? await searchArchiveEntries(this.ctx.db, ids, match.archive, limit)
        : await searchStoredFiles(this.ctx.db, ids, match.files, limit);
    const results: ArtifactSearchAnswer['results'] = [];
    for (const row of rows.slice(0, ARTIFACT_SEARCH_LIMIT)) {
      const repo = byId.get(row.repository_id)!;
      // issue 12 §20: the files a format keeps for itself are not search results
      if (isInternalPath(this.ctx, repo.packageType, row.path)) continue;
      if (!principal?.admin && !(await mayRead(this.ctx.authorizer, principal, repo, row.path))) continue;
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
  private archiveMatch(q: ArtifactSearchRequest): ArchiveEntryMatch {
    const name = (q.query ?? '').trim();
    if (name.replace(/[*?]/g, '') === '') throw new InvalidError('Enter an entry name to search for');
    const lower = name.toLowerCase();
    return {
      name: hasWildcard(lower)
        ? { lowerCaseLike: likePattern(lower) }
        : q.searchClassOnly || lower.endsWith('.class')
          ? { lowerCaseAnyOf: [lower.endsWith('.class') ? lower : `${lower}.class`] }
          : { lowerCaseAnyOf: [lower, `${lower}.class`] },
      classesOnly: !!q.searchClassOnly,
      excludeInnerClasses: !!q.excludeInnerClasses,
      archivePathLike: q.path ? likePattern(q.path) : undefined,
    };
  }
}
