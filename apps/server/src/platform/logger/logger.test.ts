import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogging } from './logger.ts';
import { REDACTED, redactText, redactValue } from './redact.ts';

describe('logging', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'granary-logs-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes server.log, request.log and security.log, one JSON line per entry', async () => {
    const logging = createLogging({ dir, level: 'info', stdout: false, maxBytes: 1 << 20, maxFiles: 3 });
    logging.server.info({ a: 1 }, 'server started');
    logging.request.info({ method: 'GET', url: '/x', status: 200 });
    logging.security.warn({ event: 'auth.failure', user: 'bob' });
    await logging.close();
    expect(readdirSync(dir).sort()).toEqual(['request.log', 'security.log', 'server.log']);
    const server = JSON.parse(readFileSync(path.join(dir, 'server.log'), 'utf8').trim());
    expect(server).toMatchObject({ area: 'server', msg: 'server started', a: 1, level: 30 });
    expect(readFileSync(path.join(dir, 'security.log'), 'utf8')).toContain('"user":"bob"');
  });

  it('issue 24: a request.log line written directly has the logger shape, redacts secrets, is buffered at most a second and honours the level', async () => {
    const logging = createLogging({ dir, level: 'info', stdout: false, maxBytes: 1 << 20, maxFiles: 3 });
    logging.request.info({ method: 'GET', url: '/by-logger', status: 200 });
    logging.writeRequest({
      reqId: 'r1',
      method: 'GET',
      url: '/x?token=s3cret&a=1',
      status: 200,
      ms: 1.5,
      user: null,
      ua: 'npm/10 "quoted"',
      ip: undefined,
    });
    // Buffered, then on disk within about a second without any flush call.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const lines = readFileSync(path.join(dir, 'request.log'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(2);
    const [byLogger, direct] = lines;
    expect(Object.keys(direct).slice(0, 3)).toEqual(Object.keys(byLogger).slice(0, 3));
    expect(direct).toMatchObject({ level: 30, area: 'request', reqId: 'r1', status: 200 });
    expect(direct.url).toBe(`/x?token=${REDACTED}&a=1`);
    expect(direct).toMatchObject({ ms: 1.5, user: null, ua: 'npm/10 "quoted"' });
    expect(direct).not.toHaveProperty('ip');
    expect(Number.isNaN(Date.parse(direct.time))).toBe(false);
    await logging.close();
    const quiet = createLogging({ dir, level: 'warn', stdout: false, maxBytes: 1 << 20, maxFiles: 3 });
    quiet.writeRequest({ reqId: 'r2', url: '/y', status: 200 });
    await quiet.close();
    expect(readFileSync(path.join(dir, 'request.log'), 'utf8')).not.toContain('r2');
  });

  it('issue 24: request.log written in batches keeps every line, in order, through size-triggered writes and rotation', async () => {
    const logging = createLogging({ dir, level: 'info', stdout: false, maxBytes: 256 * 1024, maxFiles: 5 });
    for (let i = 0; i < 5000; i++) logging.writeRequest({ reqId: `r${i}`, url: `/x/${i}`, status: 200 });
    logging.flush();
    await logging.close();
    const files = readdirSync(dir)
      .filter((f) => f.startsWith('request'))
      .sort((a, b) => (b.match(/\d+/)?.[0] ?? '0').localeCompare(a.match(/\d+/)?.[0] ?? '0'));
    expect(files.length).toBeGreaterThan(1);
    const ids = files.flatMap((f) =>
      readFileSync(path.join(dir, f), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).reqId as string),
    );
    expect(ids).toEqual(Array.from({ length: 5000 }, (_, i) => `r${i}`));
  });

  it('rotates by size: server.log stays current, older lines move to server.1.log…, at most maxFiles kept', async () => {
    const logging = createLogging({ dir, level: 'info', stdout: false, maxBytes: 2048, maxFiles: 2 });
    for (let i = 0; i < 200; i++) logging.server.info({ i, pad: 'x'.repeat(40) }, 'line');
    await logging.close();
    const files = readdirSync(dir).filter((f) => f.startsWith('server'));
    expect(files.sort()).toEqual(['server.1.log', 'server.2.log', 'server.log']);
    const lines = files.flatMap((f) =>
      readFileSync(path.join(dir, f), 'utf8').trim().split('\n').filter(Boolean),
    );
    for (const f of files) expect(readFileSync(path.join(dir, f)).length).toBeLessThan(2048 + 200);
    // the newest line is in the current file
    const current = readFileSync(path.join(dir, 'server.log'), 'utf8').trim().split('\n');
    expect(JSON.parse(current.at(-1)!).i).toBe(199);
    expect(lines.length).toBeLessThan(200); // the oldest rotated away
  });

  it('redacts passwords, tokens, cookies and Authorization headers at any depth', () => {
    const out = redactValue({
      password: 'hunter2',
      nested: { headers: { authorization: 'Basic YWRtaW46aHVudGVyMg==', cookie: 'sid=abc' }, apiKey: 'k' },
      list: [{ access_token: 't0k3n' }],
      url: 'postgres://granary:dbsecret@127.0.0.1/db',
      ok: 'visible',
    }) as Record<string, unknown>;
    const text = JSON.stringify(out);
    for (const secret of ['hunter2', 'YWRtaW46aHVudGVyMg', 'sid=abc', 't0k3n', 'dbsecret']) {
      expect(text).not.toContain(secret);
    }
    expect(text).toContain('visible');
    expect(text).toContain(REDACTED);
  });

  it('redacts secrets inside message text: URL credentials, secret query parameters, Bearer values', () => {
    expect(redactText('GET /x?token=abc123&page=2')).toBe(`GET /x?token=${REDACTED}&page=2`);
    expect(redactText('fetch https://u:pw@host/path')).toBe(`fetch https://u:${REDACTED}@host/path`);
    expect(redactText('header Bearer eyJhbGciOiJIUzI1NiJ9.x.y')).toBe(`header Bearer ${REDACTED}`);
  });

  it('a message logged with a secret in its text lands redacted in the file', async () => {
    const logging = createLogging({ dir, level: 'info', stdout: false, maxBytes: 1 << 20, maxFiles: 3 });
    logging.server.info('connecting to postgres://granary:dbsecret@10.1.1.1/db');
    logging.server.error({
      err: Object.assign(new Error('login failed for https://a:pw9@x'), { password: 'p' }),
    });
    await logging.close();
    const text = readFileSync(path.join(dir, 'server.log'), 'utf8');
    expect(text).not.toContain('dbsecret');
    expect(text).not.toContain('pw9');
    expect(text).toContain('login failed');
  });
});
