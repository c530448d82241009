import {
  ANONYMOUS_USER,
  ANY_LOCAL_REPOSITORY,
  ANY_REMOTE_REPOSITORY,
  ANY_REPOSITORY,
  type PermissionAction,
  type PermissionResource,
  type PermissionTarget,
  type PermissionTargetWrite,
  permissionTargetSchema,
  type RepositoryClass,
} from '@granary/contracts';
import type { Db } from '../../platform/db/index.ts';
import { InvalidError, NotFoundError, validField } from '../../platform/errors.ts';
import type { Executor } from '../../platform/events/index.ts';
import type { Principal } from '../../platform/http/access-control.ts';
import { findGroupsByNames, findUsersByNames } from './access.queries.ts';
import { antMatch } from './ant-pattern.ts';
import { auditOf } from './audit.service.ts';
import { type AccessContext, permissionsChanged, type RequestMeta } from './context.ts';
import {
  deleteTargetRow,
  findTargetByName,
  listTargetRows,
  type PermissionTargetRow,
  updateTargetResources,
  upsertTarget,
} from './permissions.queries.ts';

const RESOURCE_KINDS = ['repo', 'build', 'releaseBundle'] as const;
export type ResourceKind = (typeof RESOURCE_KINDS)[number];
type Resources = Pick<PermissionTarget, ResourceKind>;

function toTarget(row: PermissionTargetRow): PermissionTarget {
  return permissionTargetSchema.parse({ name: row.name, ...(row.resources as Resources) });
}

export async function getPermissionTarget(ctx: AccessContext, name: string): Promise<PermissionTarget> {
  const row = await findTargetByName(ctx.db, name);
  if (!row) throw new NotFoundError(`Permission target '${name}' not found`);
  return toTarget(row);
}

export async function listPermissionTargets(ctx: AccessContext): Promise<PermissionTarget[]> {
  return (await listTargetRows(ctx.db)).map(toTarget);
}

/** Every user and group a target names must exist (the user `anonymous` always does). */
async function checkPrincipals(db: Db, resources: Resources): Promise<void> {
  const userNames = new Set<string>();
  const groupNames = new Set<string>();
  for (const kind of RESOURCE_KINDS) {
    for (const n of Object.keys(resources[kind]?.actions.users ?? {})) userNames.add(n);
    for (const n of Object.keys(resources[kind]?.actions.groups ?? {})) groupNames.add(n);
  }
  userNames.delete(ANONYMOUS_USER);
  const users = await findUsersByNames(db, [...userNames]);
  const groups = await findGroupsByNames(db, [...groupNames]);
  const missingUsers = [...userNames].filter(
    (n) => !users.some((u) => u.name.toLowerCase() === n.toLowerCase()),
  );
  const missingGroups = [...groupNames].filter(
    (n) => !groups.some((g) => g.name.toLowerCase() === n.toLowerCase()),
  );
  if (missingUsers.length > 0) throw new InvalidError(`Unknown user: ${missingUsers.join(', ')}`);
  if (missingGroups.length > 0) throw new InvalidError(`Unknown group: ${missingGroups.join(', ')}`);
}

export async function putPermissionTarget(
  ctx: AccessContext,
  meta: RequestMeta,
  name: string,
  body: PermissionTargetWrite,
): Promise<{ created: boolean; target: PermissionTarget }> {
  validField('name', permissionTargetSchema.shape.name, name);
  if (body.name && body.name !== name)
    throw new InvalidError('The name in the body differs from the name in the path');
  const resources: Resources = {};
  for (const kind of RESOURCE_KINDS) if (body[kind]) resources[kind] = body[kind];
  await checkPrincipals(ctx.db, resources);
  const outcome = await upsertTarget(ctx.db, name, resources);
  await permissionsChanged(ctx);
  await ctx.audit.record({
    ...auditOf(meta),
    action: outcome === 'created' ? 'permission.create' : 'permission.update',
    target: name,
    result: 'success',
  });
  return { created: outcome === 'created', target: await getPermissionTarget(ctx, name) };
}

export async function deletePermissionTarget(
  ctx: AccessContext,
  meta: RequestMeta,
  name: string,
): Promise<void> {
  const row = await findTargetByName(ctx.db, name);
  if (!row) throw new NotFoundError(`Permission target '${name}' not found`);
  await deleteTargetRow(ctx.db, row.id);
  await permissionsChanged(ctx);
  await ctx.audit.record({
    ...auditOf(meta),
    action: 'permission.delete',
    target: row.name,
    result: 'success',
  });
}

