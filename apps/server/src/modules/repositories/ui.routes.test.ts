import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  basicAuth,
  createTestApp,
  TEST_ADMIN_PASSWORD,
  type TestApp,
  testEngine,
} from '../../testing/index.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
const READER = basicAuth('reader', 'Reader-pa55word!');

describe(`tree browser calls: setMeUp, artifactactions, packagetypes, zap (${testEngine})`, () => {
  let t: TestApp;
  let upstream: http.Server;
  let hits = 0;
  beforeAll(async () => {
    upstream = http.createServer((req, res) => {
      hits += 1;
      if (req.url === '/files/there.txt') res.writeHead(200).end('upstream bytes');
      else res.writeHead(404).end();
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    t = await createTestApp({ outboundAllowlist: '127.0.0.1' });
    const call = (method: 'PUT' | 'POST', url: string, payload?: object | string, auth = ADMIN) =>
      t.app.inject({ method, url, headers: { authorization: auth }, payload });
    await call('PUT', '/api/security/users/reader', { password: 'Reader-pa55word!' });
    await call('PUT', '/api/security/permissions/read-generic', {
      repo: {
        repositories: ['generic-local'],
        include_patterns: ['**'],
        exclude_patterns: [],
        actions: { users: { reader: ['read'] } },
      },
    });
    expect(
      (
        await call('PUT', '/api/repositories/up-remote', {
          rclass: 'remote',
          url: `${base}/files`,
          missedRetrievalCachePeriodSecs: 600,
        })
      ).statusCode,
    ).toBe(201);
    expect((await call('PUT', '/repository/generic-local/docs/a.txt', 'hello')).statusCode).toBe(201);
  });
  afterAll(async () => {
    await t?.close();
    await new Promise((r) => upstream?.close(r));
  });
  const get = (url: string, auth?: string) =>
    t.app.inject({ url, headers: auth ? { authorization: auth } : {} });

  it('spec 000 §7 GET ui/setMeUp reads baseUrl; with repoKey it carries the format’s snippets', async () => {
    const bare = await get('/ui/api/v1/ui/setMeUp');
    expect(bare.statusCode).toBe(200);
    expect(bare.json()).toEqual({ baseUrl: 'http://localhost:80' });
    const res = await get('/ui/api/v1/ui/setMeUp?repoKey=generic-local', ADMIN);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      repoKey: 'generic-local',
      packageType: 'generic',
      repositoryUrl: `${body.baseUrl}/repository/generic-local`,
    });
    expect(body.snippets.map((s: { title: string }) => s.title)).toEqual([
      'Deploy a file',
      'Download a file',
    ]);
    expect(body.snippets[0].code).toContain(
      `-u admin -T <PATH_TO_FILE> "${body.baseUrl}/repository/generic-local/`,
    );
  });

  it('GET ui/setMeUp hides a repository the caller may not read', async () => {
    expect((await get('/ui/api/v1/ui/setMeUp?repoKey=up-remote', READER)).statusCode).toBe(404);
    expect((await get('/ui/api/v1/ui/setMeUp?repoKey=nope', ADMIN)).statusCode).toBe(404);
  });

  it('spec 001 §3 artifact actions: an admin on a local file may download, copy, move, delete and set properties', async () => {
    const res = await get('/ui/api/v1/ui/artifactactions?repoKey=generic-local&path=docs/a.txt', ADMIN);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      repoKey: 'generic-local',
      path: 'docs/a.txt',
      kind: 'file',
      rclass: 'local',
      permissions: { read: true, annotate: true, write: true, delete: true, manage: true },
      actions: ['Download', 'Copy', 'Move', 'Delete', 'Set Properties', 'Refresh'],
    });
    const folder = await get('/ui/api/v1/ui/artifactactions?repoKey=generic-local&path=docs', ADMIN);
    expect(folder.json()).toMatchObject({
      kind: 'folder',
      actions: ['Download Folder', 'Deploy', 'Copy', 'Move', 'Delete', 'Refresh', 'Native Browser'],
    });
    const root = await get('/ui/api/v1/ui/artifactactions?repoKey=generic-local', ADMIN);
    expect(root.json()).toMatchObject({
      kind: 'repository',
      actions: ['Download Folder', 'Deploy', 'Refresh', 'Native Browser'],
    });
  });

  it('spec 001 §3 artifact actions follow the authorizer: a reader may only download and refresh', async () => {
    const res = await get('/ui/api/v1/ui/artifactactions?repoKey=generic-local&path=docs/a.txt', READER);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      permissions: { read: true, annotate: false, write: false, delete: false, manage: false },
      actions: ['Download', 'Copy', 'Refresh'],
    });
    // …and the server refuses what the console would hide.
    const del = await t.app.inject({
      method: 'DELETE',
      url: '/repository/generic-local/docs/a.txt',
      headers: { authorization: READER },
    });
    expect(del.statusCode).toBe(403);
  });

  it('artifact actions: anonymous callers are asked to sign in, missing paths are 404', async () => {
    expect((await get('/ui/api/v1/ui/artifactactions?repoKey=generic-local&path=docs')).statusCode).toBe(401);
    expect(
      (await get('/ui/api/v1/ui/artifactactions?repoKey=generic-local&path=no/such', ADMIN)).statusCode,
    ).toBe(404);
  });

  it('spec 001 §3 Zap Cache is offered on a remote repository to whoever may manage it', async () => {
    const res = await get('/ui/api/v1/ui/artifactactions?repoKey=up-remote', ADMIN);
    expect(res.json()).toMatchObject({ rclass: 'remote', actions: expect.arrayContaining(['Zap Cache']) });
  });

  it('spec 001 §3 Zap Cache: the remote forgets a remembered miss and marks cached files stale', async () => {
    expect((await get('/repository/up-remote/later.txt', ADMIN)).statusCode).toBe(404);
    expect((await get('/repository/up-remote/later.txt', ADMIN)).statusCode).toBe(404);
    expect(hits).toBe(1); // the miss is remembered
    expect((await get('/repository/up-remote/there.txt', ADMIN)).statusCode).toBe(200);
    const zap = await t.app.inject({
      method: 'POST',
      url: '/api/repositories/up-remote/zap',
      headers: { authorization: ADMIN },
    });
    expect(zap.statusCode, zap.body).toBe(200);
    expect(zap.json()).toEqual({ repo: 'up-remote', path: '', expired: 1, forgottenMisses: 1 });
    expect((await get('/repository/up-remote/later.txt', ADMIN)).statusCode).toBe(404);
    expect(hits).toBe(3); // asked the upstream again
  });

  it('Zap Cache needs manage permission and a remote repository', async () => {
    const asReader = await t.app.inject({
      method: 'POST',
      url: '/api/repositories/generic-local/zap',
      headers: { authorization: READER },
    });
    expect(asReader.statusCode).toBe(403);
    const local = await t.app.inject({
      method: 'POST',
      url: '/api/repositories/generic-local/zap',
      headers: { authorization: ADMIN },
    });
    expect(local.statusCode).toBe(400);
    expect(local.json().errors[0].message).toContain('not a remote repository');
  });

  it('GET ui/packagetypes lists the formats the server runs, for signed-in users', async () => {
    expect((await get('/ui/api/v1/ui/packagetypes')).statusCode).toBe(401);
    const res = await get('/ui/api/v1/ui/packagetypes', READER);
    // Every registered format is listed (more arrive with each format issue).
    expect(res.json()).toContainEqual({
      id: 'generic',
      displayName: 'Generic',
      icon: 'generic',
      classes: ['local', 'remote', 'virtual'],
    });
    expect(res.json()).toContainEqual({
      id: 'maven',
      displayName: 'Maven',
      icon: 'maven',
      classes: ['local', 'remote', 'virtual'],
    });
  });
});
