import { type GitVendorName, INTEGRATION_MESSAGES, type TestConnectionResult } from '@granary/contracts';
import { InvalidError, UpstreamError } from '../../platform/errors.ts';
import type { OutboundClient, OutboundResponse } from '../../platform/outbound/index.ts';

/** What a vendor call needs: where the API is and whose token (opened from its sealed form for this call only). */
export interface VendorConnection {
  vendor: GitVendorName;
  url: string;
  userName: string;
  token: string;
}

/** A repository as the vendor lists it (the service adds `selected`). */
export interface VendorRepository {
  fullName: string;
  name: string;
  owner: string;
  defaultBranch: string | null;
  private: boolean;
  url: string;
}

/** The vendor-specific part: its API calls, written from each vendor's public REST documentation. */
export interface VendorApi {
  testConnection(): Promise<TestConnectionResult>;
  /** Every repository the token may read, following the vendor's pagination (at most MAX_PAGES pages). */
  listRepositories(): Promise<VendorRepository[]>;
  /** The paths of the files at the repository's root on `ref`. */
  listRootFiles(repo: VendorRepository): Promise<string[]>;
  /** A file's text on `ref`, or null when it is not there. */
  readFile(repo: VendorRepository, path: string): Promise<string | null>;
}

const MAX_PAGES = 50;
const MAX_FILE_BYTES = 5 * 1024 * 1024;
const DISPLAY: Record<GitVendorName, string> = {
  github: 'GitHub',
  gitlab: 'GitLab',
  bitbucket_cloud: 'Bitbucket Cloud',
  bitbucket_server: 'Bitbucket Server',
};

const join = (base: string, path: string) => `${base.replace(/\/+$/, '')}${path}`;
const scopesOf = (header: string | null) =>
  (header ?? '')
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);

/**
 * One vendor API call through platform/outbound. A 401/403 is the §8 credentials failure; anything
 * else unexpected (unreachable, 5xx, not JSON) is an upstream failure. The token never appears in a
 * message: only the vendor's status and its own short message.
 */
async function call(
  outbound: OutboundClient,
  conn: VendorConnection,
  url: string,
  headers: Record<string, string>,
  opts: { allow404?: boolean } = {},
): Promise<OutboundResponse | null> {
  let res: OutboundResponse;
  try {
    res = await outbound.fetch(url, { headers: { 'user-agent': 'Granary', ...headers }, proxy: '' });
  } catch (err) {
    throw new UpstreamError(
      `${INTEGRATION_MESSAGES.testFailed}: ${DISPLAY[conn.vendor]} at ${conn.url} could not be reached (${(err as Error).message})`,
    );
  }
  if (res.ok) return res;
  if (opts.allow404 && res.status === 404) {
    await res.arrayBuffer().catch(() => undefined);
    return null;
  }
  const detail = (await res.text().catch(() => '')).slice(0, 300);
  let message = '';
  try {
    const body = JSON.parse(detail) as Record<string, unknown>;
    const m = body.message ?? (body.error as { message?: unknown } | undefined)?.message ?? body.error;
    message = typeof m === 'string' ? m : '';
  } catch {
    /* not JSON */
  }
  const said = `${DISPLAY[conn.vendor]} answered ${res.status}${message ? ` ${message}` : ''}`;
  if (res.status === 401 || res.status === 403)
    throw new InvalidError(`${INTEGRATION_MESSAGES.testFailed} (${said})`);
  throw new UpstreamError(`${INTEGRATION_MESSAGES.testFailed} (${said})`);
}

async function json<T>(res: OutboundResponse | null): Promise<T> {
  if (!res) throw new UpstreamError('empty answer');
  return (await res.json()) as T;
}

async function text(res: OutboundResponse | null): Promise<string | null> {
  if (!res) return null;
  const buf = await res.arrayBuffer();
  if (buf.byteLength > MAX_FILE_BYTES) return null;
  return Buffer.from(buf).toString('utf8');
}

/** RFC 8288 `Link: <…>; rel="next"`, as GitHub paginates. */
function nextLink(header: string | null): string | null {
  for (const part of (header ?? '').split(',')) {
    const m = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part);
    if (m) return m[1]!;
  }
  return null;
}

