import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from '../../config/index.ts';
import type { Jobs } from '../../platform/jobs/index.ts';

/**
 * The format interface (DESIGN.md "Package formats"): one object per package format, living in
 * `formats/<id>/`. The core knows nothing of npm or Maven; it calls these hooks.
 */

export type RepositoryClass = 'local' | 'remote' | 'virtual';

/** What a format knows of the repository it serves. */
export interface RepositoryRef {
  key: string;
  rclass: RepositoryClass;
  packageType: string;
  /** remote: the upstream URL */
  url?: string;
}

/** A stored file as the format sees it: path inside the repository and a way to read the bytes. */
export interface StoredFile {
  path: string;
  size: number;
  sha256: string;
  open(): Promise<Readable>;
}

/** Coordinates and metadata a format extracts from one stored file, for the packages index. */
export interface PackageMetadata {
  name: string;
  version: string;
  description?: string;
  licenses?: string[];
  keywords?: string[];
  dependencies?: { name: string; range?: string; scope?: string }[];
  readme?: string;
  /** The file that stands for the version (the tarball, the jar, the wheel…). */
  leadFile: boolean;
  /** The version's size when it is more than the lead file's (an image: its config and layers); else the file's. */
  size?: number;
}

/** Install snippets for the console's Set Me Up and install commands. */
export interface SnippetInput {
  baseUrl: string;
  repository: RepositoryRef;
  /** Shown in snippets that need credentials; never a real secret. */
  username?: string;
  packageName?: string;
  version?: string;
}

/** A package an install command names: the command without a version installs the latest. */
export interface InstallCommandInput {
  name: string;
  version?: string | null;
  /**
   * Where the package is, for clients that name it in the command (docker: `HOST/{repoKey}/NAME:TAG`):
   * the server's public base URL as Set Me Up computes it, and the repository the command pulls from.
   */
  baseUrl?: string;
  repoKey?: string;
}

/** One layer of an image as the console's Layers tab shows it (spec 001 §7 `docker layers`). */
export interface ImageLayer {
  index: number;
  digest: string;
  size: number;
  mediaType: string;
  /** the command of the config's history entry that made the layer */
  command: string | null;
}

/** A version's format-specific details (`PackageFormat.versionDetails`); each kind optional. */
export interface VersionDetails {
  /** an image's layers, from its manifest and config; `totalSize` counts the config too */
  layers?: {
    layers: ImageLayer[];
    totalSize: number;
    config: { digest: string; size: number } | null;
  };
}

export interface Snippet {
  title: string;
  /** e.g. 'shell', 'ini', 'xml', 'json' */
  language: string;
  code: string;
}

/** The caller of a client request, as a format may know it (never its credentials). */
export interface FormatPrincipal {
  name: string;
  admin: boolean;
}

/** Permission actions (DESIGN.md "Access model"). */
export type FormatAction = 'read' | 'annotate' | 'write' | 'delete' | 'manage';

/** A repository a format serves, with the settings of its class. */
export interface FormatRepository extends RepositoryRef {
  description: string;
  /** remote */
  remote?: {
    url: string;
    offline: boolean;
    /** seconds a fetched metadata document stays fresh */
    retrievalCachePeriodSecs: number;
    storeArtifactsLocally: boolean;
    /** through a virtual repository without allowRemoteOverride, never asked for a package a local member holds (default on) */
    namespaceConfusionProtection: boolean;
  };
  /** virtual: member keys in resolution order, and where deploys go */
  virtual?: { repositories: string[]; defaultDeploymentRepo?: string };
  /** Maven-like types: whether the repository accepts releases and snapshots */
  maven?: { handleReleases: boolean; handleSnapshots: boolean; allowReleaseRedeploy: boolean };
}

/** A stored file with its checksums and properties. */
export interface FormatFile extends StoredFile {
  sha1: string;
  md5: string;
  mimeType: string;
  properties: Record<string, string[]>;
  createdAt: Date;
  modifiedAt: Date;
  createdBy: string;
}