/**
 * A deleted user or group leaves every permission target that named it, so the targets stay valid
 * (re-saving one checks that every name exists). Names match case-insensitively.
 */
export async function removePrincipalFromTargets(
  db: Executor,
  kind: 'users' | 'groups',
  name: string,
): Promise<void> {
  const lower = name.toLowerCase();
  for (const row of await listTargetRows(db)) {
    const resources = row.resources as Resources;
    let changed = false;
    for (const k of RESOURCE_KINDS) {
      const actions = resources[k]?.actions?.[kind];
      if (!actions) continue;
      for (const n of Object.keys(actions))
        if (n.toLowerCase() === lower) {
          delete actions[n];
          changed = true;
        }
    }
    if (changed) await updateTargetResources(db, row.id, resources);
  }
}

/** What is asked about: a repository (with its class) and a path inside it; or a build / release bundle. */
export interface ResourceRef {
  kind?: ResourceKind;
  /** Repository key, or build / release bundle name. */
  key: string;
  /** For repositories: local, remote or virtual. */
  rclass?: RepositoryClass;
  /** Path inside the repository (no leading slash needed); '' for the repository itself. */
  path?: string;
}

function resourceMatches(resource: PermissionResource, ref: ResourceRef): boolean {
  const key = ref.key.toLowerCase();
  const named = resource.repositories.some((r) => {
    if (r === ANY_REPOSITORY) return true;
    if (r === ANY_LOCAL_REPOSITORY) return ref.rclass === 'local';
    if (r === ANY_REMOTE_REPOSITORY) return ref.rclass === 'remote';
    return r.toLowerCase() === key;
  });
  if (!named) return false;
  const path = (ref.path ?? '').replace(/^\/+/, '');
  if (!resource.include_patterns.some((p) => antMatch(p, path))) return false;
  return !resource.exclude_patterns.some((p) => antMatch(p, path));
}

function grants(list: PermissionAction[] | undefined, action: PermissionAction): boolean {
  // `manage` includes every other action, as in the peers.
  return !!list && (list.includes(action) || list.includes('manage'));
}

/**
 * The one permission question: may `principal` (null = anonymous) do `action` on the repository
 * `ref.key` (of class `ref.rclass`) at `ref.path`? Admins may do all. Anonymous callers get only what
 * targets grant the user `anonymous`, and nothing while anonymous access is off. Client-protocol
 * routes of every format call this.
 */
export class Authorizer {
  private targets: { generation: number; at: number; list: PermissionTarget[] } | undefined;

  constructor(
    private readonly ctx: AccessContext,
    private readonly ttlMs = 5_000,
  ) {}

  private async currentTargets(): Promise<PermissionTarget[]> {
    const t = this.targets;
    if (t && t.generation === this.ctx.generation.value && Date.now() - t.at < this.ttlMs) return t.list;
    const list = await listPermissionTargets(this.ctx);
    this.targets = { generation: this.ctx.generation.value, at: Date.now(), list };
    return list;
  }

  async can(principal: Principal | null, action: PermissionAction, ref: ResourceRef): Promise<boolean> {
    const kind = ref.kind ?? 'repo';
    // A scoped token's limits come first: they hold for an admin-scoped token too (issue 12 §18).
    const scope = principal?.scope;
    if (scope?.readOnly && action !== 'read') return false;
    if (scope?.repositories && (kind !== 'repo' || !scope.repositories.includes(ref.key.toLowerCase())))
      return false;
    if (principal?.admin) return true;
    if (!principal && !(await this.ctx.settings.get()).anonymousAccess) return false;
    const userName = (principal?.name ?? ANONYMOUS_USER).toLowerCase();
    const groupNames = new Set((principal?.groups ?? []).map((g) => g.toLowerCase()));
    // A groups-scoped token has its groups' grants only, not those naming its owner.
    const userGrants = !scope?.groupsOnly;
    for (const target of await this.currentTargets()) {
      const resource = target[kind];
      if (!resource || !resourceMatches(resource, ref)) continue;
      if (userGrants)
        for (const [name, actions] of Object.entries(resource.actions.users))
          if (name.toLowerCase() === userName && grants(actions, action)) return true;
      for (const [name, actions] of Object.entries(resource.actions.groups))
        if (groupNames.has(name.toLowerCase()) && grants(actions, action)) return true;
    }
    return false;
  }
}
