import type { QuickStartSession, QuickStartStatus } from '@granary/contracts';
import { and, eq, sql } from 'drizzle-orm';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { Db } from '../../platform/db/index.ts';
import type { NotifyChannel } from '../../platform/db/notify-channel.ts';
import { findRepository } from '../repositories/repositories.api.ts';
import { quickStartSessions } from './onboarding.schema.ts';

/**
 * Quick-start sessions (issue 17, spec 000 §3 session and status flags): stored in the database (any node may see
 * the client's request, any node may answer the poll). The flags flip from the REAL client traffic of the session's
 * user on its repository, observed by an `onResponse` hook on the client endpoints (`/repository/{key}/…` and
 * `/v2/…`): only successful (< 400) requests of a signed-in caller count, and the row is updated before the next
 * poll can read it (the hook runs as soon as the answer is sent).
 */

export const QUICK_START_TYPES = ['docker', 'npm', 'maven', 'gradle', 'pypi'] as const;

export async function startSession(
  db: Db,
  user: string,
  session: QuickStartSession,
): Promise<QuickStartStatus> {
  const values = {
    userName: user,
    repoKey: session.repoKey.toLowerCase(),
    downloadPackageName: session.downloadPackageName,
    downloadVersion: session.downloadVersion ?? null,
    uploadPackageName: session.uploadPackageName,
    uploadVersion: session.uploadVersion ?? null,
    isAuthenticated: false,
    isDownloaded: false,
    isPublished: false,
    startedAt: new Date(),
  };
  await db
    .insert(quickStartSessions)
    .values(values)
    .onConflictDoUpdate({ target: [quickStartSessions.userName, quickStartSessions.repoKey], set: values });
  return { isAuthenticated: false, isDownloaded: false, isPublished: false };
}

export async function sessionStatus(db: Db, user: string, repoKey: string): Promise<QuickStartStatus> {
  const [row] = await db
    .select()
    .from(quickStartSessions)
    .where(and(eq(quickStartSessions.userName, user), eq(quickStartSessions.repoKey, repoKey.toLowerCase())));
  return {
    isAuthenticated: row?.isAuthenticated ?? false,
    isDownloaded: row?.isDownloaded ?? false,
    isPublished: row?.isPublished ?? false,
  };
}

type Row = typeof quickStartSessions.$inferSelect;
type Flag = 'isAuthenticated' | 'isDownloaded' | 'isPublished';

/** npm's names: `@scope%2fname` or `@scope/name` in a path. */
const decode = (s: string) => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};
/** PEP 503 normalised project name. */
const pep503 = (s: string) => s.toLowerCase().replace(/[-_.]+/g, '-');

/** What an npm request means for a session: a packument or tarball GET of the download package, a publish PUT. */
function npmFlags(method: string, path: string, row: Row): Flag[] {
  const tarball = /^(.+?)\/-\/[^/]+\.tgz$/.exec(path);
  const name = decode(tarball ? tarball[1]! : path).replace(/\/+$/, '');
  if ((method === 'GET' || method === 'HEAD') && name === row.downloadPackageName) return ['isDownloaded'];
  if (method === 'PUT' && name === row.uploadPackageName) return ['isPublished'];
  return [];
}

/** pip: the simple page or a file of the download project; twine: an upload (POST) to the repository. */
function pypiFlags(method: string, path: string, row: Row): Flag[] {
  if (method === 'GET' || method === 'HEAD') {
    const want = pep503(row.downloadPackageName);
    const simple = /^simple\/([^/]+)\/?$/.exec(path);
    if (simple && pep503(decode(simple[1]!)) === want) return ['isDownloaded'];
    const file = decode(path.split('/').pop() ?? '');
    // A distribution file is named {project}-{version}…, with the project's - written as _.
    if (/\.(whl|tar\.gz|zip)$/.test(file) && pep503(file).startsWith(`${want}-`)) return ['isDownloaded'];
    return [];
  }
  // twine streams a multipart form: the project's name is inside the body, which a response hook cannot read; an
  // upload of the session's user to the session's repository is its publish step.
  if (method === 'POST') return ['isPublished'];
  return [];
}

/** mvn: a pom/jar GET whose artifactId is the download name; a deploy PUT whose artifactId is the upload name. */
function mavenFlags(method: string, path: string, row: Row): Flag[] {
  const parts = path.split('/').filter(Boolean);
  if (parts.length < 4) return [];
  const file = parts[parts.length - 1]!;
  const artifactId = parts[parts.length - 3]!;
  if (
    (method === 'GET' || method === 'HEAD') &&
    artifactId === row.downloadPackageName &&
    /\.(pom|jar)$/.test(file)
  )
    return ['isDownloaded'];
  if (method === 'PUT' && artifactId === row.uploadPackageName && /\.(pom|jar)$/.test(file))
    return ['isPublished'];
  return [];
}