/**
 * A domain event a format publishes beside the core's own artifact events (issue 14 §Events), in the
 * transaction of the `deploy`, `link` or `delete` it rides on: it exists exactly when that change
 * commits, and not at all when the call changes nothing (the same bytes again, nothing deleted).
 */
export interface FormatEvent {
  /**
   * `${domain}.${event_type}` of the event catalogue (`EVENT_CATALOG` in @granary/contracts), e.g.
   * `docker.pushed`. The core's own domains (`artifact`, `artifact_property`, `user`) are refused.
   */
  type: string;
  /**
   * The delivery's `data`, snake_case. The core sets `repo_key` (the repository the change is in),
   * `virtual_repo_key` (when the handle came through a virtual repository) and `by` (the acting user).
   */
  data: Record<string, unknown>;
}

/** Domain events to publish with a change (`FormatEvent`). */
export interface EventOptions {
  events?: FormatEvent[];
  /**
   * The files changed are ones the format derives from another it stores (a wheel's PEP 658
   * `.metadata`): they announce no `artifact.*` event of their own — the file they come from does.
   * (A format's `internalPaths` never announce any.)
   */
  derived?: boolean;
}

export interface DeleteOptions extends EventOptions {
  /**
   * Not to the repository's trash (issue 21): the format's own housekeeping (OCI GC of unreferenced
   * blobs, a tag's replaced layer links, a failed publish undone). A client's delete or unpublish goes
   * to the trash (the default) like any other.
   */
  permanent?: boolean;
}

export interface DeployOptions extends EventOptions {
  /** checksums the client announced: a mismatch stores nothing (ConflictError 'CHECKSUM_MISMATCH') */
  expected?: { sha256?: string; sha1?: string; md5?: string; size?: number };
  properties?: Record<string, string[]>;
  /** refuse with ConflictError when another file is already stored at the path (immutable versions); the same bytes again are an idempotent success that changes nothing */
  noOverwrite?: boolean;
  /** package metadata for the packages index, when the format already parsed it (else extractMetadata runs) */
  metadata?: PackageMetadata | null;
  /** an index document the format regenerates from stored files (maven-metadata.xml): write permission at the path suffices to replace it (no delete permission) */
  regenerated?: boolean;
  /** store content already in the blob store by `expected.sha256` (no bytes read from `source`): a copy that costs no I/O, e.g. an OCI layer shared by tags */
  byChecksum?: boolean;
  /** store bytes `spool` already put in the blob store (no bytes read from `source`, no second write) */
  spooled?: SpooledBytes;
}

/** Bytes `RepositoryHandle.spool` put in the blob store, not yet a file anywhere (e.g. an OCI upload in progress). */
export interface SpooledBytes {
  readonly sha256: string;
  readonly size: number;
  /** the bytes again (to append more to them, say) */
  open(): Promise<Readable>;
  /**
   * Lets the bytes go (issue 21): until then (or the `holdSecs` given to `spool`) the blob garbage
   * collection keeps them although no file holds them. Call it once they are deployed or abandoned.
   */
  release(): Promise<void>;
}

/** What an upstream request answers (remote repositories). */
export interface UpstreamResponse {
  status: number;
  headers: Headers;
  /** the body, read whole (bounded by `maxBytes`); empty when `stream` was asked for */
  body: Buffer;
  /** `stream: true`: the body unread, for large content (destroy it when not consumed) */
  stream?: Readable;
}

/**
 * What an upstream's answer must look like, checked on its first bytes and its content type before
 * anything is stored or sent: `gzip` (1f 8b), `zip` ("PK"), `bzip2` ("BZh"), `xml` (a document that is
 * not an HTML page), `json` (an object or array). An HTML page never passes.
 */
export type UpstreamKind = 'gzip' | 'zip' | 'bzip2' | 'xml' | 'json';

