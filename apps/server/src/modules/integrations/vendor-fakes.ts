import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { GitVendorName } from '@granary/contracts';

/**
 * Small vendor APIs on loopback for the integration tests (issue 18), written from each vendor's public
 * REST documentation: the same paths, authentication headers, status codes, scope headers and
 * pagination (GitHub `Link`, GitLab `X-Next-Page`, Bitbucket Cloud `next`, Bitbucket Server
 * `isLastPage`/`nextPageStart`). Each serves three repositories over two pages (its page size is capped
 * at 2, as the vendors cap theirs), one of which holds `files`.
 */
export interface FakeRepo {
  owner: string;
  name: string;
  files: Record<string, string>;
}

export class FakeVendor {
  private server?: Server;
  url = '';
  /** Every request's method and path, to see what Granary asked. */
  readonly requests: { method: string; url: string; authorization?: string }[] = [];

  constructor(
    readonly vendor: GitVendorName,
    readonly userName: string,
    readonly token: string,
    readonly repos: FakeRepo[],
  ) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      this.requests.push({
        method: req.method ?? '',
        url: req.url ?? '',
        authorization: req.headers.authorization,
      });
      try {
        this.handle(req, res);
      } catch (err) {
        res.writeHead(500).end(String(err));
      }
    });
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise((r) => this.server!.close(r));
  }

  private page<T>(items: T[], page: number, size: number) {
    const per = Math.min(size || 30, 2);
    const start = (page - 1) * per;
    return { slice: items.slice(start, start + per), last: start + per >= items.length, per };
  }

  private find(owner: string, name: string) {
    return this.repos.find((r) => r.owner === owner && r.name === name);
  }

  /** Answers one request (the answer is what `send`/`raw` returned, unused). */
  private handle(req: IncomingMessage, res: ServerResponse): unknown {
    const u = new URL(req.url ?? '/', this.url);
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) =>
      res
        .writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers })
        .end(JSON.stringify(body));
    const raw = (body: string | undefined) =>
      body === undefined
        ? send(404, { message: 'Not Found' })
        : res.writeHead(200, { 'content-type': 'text/plain' }).end(body);
    const auth = req.headers.authorization ?? '';
    switch (this.vendor) {
      case 'github': {
        // docs.github.com/rest: Bearer token; 401 {"message":"Bad credentials"}.
        if (auth !== `Bearer ${this.token}`)
          return send(401, { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest' });
        const scopes = {
          'x-oauth-scopes': 'repo, read:org',
          'github-authentication-token-expiration': '2030-01-31 12:00:00 UTC',
        };
        if (u.pathname === '/user')
          return send(200, { login: this.userName, id: 4711, name: 'Octo Cat' }, scopes);
        if (u.pathname === '/user/repos') {
          const page = Number(u.searchParams.get('page') ?? '1');
          const { slice, last, per } = this.page(this.repos, page, Number(u.searchParams.get('per_page')));
          const link = (p: number, rel: string) =>
            `<${this.url}/user/repos?per_page=${per}&page=${p}>; rel="${rel}"`;
          const links = last
            ? [link(page - 1, 'prev'), link(1, 'first')]
            : [link(page + 1, 'next'), link(2, 'last')];
          return send(
            200,
            slice.map((r) => ({
              full_name: `${r.owner}/${r.name}`,
              name: r.name,
              owner: { login: r.owner },
              default_branch: 'main',
              private: true,
              html_url: `https://github.example/${r.owner}/${r.name}`,
            })),
            { ...scopes, link: links.join(', ') },
          );
        }
        const m = /^\/repos\/([^/]+)\/([^/]+)\/contents\/(.*)$/.exec(u.pathname);
        const repo = m && this.find(decodeURIComponent(m[1]!), decodeURIComponent(m[2]!));
        if (!m || !repo || u.searchParams.get('ref') !== 'main') return send(404, { message: 'Not Found' });
        const path = decodeURIComponent(m[3]!);
        if (path === '')
          return send(
            200,
            Object.keys(repo.files).map((p) => ({ name: p, path: p, type: 'file' })),
          );
        if (!(req.headers.accept ?? '').includes('application/vnd.github.raw'))
          return send(415, { message: 'raw wanted' });
        return raw(repo.files[path]);
      }
      case 'gitlab': {
        // docs.gitlab.com/api/rest: PRIVATE-TOKEN header; 401 {"message":"401 Unauthorized"}.
        if (req.headers['private-token'] !== this.token) return send(401, { message: '401 Unauthorized' });
        const p = u.pathname.replace(/^\/api\/v4/, '');
        if (p === '/user') return send(200, { id: 42, username: this.userName, name: 'Lab User' });
        if (p === '/personal_access_tokens/self')
          return send(200, {
            id: 1,
            name: 'granary',
            scopes: ['read_api', 'read_repository'],
            expires_at: '2030-01-31',
            active: true,
          });
        if (p === '/projects') {
          if (u.searchParams.get('membership') !== 'true')
            return send(400, { message: 'membership expected' });
          const page = Number(u.searchParams.get('page') ?? '1');
          const { slice, last, per } = this.page(this.repos, page, Number(u.searchParams.get('per_page')));
          return send(
            200,
            slice.map((r, i) => ({
              id: page * 10 + i,
              path: r.name,
              path_with_namespace: `${r.owner}/${r.name}`,
              namespace: { full_path: r.owner },
              default_branch: 'main',
              visibility: 'private',
              web_url: `https://gitlab.example/${r.owner}/${r.name}`,
            })),
            {
              'x-page': String(page),
              'x-per-page': String(per),
              'x-next-page': last ? '' : String(page + 1),
            },
          );
        }
        // /projects/:id/repository/… — the id is the URL-encoded path with namespace.
        const m = /^\/projects\/([^/]+)\/repository\/(tree|files\/([^/]+)\/raw)$/.exec(
          req.url!.split('?')[0]!.replace(/^\/api\/v4/, ''),
        );
        const [owner, name] = decodeURIComponent(m?.[1] ?? '').split('/');
        const repo = m && this.find(owner!, name!);
        if (!m || !repo || u.searchParams.get('ref') !== 'main')
          return send(404, { message: '404 Project Not Found' });
        if (m[2] === 'tree')
          return send(
            200,
            Object.keys(repo.files).map((f) => ({ id: f, name: f, path: f, type: 'blob' })),
          );
        return raw(repo.files[decodeURIComponent(m[3]!)]);
      }
      case 'bitbucket_cloud': {
        // developer.atlassian.com/cloud/bitbucket/rest: Basic user:app password; scopes in X-OAuth-Scopes.
        if (auth !== `Basic ${Buffer.from(`${this.userName}:${this.token}`).toString('base64')}`)
          return send(401, { type: 'error', error: { message: 'Access token expired or invalid' } });
        const h = {
          'x-oauth-scopes': 'repository, pullrequest:write, account',
          'x-credential-type': 'app_password',
        };
        if (u.pathname === '/2.0/user')
          return send(
            200,
            { username: this.userName, display_name: 'Bucket User', uuid: '{1234}', type: 'user' },
            h,
          );
        if (u.pathname === '/2.0/repositories') {
          if (u.searchParams.get('role') !== 'member') return send(400, { type: 'error' });
          const page = Number(u.searchParams.get('page') ?? '1');
          const { slice, last, per } = this.page(this.repos, page, Number(u.searchParams.get('pagelen')));
          return send(
            200,
            {
              pagelen: per,
              page,
              size: this.repos.length,
              values: slice.map((r) => ({
                full_name: `${r.owner}/${r.name}`,
                slug: r.name,
                name: r.name,
                is_private: true,
                mainbranch: { name: 'main', type: 'branch' },
                links: { html: { href: `https://bitbucket.example/${r.owner}/${r.name}` } },
              })),
              ...(last
                ? {}
                : { next: `${this.url}/2.0/repositories?role=member&pagelen=${per}&page=${page + 1}` }),
            },
            h,
          );
        }
        const m = /^\/2\.0\/repositories\/([^/]+)\/([^/]+)\/src\/([^/]+)\/(.*)$/.exec(u.pathname);
        const repo = m && this.find(decodeURIComponent(m[1]!), decodeURIComponent(m[2]!));
        if (!m || !repo || m[3] !== 'main')
          return send(404, { type: 'error', error: { message: 'Not found' } });
        if (m[4] === '')
          return send(200, {
            pagelen: 100,
            values: Object.keys(repo.files).map((f) => ({ path: f, type: 'commit_file' })),
          });
        return raw(repo.files[decodeURIComponent(m[4]!)]);
      }
      case 'bitbucket_server': {
        // Bitbucket Data Center REST 1.0: Bearer HTTP access token; paged {isLastPage, nextPageStart}.
        if (auth !== `Bearer ${this.token}`)
          return send(401, {
            errors: [{ message: 'Authentication failed. Please check your credentials and try again.' }],
          });
        const h = { 'x-ausername': this.userName, 'x-auserid': '7' };
        const p = u.pathname.replace(/^\/rest\/api\/1\.0/, '');
        if (p === '/users')
          return send(
            200,
            {
              size: 1,
              limit: 1,
              isLastPage: false,
              start: 0,
              nextPageStart: 1,
              values: [{ name: this.userName, id: 7 }],
            },
            h,
          );
        if (p === '/repos') {
          const start = Number(u.searchParams.get('start') ?? '0');
          const per = Math.min(Number(u.searchParams.get('limit') ?? '25'), 2);
          const slice = this.repos.slice(start, start + per);
          const last = start + per >= this.repos.length;
          return send(
            200,
            {
              size: slice.length,
              limit: per,
              start,
              isLastPage: last,
              ...(last ? {} : { nextPageStart: start + per }),
              values: slice.map((r) => ({
                slug: r.name,
                name: r.name,
                public: false,
                project: { key: r.owner },
                links: { self: [{ href: `${this.url}/projects/${r.owner}/repos/${r.name}/browse` }] },
              })),
            },
            h,
          );
        }
        const m = /^\/projects\/([^/]+)\/repos\/([^/]+)\/(files|raw\/(.*))$/.exec(p);
        const repo = m && this.find(decodeURIComponent(m[1]!), decodeURIComponent(m[2]!));
        if (!m || !repo) return send(404, { errors: [{ message: 'Repository does not exist.' }] });
        if (m[3] === 'files')
          return send(200, {
            size: 1,
            isLastPage: true,
            start: 0,
            limit: 1000,
            values: [...Object.keys(repo.files), 'src/index.js'],
          });
        return raw(repo.files[decodeURIComponent(m[4]!)]);
      }
    }
  }
}
