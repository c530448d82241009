import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  basicAuth,
  createTestApp,
  createTestDatabasePair,
  TEST_ADMIN_PASSWORD,
  type TestApp,
  testEngine,
} from '../../testing/index.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
const PW = 'Sam-pa55word!';
const SAM = basicAuth('sam', PW);
const PATH = '/ui/api/v1/ui/onboarding/gettingStarted';

describe(`onboarding: the getting-started wizard is shown once, whatever the browser or node (issue 17, ${testEngine})`, () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    const [dbA, dbB] = await createTestDatabasePair();
    a = await createTestApp({}, { database: dbA });
    b = await createTestApp({}, { database: dbB });
    await a.app.inject({
      method: 'PUT',
      url: '/api/security/users/sam',
      headers: { authorization: ADMIN },
      payload: { password: PW },
    });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });
  const call = (node: TestApp, method: 'GET' | 'POST', auth?: string) =>
    node.app.inject({
      method,
      url: PATH,
      headers: auth ? { authorization: auth } : {},
      ...(method === 'POST' ? { payload: {} } : {}),
    });

  it('spec 000 §6: the flag is for administrators only (401 anonymous, 403 for a user)', async () => {
    for (const method of ['GET', 'POST'] as const) {
      expect((await call(a, method)).statusCode, method).toBe(401);
      expect((await call(a, method, SAM)).statusCode, method).toBe(403);
    }
  });

  it('spec 000 §4: administrators on the free tier see the getting-started wizard once — of claims made at once on two nodes exactly one wins, and both nodes then say seen', async () => {
    const before = await call(b, 'GET', ADMIN);
    expect(before.statusCode).toBe(200);
    expect(before.json()).toEqual({ seen: false, seenAt: null });

    const claims = await Promise.all([
      call(a, 'POST', ADMIN),
      call(b, 'POST', ADMIN),
      call(a, 'POST', ADMIN),
    ]);
    for (const claim of claims) expect(claim.statusCode).toBe(200);
    const answers = claims.map((c) => c.json() as { claimed: boolean; seen: boolean; seenAt: string });
    expect(answers.filter((x) => x.claimed)).toHaveLength(1);
    for (const x of answers) expect(x.seen).toBe(true);
    expect(new Set(answers.map((x) => x.seenAt)).size).toBe(1);

    // Another browser, another node: already seen, nothing to show again.
    for (const node of [a, b]) {
      const state = (await call(node, 'GET', ADMIN)).json();
      expect(state).toEqual({ seen: true, seenAt: answers[0]!.seenAt });
      expect((await call(node, 'POST', ADMIN)).json()).toMatchObject({ claimed: false, seen: true });
    }
  });
});
