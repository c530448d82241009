import {
  ACCESS_MESSAGES,
  AccessErrorCode,
  DEFAULT_PROJECT,
  PROJECT_LIMITS,
  type Project,
  type ProjectCreate,
  type ProjectLimit,
  type ProjectMember,
  type ProjectUpdate,
} from '@granary/contracts';
import { ConflictError, ForbiddenError, InvalidError, NotFoundError } from '../../platform/errors.ts';
import type { Principal } from '../../platform/http/access-control.ts';
import { findGroupByName, findUserByName } from './access.queries.ts';
import { auditOf } from './audit.service.ts';
import type { AccessContext, RequestMeta } from './context.ts';
import {
  countProjects,
  deleteMemberRow,
  deleteProjectRow,
  findProjectRow,
  insertProjectIfAbsent,
  listMemberRows,
  listProjectRows,
  type MemberKind,
  membershipsOf,
  type ProjectRow,
  updateProjectRow,
  upsertMemberRow,
} from './projects.queries.ts';

export const PROJECT_ADMIN_ROLE = 'Project Admin';

function toProject(row: ProjectRow): Project {
  return {
    project_key: row.key,
    display_name: row.displayName,
    description: row.description,
    admin_privileges: {
      manage_members: row.manageMembers,
      manage_resources: row.manageResources,
      index_resources: row.indexResources,
    },
    storage_quota_bytes: row.storageQuotaBytes,
  };
}

/** -1 and null both mean "no quota". */
const quota = (bytes: number | null | undefined) =>
  bytes === undefined ? undefined : bytes === -1 ? null : bytes;

async function memberships(ctx: AccessContext, principal: Principal) {
  return membershipsOf(
    ctx.db,
    principal.name.toLowerCase(),
    (principal.groups ?? []).map((g) => g.toLowerCase()),
  );
}

/** Roles the principal holds in each project, directly or through its groups. */
async function rolesByProject(ctx: AccessContext, principal: Principal): Promise<Map<string, Set<string>>> {
  const map = new Map<string, Set<string>>();
  for (const row of await memberships(ctx, principal)) {
    const roles = map.get(row.projectKey) ?? new Set<string>();
    for (const r of row.roles as string[]) roles.add(r);
    map.set(row.projectKey, roles);
  }
  return map;
}

/** spec 000 §6: a project administrator holds the Project Admin role in some project. */
export async function isProjectAdmin(ctx: AccessContext, principal: Principal): Promise<boolean> {
  if (principal.admin) return true;
  return [...(await rolesByProject(ctx, principal)).values()].some((r) => r.has(PROJECT_ADMIN_ROLE));
}

async function requireProject(ctx: AccessContext, key: string): Promise<ProjectRow> {
  const row = await findProjectRow(ctx.db, key);
  if (!row) throw new NotFoundError(`Project '${key}' not found`);
  return row;
}

/** Admins see every project; other users the projects they (or their groups) are members of. */
export async function listProjects(ctx: AccessContext, principal: Principal): Promise<Project[]> {
  const rows = await listProjectRows(ctx.db);
  if (principal.admin) return rows.map(toProject);
  const mine = await rolesByProject(ctx, principal);
  return rows.filter((r) => mine.has(r.key)).map(toProject);
}

export async function getProject(ctx: AccessContext, principal: Principal, key: string): Promise<Project> {
  const row = await requireProject(ctx, key);
  if (!principal.admin && !(await rolesByProject(ctx, principal)).has(key)) throw new ForbiddenError();
  return toProject(row);
}

export async function projectLimit(ctx: AccessContext): Promise<ProjectLimit> {
  return { ...PROJECT_LIMITS, current: await countProjects(ctx.db) };
}

export async function createProject(
  ctx: AccessContext,
  meta: RequestMeta,
  body: ProjectCreate,
): Promise<Project> {
  if ((await countProjects(ctx.db)) >= PROJECT_LIMITS.firstLevel)
    throw new ConflictError(ACCESS_MESSAGES.projectLimit, AccessErrorCode.ProjectLimit);
  const inserted = await insertProjectIfAbsent(ctx.db, {
    key: body.project_key,
    displayName: body.display_name,
    description: body.description ?? '',
    manageMembers: body.admin_privileges?.manage_members ?? true,
    manageResources: body.admin_privileges?.manage_resources ?? true,
    indexResources: body.admin_privileges?.index_resources ?? true,
    storageQuotaBytes: quota(body.storage_quota_bytes) ?? null,
  });
  if (!inserted) throw new ConflictError(ACCESS_MESSAGES.projectExists, AccessErrorCode.ProjectExists);
  await ctx.audit.record({
    ...auditOf(meta),
    action: 'project.create',
    target: body.project_key,
    result: 'success',
  });
  return toProject(await requireProject(ctx, body.project_key));
}

