import {
  CACHE_SUFFIX,
  DEFAULT_REPOSITORY_KEY,
  HIDDEN_REPOSITORY_TYPES,
  isMavenLike,
  type Repository,
  type RepositoryWrite,
  repositoryKeySchema,
} from '@granary/contracts';
import type { FormatRegistry } from '../../formats/registry.ts';
import type { Db } from '../../platform/db/index.ts';
import { ConflictError, InvalidError, NotFoundError } from '../../platform/errors.ts';
import { publish } from '../../platform/events/index.ts';
import {
  createAddressPolicy,
  normalizeHostName,
  parseAddress,
} from '../../platform/outbound/address-policy.ts';
import { type Resolver, systemResolver } from '../../platform/outbound/guarded-lookup.ts';
import { registerSealedColumn, sealFor } from '../../platform/secrets/index.ts';
import {
  deleteRepositoryRow,
  findRepositoryByKey,
  insertRepository,
  listRepositoryRows,
  type RepositoryRow,
  updateRepository,
  withAdvisoryLock,
} from './repositories.queries.ts';

export type RepositoryClass = 'local' | 'remote' | 'virtual';

export interface RemoteSettings {
  url: string;
  username?: string;
  proxy?: string;
  /** Direct, even when a default proxy is configured (Artifactory's `disableProxy`). */
  disableProxy?: boolean;
  offline: boolean;
  retrievalCachePeriodSecs: number;
  missedRetrievalCachePeriodSecs: number;
  storeArtifactsLocally: boolean;
  /**
   * Through a virtual repository (without `allowRemoteOverride`), never asked for anything of a
   * package a local member holds: another version of an npm name, a PyPI project, a Maven
   * groupId:artifactId (a path a local member holds is never asked of any remote). Absent (older rows): on.
   */
  namespaceConfusionProtection?: boolean;
}
export interface VirtualSettings {
  repositories: string[];
  defaultDeploymentRepo: string | null;
  /** A remote member may answer for a path a local member holds (off: dependency-confusion protection). */
  allowRemoteOverride?: boolean;
}
export interface TrashSettings {
  enabled: boolean;
  /** null: the server's default (`GRANARY_TRASH_RETENTION_DAYS`). */
  retentionDays: number | null;
}
export interface MavenSettings {
  handleReleases: boolean;
  handleSnapshots: boolean;
  /** Off by default: a release, once deployed, is never replaced (409). */
  allowReleaseRedeploy: boolean;
}

/** A repository as the services use it (the remote password included; never sent to clients). */
export interface RepoConfig {
  id: string;
  key: string;
  rclass: RepositoryClass;
  packageType: string;
  description: string;
  notes: string;
  includesPattern: string;
  excludesPattern: string;
  projectKey: string | null;
  remote?: RemoteSettings;
  virtual?: VirtualSettings;
  maven?: MavenSettings;
  /** local: the trash can (issue 21); absent: on, with the server's retention. */
  trash?: TrashSettings;
  /** The signing key the repository's index signatures use (issue 23); absent: its own. */
  signing?: { primaryKeyPairRef?: string };
  password?: string;
  createdAt: Date;
}

const REMOTE_FIELDS = [
  'url',
  'username',
  'password',
  'proxy',
  'disableProxy',
  'offline',
  'retrievalCachePeriodSecs',
  'missedRetrievalCachePeriodSecs',
  'storeArtifactsLocally',
  'namespaceConfusionProtection',
] as const;
/** The outbound client's proxy choice for a remote: none, the one it names, or (undefined) the default. */
export function upstreamProxy(remote: RemoteSettings): string | null | undefined {
  return remote.disableProxy ? null : remote.proxy;
}

const VIRTUAL_FIELDS = ['repositories', 'defaultDeploymentRepo', 'allowRemoteOverride'] as const;
const MAVEN_FIELDS = ['handleReleases', 'handleSnapshots', 'allowReleaseRedeploy'] as const;
const DEFAULT_LOCK_KEY = 0x67726e7265706fn; // 'grnrepo'