/** A file an upstream sent, stored in the blob store but not (yet) cached: what `UpstreamCheck.verify` reads. */
export interface UpstreamFile extends StoredFile {
  sha1: string;
  md5: string;
}

/** remote: what the upstream's answer for one path must be before it is cached and served. */
export interface UpstreamCheck {
  /** what the bytes must be; default: what the path's extension names (`.tgz` gzip, `.jar`/`.whl`/`.zip` zip, `.pom` xml); null: anything */
  kind?: UpstreamKind | null;
  /** digests the bytes must have (hex), e.g. from the index document that links the file */
  checksums?: { sha256?: string; sha1?: string; md5?: string };
  /** reads the stored bytes before they are cached; throws to refuse them (the client gets 502, nothing is cached) */
  verify?(file: UpstreamFile): Promise<void>;
}

/**
 * What a format's `upstreamCheck` may use: the remote's own files and its upstream, as the server
 * (no caller, no permission check). It must not `get` the path it is checking.
 */
export interface UpstreamCheckContext {
  repository: FormatRepository;
  log: Logger;
  /**
   * A file of this remote: its cached copy (`refresh`: revalidated with the upstream first), or fetched
   * from the upstream — itself checked — and cached; null when the upstream has none.
   */
  get(path: string, opts?: { refresh?: boolean }): Promise<UpstreamFile | null>;
  /** GET from the upstream (path relative to the remote URL), the body read whole (at most `maxBytes`, default 1 MiB); nothing is cached. */
  upstream(
    path: string,
    opts?: { maxBytes?: number },
  ): Promise<{ status: number; headers: Headers; body: Buffer }>;
}

/** The server settings formats read (issue 13 §2: given explicitly, never the server's whole config). */
export type FormatSettings = Readonly<
  Pick<Config, 'npmPublishMaxBytes' | 'ociGcIntervalSecs' | 'ociGcGraceSecs' | 'ociUploadExpirySecs'>
>;

/**
 * One repository as the core hands it to a format, usable with or without a client request (a job,
 * `afterChange`): reach the core only through this, never the database. It acts as one principal —
 * a request's caller, or for the server's own work `_system` with every permission. Every file
 * operation checks that principal's permission on the canonical path and throws the core's domain
 * errors (`platform/errors.ts`: UnauthorizedError, ForbiddenError, NotFoundError, ConflictError, …):
 * catch them, by class or by `httpStatusOf` (`platform/http/error-status.ts`), to answer in the
 * client's own error shape.
 */