/** GitHub REST (docs.github.com/rest): `GET /user`, `GET /user/repos` (Link pagination), contents API. */
function github(outbound: OutboundClient, conn: VendorConnection): VendorApi {
  const h = {
    authorization: `Bearer ${conn.token}`,
    accept: 'application/vnd.github+json',
    'x-github-api-version': '2022-11-28',
  };
  const repoPath = (r: VendorRepository) =>
    `/repos/${r.fullName.split('/').map(encodeURIComponent).join('/')}`;
  const ref = (r: VendorRepository) => (r.defaultBranch ? `?ref=${encodeURIComponent(r.defaultBranch)}` : '');
  return {
    async testConnection() {
      const res = await call(outbound, conn, join(conn.url, '/user'), h);
      const header = res!.headers.get('x-oauth-scopes');
      const scopes = scopesOf(header);
      const expiry = res!.headers.get('github-authentication-token-expiration');
      const user = await json<{ login: string; name?: string | null; id?: number }>(res);
      // A fine-grained token sends no X-OAuth-Scopes: its permissions are per repository, not told here.
      const classic = header !== null;
      const repo = scopes.includes('repo');
      const write = repo || scopes.includes('public_repo');
      return {
        identity: { login: user.login, name: user.name ?? null, id: user.id ?? null },
        scopes,
        expiresAt: expiry ? toIso(expiry) : null,
        capabilities: {
          readRepositories: !classic || write || scopes.length === 0,
          comment: classic && write,
          openPullRequests: classic && write,
          commitStatus: classic && (repo || scopes.includes('repo:status')),
        },
      };
    },
    async listRepositories() {
      const out: VendorRepository[] = [];
      let url: string | null = join(conn.url, '/user/repos?per_page=100&sort=full_name');
      for (let page = 0; url && page < MAX_PAGES; page++) {
        const res = await call(outbound, conn, url, h);
        const rows =
          await json<
            {
              full_name: string;
              name: string;
              owner: { login: string };
              default_branch?: string;
              private: boolean;
              html_url: string;
            }[]
          >(res);
        for (const r of rows)
          out.push({
            fullName: r.full_name,
            name: r.name,
            owner: r.owner.login,
            defaultBranch: r.default_branch ?? null,
            private: r.private,
            url: r.html_url,
          });
        url = nextLink(res!.headers.get('link'));
      }
      return out;
    },
    async listRootFiles(r) {
      const res = await call(outbound, conn, join(conn.url, `${repoPath(r)}/contents/${ref(r)}`), h, {
        allow404: true,
      });
      if (!res) return [];
      const rows = await json<{ path: string; type: string }[]>(res);
      return rows.filter((e) => e.type === 'file').map((e) => e.path);
    },
    async readFile(r, path) {
      const res = await call(
        outbound,
        conn,
        join(
          conn.url,
          `${repoPath(r)}/contents/${path.split('/').map(encodeURIComponent).join('/')}${ref(r)}`,
        ),
        { ...h, accept: 'application/vnd.github.raw+json' },
        { allow404: true },
      );
      return text(res);
    },
  };
}