/** docker: a manifest GET of the download image:tag, a manifest PUT of the upload image:tag. */
function dockerFlags(method: string, rest: string, row: Row): Flag[] {
  const m = /^(.+)\/manifests\/([^/]+)$/.exec(rest);
  if (!m) return [];
  const [, image, reference] = m;
  if ((method === 'GET' || method === 'HEAD') && image === row.downloadPackageName) {
    if (!row.downloadVersion || reference === row.downloadVersion || reference!.startsWith('sha256:'))
      return ['isDownloaded'];
  }
  if (
    method === 'PUT' &&
    image === row.uploadPackageName &&
    (!row.uploadVersion || reference === row.uploadVersion)
  )
    return ['isPublished'];
  return [];
}

async function setFlags(db: Db, user: string, repoKeys: string[], flags: Set<Flag>, rows: Row[]) {
  if (flags.size === 0) return;
  for (const row of rows) {
    if (!repoKeys.includes(row.repoKey)) continue;
    await db
      .update(quickStartSessions)
      .set(Object.fromEntries([...flags].map((f) => [f, true])))
      .where(and(eq(quickStartSessions.userName, user), eq(quickStartSessions.repoKey, row.repoKey)));
  }
}

/** Sessions of `user` still waiting for a flag (one indexed read per signed-in client request). */
async function openSessions(db: Db, user: string): Promise<Row[]> {
  return db
    .select()
    .from(quickStartSessions)
    .where(
      and(
        eq(quickStartSessions.userName, user),
        sql`not (${quickStartSessions.isAuthenticated} and ${quickStartSessions.isDownloaded} and ${quickStartSessions.isPublished})`,
      ),
    );
}

/** Whether a request of this shape can flip any flag of a session on a repository of this type. */
function couldMatter(type: string, kind: 'v2' | 'repository', method: string, rest: string): boolean {
  const read = method === 'GET' || method === 'HEAD';
  if (type === 'docker') return kind === 'v2' && (read || method === 'PUT') && rest.includes('/manifests/');
  if (kind !== 'repository') return false;
  if (type === 'npm') return read || method === 'PUT';
  if (type === 'pypi') return read ? /^simple\/|\.(whl|tar\.gz|zip)$/.test(rest) : method === 'POST';
  if (type === 'maven' || type === 'gradle') return (read || method === 'PUT') && /\.(pom|jar)$/.test(rest);
  return false;
}

/**
 * Whether a read of `/repository/…` answered from the response cache could flip a flag of `user`'s
 * open sessions, so the observer must see it (the cache then leaves it to the framework).
 */
export function readMayMatter(
  watch: QuickStartWatch,
  read: { user: string | undefined; method: string; url: string; repoType: string | null },
): boolean {
  if (read.user === undefined || read.repoType === null || watch.isIdle(read.user)) return false;
  const rest = /^\/repository\/[^/]+\/?(.*)$/.exec(read.url.split('?')[0]!)?.[1] ?? '';
  return couldMatter(read.repoType, 'repository', read.method, rest);
}