export interface RepositoryHandle {
  repository: FormatRepository;
  /**
   * This server (one object per running app): the key of a format's in-memory state that must not be
   * shared with another server in the same process (tests run two nodes on one database in one process).
   */
  readonly node: object;
  log: Logger;
  /** The server settings formats read. */
  settings: FormatSettings;
  /** Throws 401 (anonymous), 403 or 404 (repository hidden) unless the acting principal may. */
  authorize(action: FormatAction, path: string): Promise<void>;
  can(action: FormatAction, path: string): Promise<boolean>;
  /**
   * A file stored in this repository (local, or a remote's cache), no upstream, no permission check.
   * `read`: a download's lookup (GET or HEAD), through the core's read cache — this node's changes show
   * at once, another node's within 1 s, as for every other download. Never for a lookup a write decides on.
   */
  stat(path: string, opts?: { read?: boolean }): Promise<FormatFile | null>;
  /**
   * Reads a file through the core's resolution (read permission checked; null when absent): local
   * file; remote cache, fetched from the upstream on a miss and cached (paths `isMetadataPath` names
   * are revalidated after the retrieval cache period); virtual: first member that has it, local
   * members win.
   */
  get(path: string): Promise<FormatFile | null>;
  /** Files stored directly in a folder of this repository (`''` = root), no permission check. */
  list(folder: string): Promise<{ name: string; folder: boolean }[]>;
  /** All files stored below a folder of this repository, recursively, no permission check. */
  listFiles(folder: string): Promise<FormatFile[]>;
  /** Deploys bytes (write permission, delete too when overwriting; virtual → default deployment repository). */
  deploy(path: string, source: Readable | Buffer, opts?: DeployOptions): Promise<FormatFile>;
  /**
   * Stores bytes in the blob store, hashed and verified, without making them a file anywhere (write
   * permission on `path`, where they are meant to go): an upload that a later request completes by
   * deploying them with `spooled`, at the cost of one database write instead of a file to delete.
   */
  spool(
    path: string,
    source: Readable,
    opts?: { expected?: DeployOptions['expected']; holdSecs?: number },
  ): Promise<SpooledBytes>;
  /**
   * Stores files whose content is already stored, each the same bytes as a file this handle (or
   * another the core gave) handed out (`sameAs`): no bytes read, all in one transaction (write
   * permission; delete to replace other content). A path already holding the same content and
   * properties is left as it is. E.g. an OCI tag's `manifest.json` and layer files. A file may instead
   * name bytes `spool` put in the blob store (`spooled`): several uploads made files in one commit
   * (issue 24: an npm publish's tarball and version record). With `noOverwrite`, other content
   * already at a path is refused (ConflictError 'ALREADY_EXISTS') and nothing is stored.
   */
  link(
    files: ({
      path: string;
      properties?: Record<string, string[]>;
      metadata?: PackageMetadata | null;
    } & ({ sameAs: FormatFile; spooled?: never } | { spooled: SpooledBytes; sameAs?: never }))[],
    opts?: EventOptions & { noOverwrite?: boolean },
  ): Promise<FormatFile[]>;
  /**
   * Bytes an earlier `spool` put in the blob store, found again by their sha256 after the handle was
   * lost (a restart in the middle of an upload): read back, hashed and verified again (write
   * permission on `path`); null when the blob store no longer has them.
   */
  respool(path: string, sha256: string): Promise<SpooledBytes | null>;
  /**
   * Deletes a file or folder (delete permission); the number of files removed. The format's own
   * change: its `afterChange` is not called for it.
   */
  delete(path: string, opts?: DeleteOptions): Promise<number>;
  /** Replaces a stored file's properties (annotate permission). */
  setProperties(path: string, properties: Record<string, string[]>): Promise<void>;
  /** virtual: handles of the members the acting principal may read, in resolution order (nested virtuals flattened). */
  members(): Promise<RepositoryHandle[]>;
  /** Where a deploy to this repository lands (itself; a virtual's default deployment repository). */
  deployContext(): Promise<RepositoryHandle>;
  /** remote: GET from the upstream (path relative to the remote URL, or an absolute URL on the upstream's origin), through the outbound client, credentials only to the upstream's origin. `method: 'POST'` with a `body` forwards a client's query (npm audit). */
  upstream(
    pathOrUrl: string,
    init?: {
      headers?: Record<string, string>;
      maxBytes?: number;
      stream?: boolean;
      method?: 'GET' | 'POST';
      body?: Buffer;
    },
  ): Promise<UpstreamResponse>;
  /** Stores bytes fetched from the upstream in the remote's cache at `path` (no permission check: the cache is the server's). */
  cache(path: string, source: Readable | Buffer, opts?: DeployOptions): Promise<FormatFile>;
  /**
   * Runs `fn` while holding the lock `name` of this repository (e.g. one package's metadata),
   * cluster-wide: one holder at a time across every node (a PostgreSQL advisory lock; on embedded
   * PGlite, one process, an in-process queue). Released when `fn` settles. Do not take another lock
   * inside `fn`.
   */
  withLock<T>(name: string, fn: () => Promise<T>): Promise<T>;
  /** The repository's OpenPGP signing (Debian and RPM index signatures). */
  readonly signing: RepositorySigning;
  /**
   * A counter that moves whenever an artifact changes on this node: a format's in-memory documents
   * are fresh while it stands still (other nodes' changes: keep such documents at most a second).
   */
  generation?(): number;
}

