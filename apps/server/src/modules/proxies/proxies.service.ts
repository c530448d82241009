import {
  PROXY_KEY_PATTERN,
  PROXY_MESSAGES,
  type ProxyInfo,
  type ProxyWrite,
  proxyWriteSchema,
} from '@granary/contracts';
import type { Db } from '../../platform/db/index.ts';
import { ConflictError, InvalidError, NotFoundError } from '../../platform/errors.ts';
import type { ProxyResolver, ProxySnapshot, ProxyTarget } from '../../platform/outbound/index.ts';
import { registerSealedColumn, type Secrets } from '../../platform/secrets/index.ts';

// Sealed at rest (issue 18): walked by the start-up seal and the key-rotation job.
registerSealedColumn({ table: 'proxies', key: 'key', column: 'password' });

import {
  clearOtherDefaults,
  deleteProxyRow,
  findProxyRow,
  insertProxyRow,
  listProxyRows,
  type ProxyRow,
  updateProxyRow,
} from './proxies.queries.ts';

/**
 * Something that names proxies by key (remote repositories, webhooks): deleting a proxy clears its
 * references there, as Artifactory's `removeProxy` does; they then use the default proxy.
 */
export interface ProxyReferenceHolder {
  /** `repository`, `webhook`: named in the answer of a delete. */
  kind: string;
  /** Removes `key` wherever it is named; answers the names of what changed. */
  clear(key: string, caller: Caller): Promise<string[]>;
}

export interface AuditEntry {
  action: string;
  target: string;
  actor: string | null;
  ip: string;
  requestId: string;
}

export interface ProxiesContext {
  db: Db;
  secrets: Secrets;
  cache: ProxyCache;
  holders: ProxyReferenceHolder[];
  audit: (entry: AuditEntry) => Promise<void>;
}

export interface Caller {
  name: string | null;
  ip: string;
  requestId: string;
}

/** How long a node trusts its copy of the proxies: a change made on another node applies within it. */
export const PROXY_CACHE_TTL_MS = 1_000;

/**
 * The outbound client's resolver: every proxy (password opened), read at most once per TTL per
 * node. A change on this node is seen at once (`forget`); one made on another node within the TTL.
 */
export class ProxyCache implements ProxyResolver {
  private snapshot: ProxySnapshot | undefined;
  private at = 0;
  private loading: Promise<ProxySnapshot> | undefined;

  constructor(
    private readonly db: Db,
    private readonly secrets: Secrets,
    private readonly now: () => number = Date.now,
  ) {}

  forget(): void {
    this.snapshot = undefined;
  }

  async current(): Promise<ProxySnapshot> {
    if (this.snapshot && this.now() - this.at < PROXY_CACHE_TTL_MS) return this.snapshot;
    this.loading ??= this.load().finally(() => {
      this.loading = undefined;
    });
    return this.loading;
  }

  private async load(): Promise<ProxySnapshot> {
    const rows = await listProxyRows(this.db);
    const byKey = new Map<string, ProxyTarget>();
    let defaultKey: string | undefined;
    for (const row of rows) {
      byKey.set(row.key, this.targetOf(row));
      if (row.isDefault) defaultKey = row.key;
    }
    const fresh = { byKey, defaultKey };
    // The same configuration keeps its snapshot object, so the client knows nothing changed.
    const same = this.snapshot && sameSnapshot(this.snapshot, fresh);
    if (!same) this.snapshot = fresh;
    this.at = this.now();
    return this.snapshot!;
  }

  private targetOf(row: ProxyRow): ProxyTarget {
    const host = row.host.includes(':') ? `[${row.host}]` : row.host;
    return {
      key: row.key,
      url: `http://${host}:${row.port}`,
      ...(row.username ? { username: row.username } : {}),
      ...(row.password ? { password: this.secrets.openSecret(row.password) } : {}),
      redirectToHosts: row.redirectToHosts,
    };
  }
}

function sameSnapshot(a: ProxySnapshot, b: ProxySnapshot): boolean {
  if (a.defaultKey !== b.defaultKey || a.byKey.size !== b.byKey.size) return false;
  for (const [key, t] of a.byKey) if (JSON.stringify(t) !== JSON.stringify(b.byKey.get(key))) return false;
  return true;
}

export function toProxyInfo(row: ProxyRow): ProxyInfo {
  return {
    key: row.key,
    host: row.host,
    port: row.port,
    username: row.username,
    password: '',
    passwordSet: row.password !== null,
    ntHost: row.ntHost,
    domain: row.domain,
    defaultProxy: row.isDefault,
    redirectToHosts: row.redirectToHosts,
  };
}

export async function listProxies(ctx: ProxiesContext): Promise<ProxyInfo[]> {
  return (await listProxyRows(ctx.db)).map(toProxyInfo);
}

async function mustFind(ctx: ProxiesContext, key: string): Promise<ProxyRow> {
  const row = await findProxyRow(ctx.db, key);
  if (!row) throw new NotFoundError(`No proxy named ${key}`);
  return row;
}