/** The observation: what one finished client request means for the caller's open sessions. */
export async function observe(
  db: Db,
  request: FastifyRequest,
  status: number,
  watch: QuickStartWatch,
): Promise<void> {
  const user = request.principal?.name;
  if (!user || status >= 400) return;
  const epoch = watch.epoch;
  const url = request.url.split('?')[0]!;
  const method = request.method;
  if (url === '/v2/token' || url === '/v2/token/' || url === '/v2' || url === '/v2/') {
    // `docker login` / `skopeo login`: a token issued, or an authenticated ping.
    const rows = await openSessions(db, user);
    if (rows.length === 0) return watch.markIdle(user, epoch);
    const docker: string[] = [];
    for (const row of rows) {
      if (row.isAuthenticated) continue;
      const repo = await findRepository(db, row.repoKey);
      if (repo?.packageType === 'docker') docker.push(row.repoKey);
    }
    await setFlags(db, user, docker, new Set(['isAuthenticated']), rows);
    return;
  }
  let key: string;
  let rest: string;
  let kind: 'v2' | 'repository';
  const v2 = /^\/v2\/([^/]+)\/(.+)$/.exec(url);
  const repository = /^\/repository\/([^/]+)\/?(.*)$/.exec(url);
  if (v2) [, key, rest, kind] = [v2[0], decode(v2[1]!), v2[2]!, 'v2'];
  else if (repository)
    [, key, rest, kind] = [repository[0], decode(repository[1]!), repository[2]!, 'repository'];
  else return;
  // Cheap checks first (the repository configuration is cached): only requests that could flip a flag read the
  // sessions table, so blob, checksum and metadata traffic costs nothing.
  const repo = await findRepository(db, key);
  if (!repo || !couldMatter(repo.packageType, kind, method, rest)) return;
  const rows = await openSessions(db, user);
  if (rows.length === 0) return watch.markIdle(user, epoch);
  const lower = key.toLowerCase();
  // A Maven session names the release virtual; mvn deploys snapshots to its snapshot sibling.
  const candidates = rows.filter(
    (r) => r.repoKey === lower || (repo.packageType !== 'docker' && `${r.repoKey}-snapshot` === lower),
  );
  for (const row of candidates) {
    let flags: Flag[] = [];
    if (repo.packageType === 'docker' && kind === 'v2') flags = dockerFlags(method, rest, row);
    else if (repo.packageType === 'npm') flags = npmFlags(method, rest, row);
    else if (repo.packageType === 'pypi') flags = pypiFlags(method, rest, row);
    else if (repo.packageType === 'maven' || repo.packageType === 'gradle')
      flags = mavenFlags(method, rest, row);
    // A client that got something with its credentials is signed in (npm, pip and mvn have no login step).
    if (flags.length > 0) flags.push('isAuthenticated');
    await setFlags(db, user, [row.repoKey], new Set(flags), rows);
  }
}

const QUICK_START_CHANNEL = 'granary_quick_start';
/** How long "this user has no open session" is believed without asking (a lost notification's bound). */
const IDLE_TTL_MS = 60_000;
const IDLE_MAX_USERS = 10_000;

/**
 * Which users are known to have no open session, so their client requests skip the sessions table:
 * reading it on every signed-in request halved the rate of a token-authenticated packument GET (issue 24,
 * S1). Starting a session forgets the user here and, through LISTEN/NOTIFY, on every other node; a node
 * whose listening connection dropped forgets everyone (a missed notification), and an entry lives at
 * most IDLE_TTL_MS.
 */
export class QuickStartWatch {
  private readonly idle = new Map<string, number>();
  /** Grows with every session start heard: an answer read before it is not trusted after it. */
  epoch = 0;
  private unlisten: (() => Promise<void>) | undefined;

  constructor(
    private readonly channel?: NotifyChannel,
    private readonly now: () => number = Date.now,
  ) {}

  async listen(): Promise<void> {
    if (!this.channel) return;
    this.unlisten = await this.channel.listen(
      QUICK_START_CHANNEL,
      (user) => {
        this.epoch++;
        this.idle.delete(user);
      },
      () => {
        this.epoch++;
        this.idle.clear();
      },
    );
  }

  async close(): Promise<void> {
    await this.unlisten?.();
  }

  isIdle(user: string): boolean {
    const at = this.idle.get(user);
    if (at === undefined) return false;
    if (this.now() - at < IDLE_TTL_MS) return true;
    this.idle.delete(user);
    return false;
  }

  /** `user` had no open session in a read begun at `epoch`. */
  markIdle(user: string, epoch: number): void {
    if (epoch !== this.epoch) return;
    if (this.idle.size >= IDLE_MAX_USERS) {
      const oldest = this.idle.keys().next().value;
      if (oldest !== undefined) this.idle.delete(oldest);
    }
    this.idle.set(user, this.now());
  }

  /** A session started: this node and the others read the table again for `user`. */
  async started(user: string): Promise<void> {
    this.epoch++;
    this.idle.delete(user);
    await this.channel?.notify(QUICK_START_CHANNEL, user);
  }
}

/** Registers the hook; failures are logged, never the client's problem. */
export function registerQuickStartObserver(
  app: FastifyInstance,
  db: Db,
  log: Logger,
  watch: QuickStartWatch,
): void {
  // A callback hook: most requests leave at once, without a promise (issue 24).
  app.addHook('onResponse', (request, reply, done) => {
    const url = request.url;
    const user = request.principal?.name;
    if ((!url.startsWith('/v2') && !url.startsWith('/repository/')) || !user || watch.isIdle(user))
      return done();
    observe(db, request, reply.statusCode, watch).then(
      () => done(),
      (err: unknown) => {
        log.warn({ err, url: url.split('?')[0] }, 'quick-start observation failed');
        done();
      },
    );
  });
}