/**
 * A repository's OpenPGP signing (issue 23: Debian's Release/InRelease, RPM's repomd.xml.asc): the
 * signing key the repository names (`primaryKeyPairRef`, Artifactory's field; a key of
 * Administration → Signing keys), or else one the server generates for the repository on first use
 * and keeps (sealed at rest) under the name `repo-{repoKey}`. The private key never leaves the core.
 */
export interface RepositorySigning {
  /** The armored public key clients verify with (Set Me Up links it; `gpg --dearmor` for apt's signed-by). */
  publicKey(): Promise<string>;
  /** The key's fingerprint, upper-case hex. */
  fingerprint(): Promise<string>;
  /** A detached armored signature over the bytes (Debian `Release.gpg`, RPM `repomd.xml.asc`). */
  signDetached(data: Buffer): Promise<string>;
  /** The text in an OpenPGP cleartext-signed message (Debian `InRelease`). */
  clearsign(text: string): Promise<string>;
}

/**
 * A repository's handle for one client request (the `handle` hook, a format's own routes): the
 * handle acting as the request's caller, and what answering the client needs.
 */
export interface RequestContext extends RepositoryHandle {
  /** Public base URL of the server for this request, no trailing slash (`http://host:8080`). */
  baseUrl: string;
  /** `${baseUrl}/repository/${key}` */
  repositoryUrl: string;
  /** The caller (null: anonymous). */
  principal: FormatPrincipal | null;
  /** Sends a stored file as the client's download (ETag, ranges, checksum headers, inert content). */
  send(reply: FastifyReply, file: FormatFile): Promise<FastifyReply>;
  /** Refuses (403) a stored file a policy blocks (scanning, issue 16), for answers not sent by `send` (OCI manifests). */
  checkDownload(file: FormatFile): Promise<void>;
  /**
   * The server's advisory database (scanning, issue 16), when the scanning module is there: npm's bulk
   * advisory answer (`npm audit`) for `{name: [versions]}`.
   */
  advisories?: FormatAdvisories;
  /** A client's own login protocol (`npm login`): the user when name and password are right (throttled, audited). */
  login(name: string, password: string): Promise<FormatPrincipal | null>;
  /** Revokes the access token the caller authenticated with (`npm logout`); false when the caller used none. */
  revokeCallerToken(): Promise<boolean>;
  /** A new revocable access token for `principal` (default: the caller), e.g. the answer to `npm login`. */
  issueToken(opts: {
    description: string;
    expiresInSecs?: number;
    principal?: FormatPrincipal;
  }): Promise<{ token: string; expiresInSecs: number | null }>;
  /**
   * A browser sign-in for a command-line client (npm's web login): a session the user confirms on the
   * console's page at `url` (this server's own, absolute), and its secret id the client polls with.
   */
  openCliLogin(client: string): Promise<{ session: string; url: string }>;
  /**
   * The state of a session `openCliLogin` opened: `pending` until the user confirms; then, once, the
   * confirming user's new access token; null when unknown or expired.
   */
  pollCliLogin(
    session: string,
  ): Promise<{ status: 'pending' } | { status: 'confirmed'; username: string; token: string } | null>;
}

/** What the advisory database answers formats (scanning, issue 16). */
export interface FormatAdvisories {
  /** `{name: [versions]}` → `{name: [{id, url, title, severity, vulnerable_versions, cwe, cvss}]}` (npm's bulk advisory shape). */
  npmBulk(body: Record<string, string[]>): Promise<Record<string, unknown[]>>;
}

/** A recurring job a format runs (the core's jobs facility, `platform/jobs`). */
export type FormatJobs = Pick<Jobs, 'recurring'>;