export function toRepoConfig(row: RepositoryRow): RepoConfig {
  const s = (row.settings ?? {}) as {
    remote?: RemoteSettings;
    virtual?: VirtualSettings;
    maven?: MavenSettings;
    trash?: TrashSettings;
    signing?: { primaryKeyPairRef?: string };
  };
  return {
    id: row.id,
    key: row.key,
    rclass: row.rclass as RepositoryClass,
    packageType: row.packageType,
    description: row.description,
    notes: row.notes,
    includesPattern: row.includesPattern,
    excludesPattern: row.excludesPattern,
    projectKey: row.projectKey,
    remote: s.remote,
    virtual: s.virtual,
    maven: s.maven,
    trash: s.trash,
    signing: s.signing,
    password: row.remotePassword ?? undefined,
    createdAt: row.createdAt,
  };
}

/** The REST shape; the password is write only. */
export function toRepository(repo: RepoConfig): Repository {
  const { remote, virtual, maven } = repo;
  return {
    key: repo.key,
    rclass: repo.rclass,
    packageType: repo.packageType,
    description: repo.description,
    notes: repo.notes,
    includesPattern: repo.includesPattern,
    excludesPattern: repo.excludesPattern,
    projectKey: repo.projectKey,
    ...(remote
      ? {
          url: remote.url,
          ...(remote.username ? { username: remote.username } : {}),
          ...(remote.proxy ? { proxy: remote.proxy } : {}),
          disableProxy: remote.disableProxy ?? false,
          offline: remote.offline,
          retrievalCachePeriodSecs: remote.retrievalCachePeriodSecs,
          missedRetrievalCachePeriodSecs: remote.missedRetrievalCachePeriodSecs,
          storeArtifactsLocally: remote.storeArtifactsLocally,
          namespaceConfusionProtection: remote.namespaceConfusionProtection ?? true,
        }
      : {}),
    ...(virtual
      ? {
          repositories: virtual.repositories,
          defaultDeploymentRepo: virtual.defaultDeploymentRepo,
          allowRemoteOverride: virtual.allowRemoteOverride ?? false,
        }
      : {}),
    ...(maven
      ? {
          handleReleases: maven.handleReleases,
          handleSnapshots: maven.handleSnapshots,
          allowReleaseRedeploy: maven.allowReleaseRedeploy ?? false,
        }
      : {}),
    ...(repo.rclass === 'local'
      ? {
          trashcanEnabled: repo.trash?.enabled ?? true,
          ...(repo.trash?.retentionDays ? { trashcanRetentionDays: repo.trash.retentionDays } : {}),
        }
      : {}),
    ...(repo.signing?.primaryKeyPairRef ? { primaryKeyPairRef: repo.signing.primaryKeyPairRef } : {}),
  };
}

export async function listRepositories(
  db: Db,
  filter: { rclass?: RepositoryClass; packageType?: string } = {},
  formats?: FormatRegistry,
): Promise<RepoConfig[]> {
  const wantedType = filter.packageType
    ? (formats?.get(filter.packageType)?.id ?? filter.packageType.toLowerCase())
    : undefined;
  return (await listRepositoryRows(db))
    .map(toRepoConfig)
    .filter((r) => !(HIDDEN_REPOSITORY_TYPES as readonly string[]).includes(r.packageType.toLowerCase()))
    .filter((r) => !filter.rclass || r.rclass === filter.rclass)
    .filter((r) => !wantedType || r.packageType === wantedType);
}

/**
 * Repository configurations by lower-cased key, per database: every artifact request looks one up.
 * A change on this node clears its cache at once; other nodes see it within the TTL.
 */
const CONFIG_TTL_MS = 5_000;
const configCache = new WeakMap<object, Map<string, { at: number; repo: RepoConfig | undefined }>>();

export function forgetConfigs(db: Db): void {
  configCache.delete(db);
}

export async function findRepository(db: Db, key: string): Promise<RepoConfig | undefined> {
  let byKey = configCache.get(db);
  if (!byKey) {
    byKey = new Map();
    configCache.set(db, byKey);
  }
  const id = key.toLowerCase();
  const hit = byKey.get(id);
  if (hit && Date.now() - hit.at < CONFIG_TTL_MS) return hit.repo;
  const row = await findRepositoryByKey(db, key);
  const repo = row ? toRepoConfig(row) : undefined;
  if (byKey.size >= 10_000) byKey.clear();
  byKey.set(id, { at: Date.now(), repo });
  return repo;
}

