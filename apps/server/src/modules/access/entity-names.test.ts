import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicAuth, createTestApp, TEST_ADMIN_PASSWORD, type TestApp } from '../../testing/index.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
const V1 = '/ui/api/v1';
const BAD_NAMES = ['a*b', 'a b', 'a/b', 'é', '-lead', 'x'.repeat(300)];

/** Every 4xx names what was wrong; no name a user can type answers 500. */
describe('issue 12 §21: entity names', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  }, 60_000);
  afterAll(() => t?.close());

  const call = (method: 'PUT' | 'POST' | 'GET', url: string, payload?: object) =>
    t.app.inject({ method, url, headers: { authorization: ADMIN }, payload });
  const expectInvalid = (res: { statusCode: number; body: string }, field: string) => {
    expect(res.statusCode, res.body).toBe(400);
    const error = JSON.parse(res.body).errors[0];
    expect(error.code).toBe('INVALID');
    expect(error.message).toMatch(new RegExp(`(^|\\.|; )${field}: `));
  };

  it('issue 12 §21: a group name with "*" or a space is a 400 naming the field, and no group is made', async () => {
    for (const name of BAD_NAMES) {
      const res = await call('PUT', `/api/security/groups/${encodeURIComponent(name)}`, {});
      expectInvalid(res, 'name');
      expect(res.json().errors[0].message).toMatch(/Name may contain letters, digits|Too big/);
    }
    const list = await call('GET', '/api/security/groups');
    expect(list.json()).toEqual([]);
  });

  it('issue 12 §21: a user name with "*" or a space is a 400 naming the field', async () => {
    for (const name of BAD_NAMES) {
      const res = await call('PUT', `/api/security/users/${encodeURIComponent(name)}`, {
        password: 'Some-pa55word!x',
        email: 'someone@example.com',
      });
      expectInvalid(res, 'name');
    }
    // a group naming such a member: the body field is named
    const res = await call('PUT', '/api/security/groups/team', { members: ['a b'] });
    expectInvalid(res, 'body.members.0');
  });

  it('issue 12 §21: a permission target name over 128 characters is a 400 naming the field, and nothing is stored', async () => {
    const long = 'p'.repeat(129);
    const res = await call('PUT', `/api/security/permissions/${long}`, {
      repo: { repositories: ['ANY'], actions: {} },
    });
    expectInvalid(res, 'name');
    expect((await call('GET', `/api/security/permissions/${long}`)).statusCode).toBe(404);
    // names with "*" and spaces stay allowed for permission targets (the peers allow them)
    const spaced = await call('PUT', `/api/security/permissions/${encodeURIComponent('read all *')}`, {
      repo: { repositories: ['ANY'], actions: {} },
    });
    expect(spaced.statusCode, spaced.body).toBe(201);
  });

  it('issue 12 §21: repository keys and project keys with "*" or a space are 400s, never 500s', async () => {
    for (const name of BAD_NAMES) {
      const repo = await call('PUT', `/api/repositories/${encodeURIComponent(name)}`, {
        rclass: 'local',
        packageType: 'generic',
      });
      expect(repo.statusCode, repo.body).toBe(400);
      const project = await call('POST', `${V1}/access/projects`, { project_key: name, display_name: 'P' });
      expectInvalid(project, 'body.project_key');
      const member = await call('PUT', `${V1}/access/projects/dflt/users/${encodeURIComponent(name)}`, {
        roles: ['Viewer'],
      });
      expect(member.statusCode, member.body).toBeLessThan(500);
    }
  });
});
