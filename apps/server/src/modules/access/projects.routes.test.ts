import { ACCESS_MESSAGES, AccessErrorCode, DEFAULT_PROJECT } from '@granary/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  basicAuth,
  createTestApp,
  TEST_ADMIN_PASSWORD,
  type TestApp,
  testEngine,
} from '../../testing/index.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
const PW = 'Sam-pa55word!';
const SAM = basicAuth('sam', PW);
const TESS = basicAuth('tess', PW);
const V1 = '/ui/api/v1';

describe(`projects (${testEngine})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    for (const name of ['sam', 'tess'])
      await t.app.inject({
        method: 'PUT',
        url: `/api/security/users/${name}`,
        headers: { authorization: ADMIN },
        payload: { password: PW },
      });
    await t.app.inject({
      method: 'PUT',
      url: '/api/security/groups/builders',
      headers: { authorization: ADMIN },
      payload: { members: ['tess'] },
    });
  });
  afterAll(async () => {
    await t?.close();
  });
  const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, auth: string, payload?: object) =>
    t.app.inject({ method, url: `${V1}/${url}`, headers: { authorization: auth }, payload });

  it('spec 000 §3, spec 001 §9: the default project "Default Project" / "dflt" exists from the start and cannot be deleted', async () => {
    const list = await call('GET', 'projects', ADMIN);
    expect(list.statusCode).toBe(200);
    expect(list.json()).toContainEqual(
      expect.objectContaining({ project_key: DEFAULT_PROJECT.key, display_name: 'Default Project' }),
    );
    const del = await call('DELETE', 'access/projects/dflt', ADMIN);
    expect(del.statusCode).toBe(409);
    expect(del.json().errors[0].code).toBe(AccessErrorCode.DefaultProject);
  });

  it('spec 000 §5, spec 001 §5: project key must start with a lowercase character (exact message), at most 128 characters', async () => {
    const upper = await call('POST', 'access/projects', ADMIN, { project_key: 'Team', display_name: 'Team' });
    expect(upper.statusCode).toBe(400);
    expect(upper.json().errors[0].message).toContain(ACCESS_MESSAGES.projectKeyLowercase);
    const digit = await call('POST', 'access/projects', ADMIN, { project_key: '1team', display_name: 'T' });
    expect(digit.json().errors[0].message).toContain(ACCESS_MESSAGES.projectKeyLowercase);
    const chars = await call('POST', 'access/projects', ADMIN, { project_key: 'team_a', display_name: 'T' });
    expect(chars.statusCode).toBe(400);
    const long = await call('POST', 'access/projects', ADMIN, {
      project_key: `a${'b'.repeat(128)}`,
      display_name: 'T',
    });
    expect(long.statusCode).toBe(400);
    expect(long.json().errors[0].message).toContain(ACCESS_MESSAGES.projectKeyMaxLength);
    const max = await call('POST', 'access/projects', ADMIN, {
      project_key: `a${'b'.repeat(127)}`,
      display_name: 'Max',
    });
    expect(max.statusCode).toBe(201);
    const extra = await call('POST', 'access/projects', ADMIN, {
      project_key: 'x1',
      display_name: 'X',
      owner: 'me',
    });
    expect(extra.statusCode).toBe(400);
  });

  it('spec 000 §7: projects CRUD at projects and access/projects; a duplicate key is 409 PROJECT_EXISTS; projects/limit answers single 1, first level 100, second level 100', async () => {
    const created = await call('POST', 'projects', ADMIN, {
      project_key: 'apollo',
      display_name: 'Apollo',
      description: 'moon',
      storage_quota_bytes: -1,
    });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toEqual({
      project_key: 'apollo',
      display_name: 'Apollo',
      description: 'moon',
      admin_privileges: { manage_members: true, manage_resources: true, index_resources: true },
      storage_quota_bytes: null,
    });
    const dup = await call('POST', 'access/projects', ADMIN, {
      project_key: 'apollo',
      display_name: 'Again',
    });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().errors[0].code).toBe(AccessErrorCode.ProjectExists);
    const updated = await call('PUT', 'access/projects/apollo', ADMIN, {
      display_name: 'Apollo 11',
      admin_privileges: { manage_members: true, manage_resources: false, index_resources: true },
    });
    expect(updated.json()).toMatchObject({ display_name: 'Apollo 11', description: 'moon' });
    expect(updated.json().admin_privileges.manage_resources).toBe(false);
    expect((await call('GET', 'projects/apollo', ADMIN)).json().display_name).toBe('Apollo 11');
    const limit = await call('GET', 'projects/limit', SAM);
    expect(limit.json()).toMatchObject({ single: 1, firstLevel: 100, secondLevel: 100 });
    expect(limit.json().current).toBeGreaterThanOrEqual(2);
    await call('POST', 'projects', ADMIN, { project_key: 'gone', display_name: 'Gone' });
    expect((await call('DELETE', 'projects/gone', ADMIN)).statusCode).toBe(204);
    expect((await call('GET', 'access/projects/gone', ADMIN)).statusCode).toBe(404);
  });

  it('route × role: a regular user gets 403 on every admin project endpoint and sees only projects they belong to; anonymous gets 401', async () => {
    await call('POST', 'projects', ADMIN, { project_key: 'hermes', display_name: 'Hermes' });
    for (const [method, url, payload] of [
      ['POST', 'projects', { project_key: 'mine', display_name: 'Mine' }],
      ['POST', 'access/projects', { project_key: 'mine', display_name: 'Mine' }],
      ['PUT', 'projects/hermes', { display_name: 'X' }],
      ['PUT', 'access/projects/hermes', { display_name: 'X' }],
      ['DELETE', 'projects/hermes', undefined],
      ['DELETE', 'access/projects/hermes', undefined],
      ['PUT', 'access/projects/hermes/users/sam', { roles: ['Developer'] }],
      ['DELETE', 'access/projects/hermes/users/tess', undefined],
    ] as const) {
      const res = await call(method, url, SAM, payload);
      expect(res.statusCode, `${method} ${url}`).toBe(403);
    }
    expect((await call('GET', 'projects/hermes', SAM)).statusCode).toBe(403);
    expect((await call('GET', 'projects', SAM)).json()).toEqual([]);
    expect((await t.app.inject({ url: `${V1}/projects` })).statusCode).toBe(401);
    const table = t.app.routeAccessTable.filter((r) => r.url.includes('/projects'));
    for (const r of table.filter((r) => ['POST', 'DELETE'].includes(r.method) && !r.url.includes(':kind')))
      expect(r.access, `${r.method} ${r.url}`).toBe('admin');
  });

  it('spec 000 §6: a project admin manages their own project members (also through a group), not other projects; members see their project; userData.projectAdmin says so', async () => {
    await call('POST', 'projects', ADMIN, { project_key: 'zeus', display_name: 'Zeus' });
    await call('POST', 'projects', ADMIN, { project_key: 'hera', display_name: 'Hera' });
    const unknown = await call('PUT', 'access/projects/zeus/users/nobody', ADMIN, { roles: ['Viewer'] });
    expect(unknown.statusCode).toBe(400);
    const grant = await call('PUT', 'access/projects/zeus/groups/builders', ADMIN, {
      roles: ['Project Admin'],
    });
    expect(grant.statusCode).toBe(200);
    expect(grant.json()).toEqual({ name: 'builders', roles: ['Project Admin'] });
    const badRole = await call('PUT', 'access/projects/zeus/users/sam', TESS, { roles: ['Owner'] });
    expect(badRole.statusCode).toBe(400);
    const bySam = await call('PUT', 'access/projects/zeus/users/sam', TESS, {
      roles: ['Developer', 'Viewer'],
    });
    expect(bySam.statusCode).toBe(200);
    const members = await call('GET', 'access/projects/zeus/users', SAM);
    expect(members.json()).toEqual({ members: [{ name: 'sam', roles: ['Developer', 'Viewer'] }] });
    expect(
      (await call('GET', 'projects', SAM)).json().map((p: { project_key: string }) => p.project_key),
    ).toEqual(['zeus']);
    expect(
      (await call('PUT', 'access/projects/hera/users/sam', TESS, { roles: ['Viewer'] })).statusCode,
    ).toBe(403);
    expect(
      (await call('PUT', 'access/projects/zeus/users/tess', SAM, { roles: ['Project Admin'] })).statusCode,
    ).toBe(403);
    const current = await t.app.inject({
      method: 'POST',
      url: `${V1}/ui/auth/login`,
      payload: { user: 'tess', password: PW },
    });
    expect(current.json().projectAdmin).toBe(true);
    // the project can forbid its admins to manage members
    await call('PUT', 'projects/zeus', ADMIN, {
      admin_privileges: { manage_members: false, manage_resources: true, index_resources: true },
    });
    expect((await call('DELETE', 'access/projects/zeus/users/sam', TESS)).statusCode).toBe(403);
    expect((await call('DELETE', 'access/projects/zeus/users/sam', ADMIN)).statusCode).toBe(204);
    expect((await call('GET', 'access/projects/zeus/users', ADMIN)).json().members).toEqual([]);
  });
});
