import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { basicAuth, createTestApp, TEST_ADMIN_PASSWORD, type TestApp } from '../../testing/index.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);

async function serverLog(t: TestApp): Promise<Record<string, unknown>[]> {
  t.app.granary.logging.flush();
  await new Promise((r) => setTimeout(r, 100));
  const text = await readFile(path.join(t.home, 'logs', 'server.log'), 'utf8');
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('issue 13 §6: a format error renderer that throws', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    const res = await t.app.inject({
      method: 'PUT',
      url: '/api/repositories/npm-local',
      headers: { authorization: ADMIN },
      payload: { rclass: 'local', packageType: 'npm' },
    });
    expect(res.statusCode, res.body).toBe(201);
  }, 60_000);
  afterAll(() => t?.close());

  it("issue 13 §6: is logged at error level with the format id and the original error; the client gets the core's envelope", async () => {
    const missing = { url: '/repository/npm-local/no-such-package', headers: { authorization: ADMIN } };
    // the npm client's own shape while the renderer works
    const rendered = await t.app.inject(missing);
    expect(rendered.statusCode).toBe(404);
    expect(Object.keys(rendered.json())).toEqual(['error']);

    const npm = t.app.repositories.formats.get('npm')!;
    const broken = vi.spyOn(npm, 'errorBody').mockImplementation(() => {
      throw new Error('renderer broke');
    });
    try {
      const res = await t.app.inject({
        ...missing,
        headers: { ...missing.headers, 'x-request-id': 'broken-1' },
      });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({
        errors: [{ status: 404, code: 'NOT_FOUND', message: rendered.json().error }],
      });
      expect(broken).toHaveBeenCalledOnce();
    } finally {
      broken.mockRestore();
    }
    const failure = (await serverLog(t)).find(
      (l) =>
        l.reqId === 'broken-1' && l.msg === 'format error renderer failed; answering with the core envelope',
    );
    expect(failure).toMatchObject({
      level: 50,
      format: 'npm',
      err: { message: 'renderer broke' },
      error: { message: rendered.json().error },
    });
  });
});
