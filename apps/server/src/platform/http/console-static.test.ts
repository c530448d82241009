import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  basicAuth,
  createTestApp,
  makeTempHome,
  TEST_ADMIN_PASSWORD,
  type TestApp,
} from '../../testing/index.ts';
import { CONSOLE_CSP } from './console-static.ts';
import { API_CSP } from './security-headers.ts';

describe('issue 12 §22: browser security headers', () => {
  let t: TestApp;
  let home: string;
  beforeAll(async () => {
    home = await makeTempHome();
    const dir = path.join(home, 'console');
    await mkdir(path.join(dir, 'js'), { recursive: true });
    await writeFile(
      path.join(dir, 'index.html'),
      '<!doctype html><title>Granary</title><div id="root"></div>',
    );
    await writeFile(path.join(dir, 'js', 'index-abc123.js'), 'console.log(1)');
    t = await createTestApp({ consoleDir: dir }, { home });
  });
  afterAll(async () => {
    await t?.close();
    await rm(home, { recursive: true, force: true });
  });

  it('issue 12 §22: the console page and its files carry a CSP, no framing, nosniff and a referrer policy', async () => {
    for (const url of ['/ui/', '/ui/admin/repositories', '/ui/js/index-abc123.js']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-security-policy'], url).toBe(CONSOLE_CSP);
      expect(res.headers['x-frame-options'], url).toBe('DENY');
      expect(res.headers['x-content-type-options'], url).toBe('nosniff');
      expect(res.headers['referrer-policy'], url).toBe('same-origin');
    }
    const csp = Object.fromEntries(
      CONSOLE_CSP.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1).join(' ')]),
    );
    // scripts from the server only (no inline, no eval), nobody may frame the console
    expect(csp['script-src']).toBe("'self'");
    expect(csp['frame-ancestors']).toBe("'none'");
    expect(csp['object-src']).toBe("'none'");
    expect(csp['default-src']).toBe("'self'");
  });

  it('issue 12 §22: API answers (and errors) load nothing, are never framed or sniffed', async () => {
    const admin = { authorization: basicAuth('admin', TEST_ADMIN_PASSWORD) };
    for (const [url, status] of [
      ['/api/system/ping', 200],
      ['/api/repositories', 200],
      ['/api/no/such/route', 404],
      ['/ui/api/v1/no/such', 404],
    ] as const) {
      const res = await t.app.inject({ method: 'GET', url, headers: admin });
      expect(res.statusCode, url).toBe(status);
      expect(res.headers['content-security-policy'], url).toBe(API_CSP);
      expect(res.headers['x-frame-options'], url).toBe('DENY');
      expect(res.headers['x-content-type-options'], url).toBe('nosniff');
      expect(res.headers['referrer-policy'], url).toBe('same-origin');
    }
  });

  it('issue 12 §22: a stored file keeps its own sandbox policy', async () => {
    const admin = { authorization: basicAuth('admin', TEST_ADMIN_PASSWORD) };
    const put = await t.app.inject({
      method: 'PUT',
      url: '/api/repositories/files',
      headers: admin,
      payload: { rclass: 'local', packageType: 'generic' },
    });
    expect(put.statusCode, put.body).toBe(201);
    const up = await t.app.inject({
      method: 'PUT',
      url: '/repository/files/page.html',
      headers: { ...admin, 'content-type': 'text/html' },
      payload: '<script>alert(1)</script>',
    });
    expect(up.statusCode, up.body).toBe(201);
    const res = await t.app.inject({ method: 'GET', url: '/repository/files/page.html', headers: admin });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-security-policy']).toBe('sandbox');
    expect(res.headers['x-frame-options']).toBe('DENY');
  });
});