/**
 * What the core hands a format at boot for the routes it serves outside `/repository/{key}/` and its
 * background work (OCI `/v2/`, garbage collection): explicit services, never the server itself.
 */
export interface FormatCore {
  /** The request context of repository `repoKey` for a request one of the format's routes received; null when there is none. */
  requestContext(request: FastifyRequest, repoKey: string): Promise<RequestContext | null>;
  /**
   * A repository's handle for the server's own work (jobs, an admin's maintenance call), with no
   * request: every permission, recorded as `_system`.
   */
  systemHandle(repoKey: string): Promise<RepositoryHandle | null>;
  /** Keys of every repository (of one package type when given), e.g. for OCI `_catalog`: ask each handle's `can` before showing one. */
  repositoryKeys(packageType?: string): Promise<string[]>;
  /** The server settings formats read. */
  settings: FormatSettings;
  /**
   * The server's temporary area (`$GRANARY_HOME/tmp`, the file system of the blob store's own
   * temporary files; kept across restarts): a format keeps files in progress in a folder of its own
   * there (e.g. `oci-uploads/`).
   */
  tempDir: string;
  /** Registers the format's recurring jobs (started once the server is ready, stopped when it closes). */
  jobs: FormatJobs;
  /** The core's limits for upload routes (slow clients, uploads per address): an `onRequest` hook for the format's upload routes. */
  uploadLimits: onRequestHookHandler;
  /** The server's clock (epoch ms) for expiries; tests move it instead of sleeping. */
  now: () => number;
}

/** An error as the core describes it, for a format to render in its client's shape. */
export interface FormatError {
  status: number;
  code: string;
  message: string;
}

/**
 * Files the core changed in a repository other than through its format's own handle (the console's
 * tree browser, `/api/copy`, `/api/move`, a DELETE the format left to the core): repository paths, no
 * leading slash.
 */
export interface PathsChange {
  /** Files or folders removed (a folder: everything that was below it; a move's sources). */
  deleted?: string[];
  /** Files stored (copy and move targets). */
  added?: string[];
}

/** A client request on a repository, as the core hands it to a format. */
export interface FormatRequest {
  method: string;
  /** Path inside the repository as the router decoded it, no leading slash (`@scope/name`, `simple/foo/`). */
  path: string;
  query: Record<string, string | undefined>;
  headers: Record<string, string | string[] | undefined>;
  /** The request body, unread (any content type). */
  body: Readable;
  raw: FastifyRequest;
}