/** GitLab REST v4 (docs.gitlab.com/api): `/user`, `/personal_access_tokens/self`, `/projects` (X-Next-Page). */
function gitlab(outbound: OutboundClient, conn: VendorConnection): VendorApi {
  const h = { 'private-token': conn.token };
  const api = (p: string) => join(conn.url, `/api/v4${p}`);
  const project = (r: VendorRepository) => `/projects/${encodeURIComponent(r.fullName)}`;
  const ref = (r: VendorRepository) => encodeURIComponent(r.defaultBranch ?? 'HEAD');
  return {
    async testConnection() {
      const user = await json<{ username: string; name?: string; id?: number }>(
        await call(outbound, conn, api('/user'), h),
      );
      const self = await call(outbound, conn, api('/personal_access_tokens/self'), h, { allow404: true });
      const token = self ? await json<{ scopes?: string[]; expires_at?: string | null }>(self) : {};
      const scopes = token.scopes ?? [];
      const full = scopes.includes('api');
      return {
        identity: { login: user.username, name: user.name ?? null, id: user.id ?? null },
        scopes,
        expiresAt: token.expires_at ? toIso(token.expires_at) : null,
        capabilities: {
          readRepositories: full || scopes.includes('read_api') || scopes.includes('read_repository'),
          comment: full,
          openPullRequests: full,
          commitStatus: full,
        },
      };
    },
    async listRepositories() {
      const out: VendorRepository[] = [];
      let page: string | null = '1';
      for (let n = 0; page && n < MAX_PAGES; n++) {
        const res = await call(
          outbound,
          conn,
          api(`/projects?membership=true&simple=true&per_page=100&order_by=path&sort=asc&page=${page}`),
          h,
        );
        const rows =
          await json<
            {
              path_with_namespace: string;
              path: string;
              namespace?: { full_path?: string };
              default_branch?: string | null;
              visibility?: string;
              web_url: string;
            }[]
          >(res);
        for (const r of rows)
          out.push({
            fullName: r.path_with_namespace,
            name: r.path,
            owner: r.namespace?.full_path ?? r.path_with_namespace.split('/').slice(0, -1).join('/'),
            defaultBranch: r.default_branch ?? null,
            private: r.visibility !== 'public',
            url: r.web_url,
          });
        page = res!.headers.get('x-next-page') || null;
      }
      return out;
    },
    async listRootFiles(r) {
      const res = await call(
        outbound,
        conn,
        api(`${project(r)}/repository/tree?ref=${ref(r)}&per_page=100`),
        h,
        { allow404: true },
      );
      if (!res) return [];
      return (await json<{ path: string; type: string }[]>(res))
        .filter((e) => e.type === 'blob')
        .map((e) => e.path);
    },
    async readFile(r, path) {
      return text(
        await call(
          outbound,
          conn,
          api(`${project(r)}/repository/files/${encodeURIComponent(path)}/raw?ref=${ref(r)}`),
          h,
          {
            allow404: true,
          },
        ),
      );
    },
  };
}

/** Bitbucket Cloud REST 2.0 (developer.atlassian.com/cloud/bitbucket): Basic user:app password, `next` links. */
function bitbucketCloud(outbound: OutboundClient, conn: VendorConnection): VendorApi {
  const h = { authorization: `Basic ${Buffer.from(`${conn.userName}:${conn.token}`).toString('base64')}` };
  const api = (p: string) => join(conn.url, `/2.0${p}`);
  const repo = (r: VendorRepository) =>
    `/repositories/${r.fullName.split('/').map(encodeURIComponent).join('/')}`;
  const ref = (r: VendorRepository) => encodeURIComponent(r.defaultBranch ?? 'HEAD');
  return {
    async testConnection() {
      const res = await call(outbound, conn, api('/user'), h);
      const scopes = scopesOf(res!.headers.get('x-oauth-scopes'));
      const user = await json<{ username?: string; nickname?: string; display_name?: string; uuid?: string }>(
        res,
      );
      const has = (s: string) => scopes.some((x) => x === s || x.startsWith(`${s}:`));
      const told = scopes.length > 0;
      return {
        identity: {
          login: user.username ?? user.nickname ?? conn.userName,
          name: user.display_name ?? null,
          id: user.uuid ?? null,
        },
        scopes,
        expiresAt: null,
        capabilities: {
          readRepositories: !told || has('repository') || has('pullrequest'),
          comment: told && scopes.includes('pullrequest:write'),
          openPullRequests: told && scopes.includes('pullrequest:write'),
          commitStatus: told && (scopes.includes('repository:write') || scopes.includes('repository:admin')),
        },
      };
    },
    async listRepositories() {
      const out: VendorRepository[] = [];
      let url: string | null = api('/repositories?role=member&pagelen=100&sort=full_name');
      for (let n = 0; url && n < MAX_PAGES; n++) {
        const page: {
          values: {
            full_name: string;
            slug?: string;
            name: string;
            is_private: boolean;
            mainbranch?: { name?: string } | null;
            links?: { html?: { href?: string } };
          }[];
          next?: string;
        } = await json(await call(outbound, conn, url, h));
        for (const r of page.values)
          out.push({
            fullName: r.full_name,
            name: r.slug ?? r.name,
            owner: r.full_name.split('/')[0]!,
            defaultBranch: r.mainbranch?.name ?? null,
            private: r.is_private,
            url: r.links?.html?.href ?? '',
          });
        url = page.next ?? null;
      }
      return out;
    },
    async listRootFiles(r) {
      const res = await call(outbound, conn, api(`${repo(r)}/src/${ref(r)}/?pagelen=100`), h, {
        allow404: true,
      });
      if (!res) return [];
      const page = await json<{ values: { path: string; type: string }[] }>(res);
      return page.values.filter((e) => e.type === 'commit_file').map((e) => e.path);
    },
    async readFile(r, path) {
      return text(
        await call(
          outbound,
          conn,
          api(`${repo(r)}/src/${ref(r)}/${path.split('/').map(encodeURIComponent).join('/')}`),
          h,
          {
            allow404: true,
          },
        ),
      );
    },
  };
}