export async function getRepository(db: Db, key: string): Promise<RepoConfig> {
  const repo = await findRepository(db, key);
  if (!repo) throw new NotFoundError(`Repository '${key}' not found`);
  return repo;
}

function checkPatterns(value: string | undefined, field: string): void {
  if (value === undefined || value.trim() === '') return;
  for (const p of value.split(',')) {
    const pattern = p.trim();
    if (!pattern) throw new InvalidError(`${field}: empty pattern in "${value}"`);
    if (pattern.split('/').includes('..'))
      throw new InvalidError(`${field}: ".." is not allowed in a pattern`);
  }
}

function refuseFields(body: RepositoryWrite, fields: readonly string[], what: string): void {
  const given = fields.filter((f) => (body as Record<string, unknown>)[f] !== undefined);
  if (given.length > 0) throw new InvalidError(`${given.join(', ')}: only for ${what} repositories`);
}

function checkUrl(url: string | undefined): string {
  if (!url) throw new InvalidError('url: a remote repository needs the upstream URL');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InvalidError(`url: "${url}" is not a URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new InvalidError('url: only http and https upstreams are supported');
  if (parsed.username || parsed.password)
    throw new InvalidError('url: put credentials in username and password, not in the URL');
  return url;
}

/** Refuses an upstream URL the outbound client would never dial (issue 12 §8); resolves on success. */
export type UpstreamAddressCheck = (url: string) => Promise<void>;

const ALLOWLIST_SETTING = 'GRANARY_OUTBOUND_ALLOWLIST';

/** What kind of non-public address `address` is, for the refusal message. */
function describeAddress(address: string): string {
  const ip = parseAddress(address);
  if (!ip) return 'not a public address';
  const v4 =
    ip.kind() === 'ipv6' && (ip as import('ipaddr.js').IPv6).isIPv4MappedAddress()
      ? (ip as import('ipaddr.js').IPv6).toIPv4Address()
      : ip;
  if (v4.toString() === '169.254.169.254' || v4.toString() === 'fd00:ec2::254')
    return 'the cloud metadata address';
  const names: Record<string, string> = {
    loopback: 'a loopback address',
    private: 'a private address',
    uniqueLocal: 'a private (unique local) address',
    linkLocal: 'a link-local address (where cloud metadata services answer)',
    carrierGradeNat: 'a shared (carrier-grade NAT) address',
    unspecified: 'the unspecified address',
    broadcast: 'a broadcast address',
    multicast: 'a multicast address',
  };
  return names[v4.range()] ?? 'not a public unicast address';
}

/**
 * The save-time half of the outbound address rule: an upstream whose host is, or resolves to, a
 * loopback, private, link-local (cloud metadata) or otherwise non-public address is refused unless
 * `GRANARY_OUTBOUND_ALLOWLIST` names the host or the address, as the outbound client refuses it when
 * dialling. A name that does not resolve now (or not within `timeoutMs`) is accepted: the dial-time
 * check still applies to whatever it resolves to later.
 */
export function upstreamAddressCheck(
  allowlist: string[],
  resolve: Resolver = systemResolver,
  timeoutMs = 3000,
): UpstreamAddressCheck {
  const policy = createAddressPolicy(allowlist);
  const refuse = (host: string, address: string) =>
    new InvalidError(
      `url: ${host}${address === host ? ' is' : ` resolves to ${address},`} ${describeAddress(address)}: ` +
        'remote repositories may not reach loopback, private, link-local or metadata addresses ' +
        `unless ${ALLOWLIST_SETTING} names the host or the address`,
      'UPSTREAM_ADDRESS_REFUSED',
    );
  return async (url) => {
    const host = normalizeHostName(new URL(url).hostname);
    if (parseAddress(host)) {
      if (!policy.isAllowed(host)) throw refuse(host, host);
      return;
    }
    if (policy.namesHost(host)) return;
    let timer: NodeJS.Timeout | undefined;
    const addresses = await Promise.race([
      resolve(host, { all: true }).catch(() => []),
      new Promise<[]>((r) => {
        timer = setTimeout(() => r([]), timeoutMs);
      }),
    ]).finally(() => clearTimeout(timer));
    for (const { address } of addresses) if (!policy.isAllowed(address, host)) throw refuse(host, address);
  };
}

/** Members exist, share the package type, hold no duplicates and make no cycle; the default deployment repository is a local member. */
async function checkVirtual(
  db: Db,
  key: string,
  packageType: string,
  settings: VirtualSettings,
): Promise<VirtualSettings> {
  const all = new Map((await listRepositoryRows(db)).map((r) => [r.key.toLowerCase(), toRepoConfig(r)]));
  const members: string[] = [];
  for (const name of settings.repositories) {
    const member = all.get(name.toLowerCase());
    if (!member) throw new InvalidError(`repositories: repository '${name}' does not exist`);
    if (member.key.toLowerCase() === key.toLowerCase())
      throw new InvalidError('repositories: a virtual repository cannot contain itself');
    if (member.packageType !== packageType)
      throw new InvalidError(
        `repositories: '${member.key}' is a ${member.packageType} repository, not ${packageType}`,
      );
    if (members.some((m) => m.toLowerCase() === member.key.toLowerCase()))
      throw new InvalidError(`repositories: '${member.key}' is listed twice`);
    members.push(member.key);
  }
  // No cycle through nested virtual repositories.
  const visit = (name: string, seen: Set<string>): void => {
    const repo = all.get(name.toLowerCase());
    if (!repo?.virtual) return;
    for (const m of repo.virtual.repositories) {
      if (m.toLowerCase() === key.toLowerCase() || seen.has(m.toLowerCase()))
        throw new InvalidError(`repositories: '${name}' leads back to '${key}'`);
      visit(m, new Set([...seen, m.toLowerCase()]));
    }
  };
  for (const m of members) visit(m, new Set());
  let deploy: string | null = null;
  if (settings.defaultDeploymentRepo) {
    const target = members.find((m) => m.toLowerCase() === settings.defaultDeploymentRepo!.toLowerCase());
    if (!target)
      throw new InvalidError('defaultDeploymentRepo: must be one of the virtual repository’s members');
    if (all.get(target.toLowerCase())?.rclass !== 'local')
      throw new InvalidError('defaultDeploymentRepo: must be a local repository');
    deploy = target;
  }
  return {
    repositories: members,
    defaultDeploymentRepo: deploy,
    allowRemoteOverride: settings.allowRemoteOverride ?? false,
  };
}

function uniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; cause?: { code?: string } };
  return e?.code === '23505' || e?.cause?.code === '23505';
}

// A remote's password is sealed at rest (issue 18); `RepoConfig.password` holds it sealed, opened only
// to authenticate upstream (remote.service, format-context).
registerSealedColumn({ table: 'repositories', key: 'id', column: 'remote_password' });

/** Builds the stored form of a repository from an existing one (update) or nothing (create). */
async function buildConfig(
  db: Db,
  formats: FormatRegistry,
  key: string,
  body: RepositoryWrite,
  existing?: RepoConfig,
  checkAddress?: UpstreamAddressCheck,
): Promise<Omit<RepoConfig, 'id' | 'createdAt'>> {
  if (body.key !== undefined && body.key.toLowerCase() !== key.toLowerCase())
    throw new InvalidError('key: the key in the body differs from the key in the path');
  const rclass = body.rclass ?? existing?.rclass;
  if (!rclass) throw new InvalidError('rclass: required (local, remote or virtual)');
  if (existing && rclass !== existing.rclass)
    throw new InvalidError('rclass: the class of a repository cannot change');
  let packageType = existing?.packageType ?? 'generic';
  if (body.packageType !== undefined) {
    const format = formats.get(body.packageType);
    if (!format) throw new InvalidError(`packageType: unknown package type "${body.packageType}"`);
    if (existing && format.id !== existing.packageType)
      throw new InvalidError('packageType: the package type of a repository cannot change');
    if (!format.classes.includes(rclass))
      throw new InvalidError(`packageType: ${format.id} has no ${rclass} repositories`);
    packageType = format.id;
  }
  checkPatterns(body.includesPattern, 'includesPattern');
  checkPatterns(body.excludesPattern, 'excludesPattern');
  if (rclass !== 'remote') refuseFields(body, REMOTE_FIELDS, 'remote');
  if (rclass !== 'virtual') refuseFields(body, VIRTUAL_FIELDS, 'virtual');
  if (!isMavenLike(packageType)) refuseFields(body, MAVEN_FIELDS, 'maven');
  if (rclass !== 'local') refuseFields(body, ['trashcanEnabled', 'trashcanRetentionDays'], 'local');

  const config: Omit<RepoConfig, 'id' | 'createdAt'> = {
    key: existing?.key ?? key,
    rclass,
    packageType,
    description: body.description ?? existing?.description ?? '',
    notes: body.notes ?? existing?.notes ?? '',
    includesPattern: body.includesPattern?.trim() || existing?.includesPattern || '**/*',
    excludesPattern:
      body.excludesPattern !== undefined ? body.excludesPattern.trim() : (existing?.excludesPattern ?? ''),
    projectKey: body.projectKey !== undefined ? body.projectKey || null : (existing?.projectKey ?? null),
    password: existing?.password,
  };
  if (rclass === 'remote') {
    const prev = existing?.remote;
    config.remote = {
      url: checkUrl(body.url ?? prev?.url),
      username: body.username !== undefined ? body.username || undefined : prev?.username,
      proxy: body.proxy !== undefined ? body.proxy || undefined : prev?.proxy,
      disableProxy: body.disableProxy ?? prev?.disableProxy ?? false,
      offline: body.offline ?? prev?.offline ?? false,
      retrievalCachePeriodSecs: body.retrievalCachePeriodSecs ?? prev?.retrievalCachePeriodSecs ?? 7200,
      missedRetrievalCachePeriodSecs:
        body.missedRetrievalCachePeriodSecs ?? prev?.missedRetrievalCachePeriodSecs ?? 1800,
      storeArtifactsLocally: body.storeArtifactsLocally ?? prev?.storeArtifactsLocally ?? true,
      namespaceConfusionProtection:
        body.namespaceConfusionProtection ?? prev?.namespaceConfusionProtection ?? true,
    };
    if (body.password !== undefined) config.password = sealFor(db, body.password || undefined);
    // A URL given (always on create) is checked against the outbound address rule now, not only when dialled.
    if (checkAddress && (body.url !== undefined || !existing)) await checkAddress(config.remote.url);
  }
  if (rclass === 'virtual') {
    config.virtual = await checkVirtual(db, key, packageType, {
      repositories: body.repositories ?? existing?.virtual?.repositories ?? [],
      defaultDeploymentRepo:
        body.defaultDeploymentRepo !== undefined
          ? body.defaultDeploymentRepo
          : (existing?.virtual?.defaultDeploymentRepo ?? null),
      allowRemoteOverride: body.allowRemoteOverride ?? existing?.virtual?.allowRemoteOverride ?? false,
    });
  }
  if (isMavenLike(packageType)) {
    config.maven = {
      handleReleases: body.handleReleases ?? existing?.maven?.handleReleases ?? true,
      handleSnapshots: body.handleSnapshots ?? existing?.maven?.handleSnapshots ?? true,
      allowReleaseRedeploy: body.allowReleaseRedeploy ?? existing?.maven?.allowReleaseRedeploy ?? false,
    };
  }
  if (rclass === 'local')
    config.trash = {
      enabled: body.trashcanEnabled ?? existing?.trash?.enabled ?? true,
      retentionDays:
        body.trashcanRetentionDays !== undefined
          ? body.trashcanRetentionDays
          : (existing?.trash?.retentionDays ?? null),
    };
  const keyPair =
    body.primaryKeyPairRef !== undefined
      ? body.primaryKeyPairRef || undefined
      : existing?.signing?.primaryKeyPairRef;
  if (keyPair) config.signing = { primaryKeyPairRef: keyPair };
  return config;
}

function toRow(config: Omit<RepoConfig, 'id' | 'createdAt'>) {
  return {
    key: config.key,
    rclass: config.rclass,
    packageType: config.packageType,
    description: config.description,
    notes: config.notes,
    includesPattern: config.includesPattern,
    excludesPattern: config.excludesPattern,
    projectKey: config.projectKey,
    settings: {
      ...(config.remote ? { remote: config.remote } : {}),
      ...(config.virtual ? { virtual: config.virtual } : {}),
      ...(config.maven ? { maven: config.maven } : {}),
      ...(config.trash ? { trash: config.trash } : {}),
      ...(config.signing ? { signing: config.signing } : {}),
    },
    remotePassword: config.password ?? null,
  };
}

export function checkNewRepositoryKey(key: string): void {
  const parsed = repositoryKeySchema.safeParse(key);
  if (!parsed.success) throw new InvalidError(parsed.error.issues.map((i) => i.message).join('; '));
}

export async function createRepository(
  db: Db,
  formats: FormatRegistry,
  key: string,
  body: RepositoryWrite,
  by: string,
  checkAddress?: UpstreamAddressCheck,
): Promise<RepoConfig> {
  checkNewRepositoryKey(key);
  if (await findRepositoryByKey(db, key)) throw new ConflictError(`Repository '${key}' already exists`);
  const config = await buildConfig(db, formats, key, body, undefined, checkAddress);
  try {
    return await db.transaction(async (tx) => {
      const row = await insertRepository(tx, toRow(config));
      await publish(tx, { type: 'repository.created', payload: { repo: row.key, rclass: row.rclass, by } });
      return toRepoConfig(row);
    });
  } catch (err) {
    if (uniqueViolation(err)) throw new ConflictError(`Repository '${key}' already exists`);
    throw err;
  } finally {
    forgetConfigs(db);
  }
}

export async function updateRepositoryConfig(
  db: Db,
  formats: FormatRegistry,
  key: string,
  body: RepositoryWrite,
  by: string,
  checkAddress?: UpstreamAddressCheck,
): Promise<RepoConfig> {
  const existing = await getRepository(db, key);
  const config = await buildConfig(db, formats, key, body, existing, checkAddress);
  try {
    return await db.transaction(async (tx) => {
      const row = await updateRepository(tx, existing.id, toRow(config));
      await publish(tx, { type: 'repository.updated', payload: { repo: row.key, by } });
      return toRepoConfig(row);
    });
  } finally {
    forgetConfigs(db);
  }
}

/** Deletes a repository with its artifacts; virtual repositories that listed it drop it. */
export async function deleteRepository(db: Db, key: string, by: string): Promise<void> {
  const existing = await getRepository(db, key);
  await db.transaction(async (tx) => {
    for (const row of await listRepositoryRows(tx)) {
      const repo = toRepoConfig(row);
      if (!repo.virtual?.repositories.includes(existing.key)) continue;
      const virtual: VirtualSettings = {
        repositories: repo.virtual.repositories.filter((m) => m !== existing.key),
        defaultDeploymentRepo:
          repo.virtual.defaultDeploymentRepo === existing.key ? null : repo.virtual.defaultDeploymentRepo,
        allowRemoteOverride: repo.virtual.allowRemoteOverride,
      };
      await updateRepository(tx, repo.id, { settings: { ...(row.settings as object), virtual } });
    }
    await deleteRepositoryRow(tx, existing.id);
    await publish(tx, { type: 'repository.deleted', payload: { repo: existing.key, by } });
  });
  forgetConfigs(db);
}

/** A fresh install gets one generic local repository; several nodes starting at once create it once. */
export async function ensureDefaultRepository(db: Db): Promise<void> {
  await withAdvisoryLock(db, DEFAULT_LOCK_KEY, async (tx) => {
    if ((await listRepositoryRows(tx)).length > 0) return;
    await insertRepository(tx, {
      key: DEFAULT_REPOSITORY_KEY,
      rclass: 'local',
      packageType: 'generic',
      description: 'Generic files',
    });
  });
}

/** `{key}-cache` names the cache of the remote repository `key`. */
export function cacheBaseKey(key: string): string | null {
  return key.toLowerCase().endsWith(CACHE_SUFFIX) ? key.slice(0, -CACHE_SUFFIX.length) : null;
}