export interface PackageFormat {
  /** Package type id as stored on repositories: 'generic', 'npm', 'pypi', 'maven', 'docker', … */
  readonly id: string;
  /** Other spellings accepted for the id (spec 001 §9 aliases: golang→go, gav→maven, …). */
  readonly aliases: readonly string[];
  readonly displayName: string;
  /** Icon name the console maps to an image. */
  readonly icon: string;
  /** Repository classes this format supports. */
  readonly classes: readonly RepositoryClass[];
  /** From a stored file, the package coordinates and metadata, or null when the file is not a package. */
  extractMetadata(file: StoredFile): Promise<PackageMetadata | null>;
  /** Set Me Up snippets for a repository of this format. */
  snippets(input: SnippetInput): Snippet[];
  /**
   * The install command of a package, with its version when given (spec 001 §3 install commands): a
   * pure function (`formats/<id>/install-command.ts`) the core calls for GraphQL's `installCommand`
   * fields, which the console shows. Absent, or null: the type has no install command.
   */
  installCommand?(pkg: InstallCommandInput): string | null;
  /**
   * What only the format can read from a version's stored files, for the console's version view
   * (issue 13 §3), e.g. an image's layers: `path` is the version's lead file or folder, which the caller
   * may read (checked by the core). Null when the format has nothing for it.
   */
  versionDetails?(repo: RepositoryHandle, path: string): Promise<VersionDetails | null>;
  /**
   * A generated client configuration document (Maven's `settings.xml`, a POM's `distributionManagement`)
   * by name, for the console's Set Me Up calls; `repositories` maps roles (release, snapshot, …) to keys.
   * Null for a name the format does not know.
   */
  clientConfig?(name: string, input: SnippetInput & { repositories: Record<string, string> }): Snippet | null;
  /** remote: the upstream URL for a path in the repository. */
  upstreamUrl?(remoteUrl: string, path: string): string;
  /**
   * Paths the format keeps for itself (issue 12 §20), as Ant-style patterns matched against the
   * lower-cased path: npm's `.npm/**` records, PyPI's `.pypi-external/**`. The generic APIs never show
   * them (storage info and listings, folder pages, the tree browser's calls, search, folder archives)
   * nor write them (`/api/copy`, `/api/move`, properties, PUT/DELETE the format leaves to the core);
   * the format itself reaches them through its `RepositoryHandle` as any other path.
   */
  readonly internalPaths?: readonly string[];
  /**
   * Client protocol: answers a request to `/repository/{key}/{path}` on a repository of this format
   * (any method). Returns false to leave it to the generic file handling (GET/HEAD/PUT/DELETE of
   * stored files, folder listings). Errors thrown are the core's envelope unless the format renders
   * its client's own shape.
   */
  handle?(request: FormatRequest, reply: FastifyReply, ctx: RequestContext): Promise<boolean>;
  /**
   * Routes a format serves outside `/repository/{key}/` (OCI's `/v2/`) and its background jobs,
   * registered once at boot. `app` is only a place to register routes on (they declare their access
   * in route config like every route); everything else comes from `core`.
   */
  routes?(app: FastifyInstance, core: FormatCore): Promise<void>;
  /**
   * The body of an error answer on this format's client endpoint (npm `{error}`), including 401s
   * from authentication. Headers may be set on `reply`. Default: the core's `{errors: [...]}`.
   */
  errorBody?(error: FormatError, reply: FastifyReply): unknown;
  /**
   * After the repositories service committed a change the format did not make itself (`PathsChange`:
   * a delete, copy or move, whatever route asked for it), on a local repository or a remote's cache:
   * regenerate what the format derives from stored files (Maven's maven-metadata.xml), serialised with
   * its own writes through `repo.withLock`. The handle acts as the server (every permission, recorded
   * as `_system`; no request); the user's operation has already succeeded, so an error thrown here is
   * only logged.
   */
  afterChange?(repo: RepositoryHandle, change: PathsChange): Promise<void>;
  /** remote: paths whose cached copy is revalidated after the retrieval cache period (index documents). Default: every path. */
  isMetadataPath?(path: string): boolean;
  /**
   * remote: what the upstream's answer for `path` must be before it is cached (issue 12 §4, §5): the
   * checksums the format's index gives for it (packument, simple page, `.sha1`), the package inside
   * naming what was asked. `false`: a path the format never asks its upstream for (answered as absent,
   * no request made). null: only the kind the path's extension names is checked. Throwing refuses
   * the fetch (502).
   */
  upstreamCheck?(path: string, ctx: UpstreamCheckContext): Promise<UpstreamCheck | false | null>;
  /**
   * The path a repository's include/exclude patterns are matched against besides the stored one, when
   * the format keeps a package's files outside its name (npm: the records `.npm/{name}/…` as
   * `{name}/…`, so `@acme/**` covers the whole package). Default: the stored path only.
   */
  patternPath?(path: string): string | null;
  /**
   * The folder holding every file of the package `path` belongs to in a local repository (npm
   * `{name}`, PyPI `packages/{project}`, Maven `{group}/{artifact}`), or null. Through a virtual
   * repository, a remote member with `namespaceConfusionProtection` is never asked for a path whose
   * package folder a local member holds. Default: only the path itself counts.
   */
  packageFolder?(path: string): string | null;
}
