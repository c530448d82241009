import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  basicAuth,
  createTestApp,
  TEST_ADMIN_PASSWORD,
  type TestApp,
  testEngine,
} from '../../testing/index.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
const PW = 'Uma-pa55word!';

describe(`deleting users and groups named by permission targets (${testEngine})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });
  const put = (url: string, payload: object) =>
    t.app.inject({ method: 'PUT', url, headers: { authorization: ADMIN }, payload });

  it('a deleted user or group disappears from every permission target, so re-saving the target works', async () => {
    await put('/api/security/users/uma', { password: PW });
    await put('/api/security/users/vic', { password: PW });
    await put('/api/security/groups/ops', {});
    const target = {
      repo: {
        repositories: ['ANY'],
        actions: { users: { Uma: ['read'], vic: ['read', 'write'] }, groups: { ops: ['read'] } },
      },
      build: { repositories: ['ANY'], actions: { users: { uma: ['read'] }, groups: {} } },
    };
    expect((await put('/api/security/permissions/shared', target)).statusCode).toBe(201);
    await t.app.inject({
      method: 'DELETE',
      url: '/api/security/users/uma',
      headers: { authorization: ADMIN },
    });
    await t.app.inject({
      method: 'DELETE',
      url: '/api/security/groups/OPS',
      headers: { authorization: ADMIN },
    });
    const after = await t.app.inject({
      url: '/api/security/permissions/shared',
      headers: { authorization: ADMIN },
    });
    expect(after.json().repo.actions).toEqual({ users: { vic: ['read', 'write'] }, groups: {} });
    expect(after.json().build.actions.users).toEqual({});
    const resaved = await put('/api/security/permissions/shared', after.json());
    expect(resaved.statusCode).toBe(200);
    // vic keeps the rights the target gives
    expect(resaved.json().repo.actions.users.vic).toEqual(['read', 'write']);
  });
});