export async function getProxy(ctx: ProxiesContext, key: string): Promise<ProxyInfo> {
  return toProxyInfo(await mustFind(ctx, key));
}

function checkInput(input: unknown): ProxyWrite {
  const parsed = proxyWriteSchema.safeParse(input);
  if (!parsed.success)
    throw new InvalidError(
      parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '),
    );
  return parsed.data;
}

function checkKey(key: string | undefined): string {
  const k = (key ?? '').trim();
  if (!k) throw new InvalidError(`key: ${PROXY_MESSAGES.mandatory}`);
  if (!PROXY_KEY_PATTERN.test(k)) throw new InvalidError(`key: ${PROXY_MESSAGES.key}`);
  return k;
}

function columnsOf(input: ProxyWrite, secrets: Secrets, before?: ProxyRow) {
  let password: string | null = before?.password ?? null;
  if (input.password === null) password = null;
  else if (input.password) password = secrets.sealSecret(input.password);
  const username = (input.username ?? '').trim();
  return {
    host: input.host,
    port: input.port,
    username,
    // A proxy without a user sends no credentials: a password left behind would never be used.
    password: username ? password : null,
    ntHost: (input.ntHost ?? '').trim(),
    domain: (input.domain ?? '').trim(),
    isDefault: input.defaultProxy ?? false,
    redirectToHosts: [...new Set((input.redirectToHosts ?? []).map((h) => h.toLowerCase()))],
  };
}

export async function createProxy(ctx: ProxiesContext, body: unknown, caller: Caller): Promise<ProxyInfo> {
  const input = checkInput(body);
  const key = checkKey(input.key);
  if (await findProxyRow(ctx.db, key)) throw new ConflictError(PROXY_MESSAGES.duplicate);
  const columns = columnsOf(input, ctx.secrets);
  try {
    await ctx.db.transaction(async (tx) => {
      if (columns.isDefault) await clearOtherDefaults(tx, key);
      await insertProxyRow(tx, { key, ...columns });
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new ConflictError(PROXY_MESSAGES.duplicate);
    throw err;
  }
  ctx.cache.forget();
  await ctx.audit({ action: 'proxy.created', target: key, actor: caller.name, ...at(caller) });
  return getProxy(ctx, key);
}

/** Replaces a proxy; a password absent or `""` keeps the stored one, `null` removes it. A `key` in the body must match. */
export async function updateProxy(
  ctx: ProxiesContext,
  key: string,
  body: unknown,
  caller: Caller,
): Promise<ProxyInfo> {
  const row = await mustFind(ctx, key);
  const input = checkInput(body);
  if (input.key !== undefined && input.key !== '' && input.key.toLowerCase() !== row.key.toLowerCase())
    throw new InvalidError('key: the key in the body differs from the key in the path');
  const columns = columnsOf(input, ctx.secrets, row);
  await ctx.db.transaction(async (tx) => {
    if (columns.isDefault) await clearOtherDefaults(tx, row.key);
    await updateProxyRow(tx, row.key, columns);
  });
  ctx.cache.forget();
  await ctx.audit({ action: 'proxy.updated', target: row.key, actor: caller.name, ...at(caller) });
  return getProxy(ctx, row.key);
}

/** PUT on the public API: creates (`created: true`) or replaces. */
export async function putProxy(
  ctx: ProxiesContext,
  key: string,
  body: unknown,
  caller: Caller,
): Promise<{ proxy: ProxyInfo; created: boolean }> {
  if (await findProxyRow(ctx.db, key))
    return { proxy: await updateProxy(ctx, key, body, caller), created: false };
  const given = (body ?? {}) as { key?: unknown };
  if (typeof given.key === 'string' && given.key !== '' && given.key.toLowerCase() !== key.toLowerCase())
    throw new InvalidError('key: the key in the body differs from the key in the path');
  return {
    proxy: await createProxy(ctx, { ...(body as object), key }, caller),
    created: true,
  };
}

/**
 * Deletes a proxy and clears every reference to it (Artifactory's behaviour): the remote
 * repositories and webhooks that named it use the default proxy from then on. Answers what was cleared.
 */
export async function deleteProxy(
  ctx: ProxiesContext,
  key: string,
  caller: Caller,
): Promise<{ key: string; cleared: { kind: string; name: string }[] }> {
  const row = await mustFind(ctx, key);
  const cleared: { kind: string; name: string }[] = [];
  for (const holder of ctx.holders)
    for (const name of await holder.clear(row.key, caller)) cleared.push({ kind: holder.kind, name });
  await deleteProxyRow(ctx.db, row.key);
  ctx.cache.forget();
  await ctx.audit({ action: 'proxy.deleted', target: row.key, actor: caller.name, ...at(caller) });
  return { key: row.key, cleared };
}

function at(caller: Caller) {
  return { ip: caller.ip, requestId: caller.requestId };
}

function isUniqueViolation(err: unknown): boolean {
  let current: unknown = err;
  for (let depth = 0; current != null && depth < 5; depth++) {
    if ((current as { code?: unknown }).code === '23505') return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