/** Bitbucket Server / Data Center REST 1.0: Bearer HTTP access token, `isLastPage`/`nextPageStart` paging. */
function bitbucketServer(outbound: OutboundClient, conn: VendorConnection): VendorApi {
  const h = { authorization: `Bearer ${conn.token}`, accept: 'application/json' };
  const api = (p: string) => join(conn.url, `/rest/api/1.0${p}`);
  const repo = (r: VendorRepository) => {
    const [project, slug] = r.fullName.split('/');
    return `/projects/${encodeURIComponent(project!)}/repos/${encodeURIComponent(slug!)}`;
  };
  const at = (r: VendorRepository) => (r.defaultBranch ? `at=${encodeURIComponent(r.defaultBranch)}` : '');
  return {
    async testConnection() {
      const res = await call(outbound, conn, api('/users?limit=1'), h);
      await res!.arrayBuffer();
      // The server names the authenticated user in X-AUSERNAME / X-AUSERID; an HTTP access token's
      // permissions are not told by this API: reading is what listing users proves.
      const login = res!.headers.get('x-ausername') ?? conn.userName;
      return {
        identity: { login, name: null, id: res!.headers.get('x-auserid') },
        scopes: [],
        expiresAt: null,
        capabilities: {
          readRepositories: true,
          comment: false,
          openPullRequests: false,
          commitStatus: false,
        },
      };
    },
    async listRepositories() {
      const out: VendorRepository[] = [];
      let start: number | null = 0;
      for (let n = 0; start !== null && n < MAX_PAGES; n++) {
        const page: {
          values: {
            slug: string;
            name: string;
            public?: boolean;
            project: { key: string };
            links?: { self?: { href?: string }[] };
          }[];
          isLastPage: boolean;
          nextPageStart?: number;
        } = await json(await call(outbound, conn, api(`/repos?limit=100&start=${start}`), h));
        for (const r of page.values)
          out.push({
            fullName: `${r.project.key}/${r.slug}`,
            name: r.slug,
            owner: r.project.key,
            defaultBranch: null,
            private: !r.public,
            url: r.links?.self?.[0]?.href ?? '',
          });
        start = page.isLastPage || page.nextPageStart === undefined ? null : page.nextPageStart;
      }
      return out;
    },
    async listRootFiles(r) {
      const res = await call(
        outbound,
        conn,
        api(`${repo(r)}/files?limit=1000${at(r) ? `&${at(r)}` : ''}`),
        h,
        {
          allow404: true,
        },
      );
      if (!res) return [];
      return (await json<{ values: string[] }>(res)).values.filter((p) => !p.includes('/'));
    },
    async readFile(r, path) {
      return text(
        await call(
          outbound,
          conn,
          api(
            `${repo(r)}/raw/${path.split('/').map(encodeURIComponent).join('/')}${at(r) ? `?${at(r)}` : ''}`,
          ),
          h,
          { allow404: true },
        ),
      );
    },
  };
}

function toIso(value: string): string | null {
  const t = Date.parse(value.replace(/ UTC$/, 'Z').replace(/ ([+-]\d{4})$/, '$1'));
  return Number.isNaN(t) ? null : new Date(t).toISOString();
}

export function vendorApi(outbound: OutboundClient, conn: VendorConnection): VendorApi {
  switch (conn.vendor) {
    case 'github':
      return github(outbound, conn);
    case 'gitlab':
      return gitlab(outbound, conn);
    case 'bitbucket_cloud':
      return bitbucketCloud(outbound, conn);
    case 'bitbucket_server':
      return bitbucketServer(outbound, conn);
  }
}