export async function updateProject(
  ctx: AccessContext,
  meta: RequestMeta,
  key: string,
  body: ProjectUpdate,
): Promise<Project> {
  await requireProject(ctx, key);
  await updateProjectRow(ctx.db, key, {
    displayName: body.display_name,
    description: body.description,
    manageMembers: body.admin_privileges?.manage_members,
    manageResources: body.admin_privileges?.manage_resources,
    indexResources: body.admin_privileges?.index_resources,
    storageQuotaBytes: quota(body.storage_quota_bytes),
  });
  await ctx.audit.record({ ...auditOf(meta), action: 'project.update', target: key, result: 'success' });
  return toProject(await requireProject(ctx, key));
}

export async function deleteProject(ctx: AccessContext, meta: RequestMeta, key: string): Promise<void> {
  if (key === DEFAULT_PROJECT.key)
    throw new ConflictError(ACCESS_MESSAGES.defaultProject, AccessErrorCode.DefaultProject);
  if (!(await deleteProjectRow(ctx.db, key))) throw new NotFoundError(`Project '${key}' not found`);
  await ctx.audit.record({ ...auditOf(meta), action: 'project.delete', target: key, result: 'success' });
}

/** spec 000 §3: the default project, "Default Project" / "dflt", exists from the first start. */
export async function ensureDefaultProject(ctx: AccessContext): Promise<void> {
  await insertProjectIfAbsent(ctx.db, { key: DEFAULT_PROJECT.key, displayName: DEFAULT_PROJECT.name });
}

// ---- members: admins, and the project's own admins when the project lets them manage members

export async function listProjectMembers(
  ctx: AccessContext,
  principal: Principal,
  key: string,
  kind: MemberKind,
): Promise<ProjectMember[]> {
  await getProject(ctx, principal, key);
  return (await listMemberRows(ctx.db, key, kind)).map((r) => ({
    name: r.name,
    roles: r.roles as ProjectMember['roles'],
  }));
}

async function assertCanManageMembers(ctx: AccessContext, principal: Principal, project: ProjectRow) {
  if (principal.admin) return;
  const roles = (await rolesByProject(ctx, principal)).get(project.key);
  if (!project.manageMembers || !roles?.has(PROJECT_ADMIN_ROLE)) throw new ForbiddenError();
}

export async function putProjectMember(
  ctx: AccessContext,
  meta: RequestMeta,
  key: string,
  kind: MemberKind,
  name: string,
  roles: ProjectMember['roles'],
): Promise<ProjectMember> {
  const project = await requireProject(ctx, key);
  await assertCanManageMembers(ctx, meta.principal!, project);
  const exists = kind === 'user' ? await findUserByName(ctx.db, name) : await findGroupByName(ctx.db, name);
  if (!exists) throw new InvalidError(`Unknown ${kind}: ${name}`);
  const stored = name.toLowerCase();
  const unique = [...new Set(roles)];
  await upsertMemberRow(ctx.db, { projectKey: key, kind, name: stored, roles: unique });
  await ctx.audit.record({
    ...auditOf(meta),
    action: 'project.member.put',
    target: `${key}:${kind}:${stored}`,
    result: 'success',
    details: { roles: unique },
  });
  return { name: stored, roles: unique };
}

export async function deleteProjectMember(
  ctx: AccessContext,
  meta: RequestMeta,
  key: string,
  kind: MemberKind,
  name: string,
): Promise<void> {
  const project = await requireProject(ctx, key);
  await assertCanManageMembers(ctx, meta.principal!, project);
  if (!(await deleteMemberRow(ctx.db, key, kind, name.toLowerCase())))
    throw new NotFoundError(`${kind === 'user' ? 'User' : 'Group'} '${name}' is not a member of '${key}'`);
  await ctx.audit.record({
    ...auditOf(meta),
    action: 'project.member.delete',
    target: `${key}:${kind}:${name.toLowerCase()}`,
    result: 'success',
  });
}
