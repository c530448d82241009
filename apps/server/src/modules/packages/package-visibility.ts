import type { Db } from '../../platform/db/index.ts';
import type { Principal } from '../../platform/http/access-control.ts';
import type { Authorizer } from '../access/index.ts';
import {
  listRepositoryHeads,
  MAX_VIRTUAL_DEPTH,
  mayRead,
  type RepositoryHead,
  readableRepositories,
} from '../repositories/repositories.api.ts';

const REPO_LIST_TTL_MS = 1000;

/** The repositories a query searches, and whether that is every package row (an admin's unfiltered list). */
export interface SearchScope {
  repos: RepositoryHead[];
  all: boolean;
}

/**
 * What of the packages index a caller may see: the repositories it may read (repository level),
 * narrowed by a `repos` filter, then each version's lead path.
 */
export class PackageVisibility {
  constructor(
    private readonly db: Db,
    private readonly authorizer: Authorizer,
    /** The clock the repository list's lifetime is measured on (epoch ms); tests move it. */
    private readonly now: () => number = Date.now,
  ) {}

  private repoList: { at: number; rows: Promise<RepositoryHead[]> } | null = null;

  /** The repositories, read at most once a second (a new repository's packages show within that second). */
  private allRepos(): Promise<RepositoryHead[]> {
    if (this.repoList && this.now() - this.repoList.at < REPO_LIST_TTL_MS) return this.repoList.rows;
    const rows = listRepositoryHeads(this.db);
    this.repoList = { at: this.now(), rows };
    rows.catch(() => {
      this.repoList = null;
    });
    return rows;
  }

  /** Repositories whose packages the caller may see (virtual ones and hidden types left out). */
  async readableRepos(principal: Principal | null): Promise<RepositoryHead[]> {
    return readableRepositories(this.authorizer, principal, await this.allRepos());
  }

  /** The repositories to search: readable ones, narrowed to `repos` when given (by key, case-insensitively; `{key}-cache` names a remote). */
  async scope(principal: Principal | null, repos: string[] | null | undefined): Promise<SearchScope> {
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
   * filter stands for its members, nested virtual ones included down to MAX_VIRTUAL_DEPTH, as a
   * download through it resolves. Members still need their own read.
   */
  private async expandVirtual(principal: Principal | null, keys: string[]): Promise<Set<string>> {
    const byKey = new Map((await this.allRepos()).map((r) => [r.key.toLowerCase(), r]));
    const wanted = new Set<string>();
    let next = keys;
    for (let depth = 0; next.length > 0 && depth <= MAX_VIRTUAL_DEPTH; depth++) {
      const members: string[] = [];
      for (const key of next) {
        if (wanted.has(key)) continue;
        wanted.add(key);
        const repo = byKey.get(key);
        if (repo?.rclass !== 'virtual') continue;
        if (await mayRead(this.authorizer, principal, repo, ''))
          for (const m of repo.members) members.push(m.toLowerCase());
      }
      next = members;
    }
    return wanted;
  }

  /** The caller may read a version's lead file (admins: always). */
  async leadReadable(principal: Principal | null, repo: RepositoryHead, leadPath: string): Promise<boolean> {
    if (principal?.admin) return true;
    return mayRead(this.authorizer, principal, repo, leadPath);
  }
}
