import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  basicAuth,
  createTestApp,
  TEST_ADMIN_PASSWORD,
  type TestApp,
  testEngine,
} from '../../testing/index.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
const NOSEE = basicAuth('nosee', 'Nosee-pa55word!');

describe(`no existence leak (${testEngine})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    expect(
      (
        await t.app.inject({
          method: 'PUT',
          url: '/api/repositories/hidden-local',
          headers: { authorization: ADMIN },
          payload: { rclass: 'local' },
        })
      ).statusCode,
    ).toBe(201);
    await t.app.inject({
      method: 'PUT',
      url: '/repository/hidden-local/a/file.txt',
      headers: { authorization: ADMIN },
      payload: 'x',
    });
    await t.app.inject({
      method: 'PUT',
      url: '/api/security/users/nosee',
      headers: { authorization: ADMIN },
      payload: { password: 'Nosee-pa55word!' },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  const urls = (key: string) =>
    [
      ['GET', `/repository/${key}/a/file.txt`],
      ['HEAD', `/repository/${key}/a/file.txt`],
      ['GET', `/repository/${key}/`],
      ['PUT', `/repository/${key}/a/new.txt`],
      ['DELETE', `/repository/${key}/a/file.txt`],
      ['GET', `/api/storage/${key}/a/file.txt`],
      ['GET', `/api/storage/${key}`],
      ['GET', `/api/repositories/${key}`],
    ] as const;

  const answer = async (method: string, url: string, authorization?: string, key = '') => {
    const res = await t.app.inject({
      method: method as 'GET',
      url,
      headers: authorization ? { authorization } : {},
      ...(method === 'PUT' ? { payload: 'y' } : {}),
    });
    return {
      status: res.statusCode,
      challenge: res.headers['www-authenticate'] ?? null,
      body: method === 'HEAD' ? '' : res.body.replaceAll(key, '{key}'),
    };
  };

  it('DESIGN Access model: anonymous (access off) hears 401 with the challenge for a repository it may not see, exactly as for one that does not exist', async () => {
    const absents = urls('absent-local');
    for (const [i, [method, hidden]] of urls('hidden-local').entries()) {
      const absent = absents[i]![1];
      const a = await answer(method, hidden, undefined, 'hidden-local');
      const b = await answer(method, absent, undefined, 'absent-local');
      expect(a, `${method} ${hidden}`).toEqual(b);
      expect(a.status, `${method} ${hidden}`).toBe(401);
      expect(a.challenge).toBe('Basic realm="Granary"');
    }
  });

  it('DESIGN Access model: a signed-in user without permission hears 404 for a repository it may not see, exactly as for one that does not exist', async () => {
    const absents = urls('absent-local');
    for (const [i, [method, hidden]] of urls('hidden-local').entries()) {
      const absent = absents[i]![1];
      const a = await answer(method, hidden, NOSEE, 'hidden-local');
      const b = await answer(method, absent, NOSEE, 'absent-local');
      expect(a, `${method} ${hidden}`).toEqual(b);
      expect(a.status, `${method} ${hidden}`).toBe(404);
    }
    // The admin sees it.
    expect((await answer('GET', '/api/storage/hidden-local/a/file.txt', ADMIN)).status).toBe(200);
  });
});
