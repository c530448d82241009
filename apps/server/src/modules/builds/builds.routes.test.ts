import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listEvents } from '../../platform/events/index.ts';
import {
  basicAuth,
  createTestApp,
  TEST_ADMIN_PASSWORD,
  type TestApp,
  testEngine,
} from '../../testing/index.ts';
import { getBuildRunFiles } from './builds.api.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
const PW = 'Builds-Pa55word!';
const EVE = basicAuth('eve', PW);
const REX = basicAuth('rex', PW);

const sha = (algorithm: string, s: string) => createHash(algorithm).update(s).digest('hex');

/** A build-info as the JFrog CLI writes it (field order, an unknown field, `+0000` times). */
function buildInfo(name: string, number: string, started: string, extra: Record<string, unknown> = {}) {
  return {
    version: '1.0.1',
    name,
    number,
    type: 'GENERIC',
    started,
    durationMillis: 4200,
    agent: { name: 'GitHub Actions', version: '2.311.0' },
    buildAgent: { name: 'GENERIC', version: '2.52.0' },
    url: `https://ci.example.com/${name}/${number}`,
    vcs: [{ url: 'https://git.example.com/app.git', revision: 'abc123', branch: 'main', message: 'fix' }],
    properties: { 'buildInfo.env.JAVA_HOME': '/usr/lib/jvm/17', 'buildInfo.env.CI': 'true' },
    modules: [
      {
        id: 'app',
        type: 'generic',
        artifacts: [
          {
            name: 'app.txt',
            path: 'app/1.0/app.txt',
            sha1: sha('sha1', 'app-1'),
            sha256: sha('sha256', 'app-1'),
            md5: sha('md5', 'app-1'),
          },
        ],
        dependencies: [
          {
            id: 'lib:1.0',
            type: 'txt',
            scopes: ['compile'],
            requestedBy: [['app']],
            sha256: sha('sha256', 'lib-1'),
          },
        ],
      },
    ],
    jfrogCliExtra: { keptAsIs: [1, 2, 3] },
    ...extra,
  };
}

describe(`issue 19 builds: the /api/build REST and the console's calls (${testEngine})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    for (const name of ['eve', 'rex'])
      await t.app.inject({
        method: 'PUT',
        url: `/api/security/users/${name}`,
        headers: { authorization: ADMIN },
        payload: { password: PW },
      });
    for (const key of ['builds-local', 'release-local'])
      await t.app.inject({
        method: 'PUT',
        url: `/api/repositories/${key}`,
        headers: { authorization: ADMIN },
        payload: { rclass: 'local', packageType: 'generic' },
      });
    for (const [path, body] of [
      ['app/1.0/app.txt', 'app-1'],
      ['lib/lib-1.0.txt', 'lib-1'],
    ] as const)
      expect(
        (
          await t.app.inject({
            method: 'PUT',
            url: `/repository/builds-local/${path}`,
            headers: { authorization: ADMIN, 'content-type': 'application/octet-stream' },
            payload: body,
          })
        ).statusCode,
      ).toBe(201);
  });
  afterAll(async () => {
    await t?.close();
  });

  const call = (
    method: string,
    url: string,
    auth: string | null = ADMIN,
    payload?: unknown,
    contentType = 'application/json',
  ) =>
    t.app.inject({
      method: method as 'GET',
      url,
      headers: {
        ...(auth ? { authorization: auth } : {}),
        ...(payload !== undefined ? { 'content-type': contentType } : {}),
      },
      ...(payload !== undefined
        ? { payload: typeof payload === 'string' ? payload : JSON.stringify(payload) }
        : {}),
    });

  it('issue 19: PUT /api/build stores the document unmodified (204), lists it, links and tags its artifacts', async () => {
    const doc = buildInfo('app', '1', '2026-03-01T10:00:00.000+0000');
    const text = JSON.stringify(doc, null, 3);
    const put = await call('PUT', '/api/build', ADMIN, text, 'application/vnd.org.jfrog.artifactory+json');
    expect(put.statusCode, put.body).toBe(204);

    const one = await call('GET', '/api/build/app/1');
    expect(one.statusCode).toBe(200);
    expect(one.json().buildInfo).toEqual(doc);
    expect(one.json().uri).toMatch(/\/api\/build\/app\/1$/);
    // byte for byte in the hidden repository
    const stored = await call(
      'GET',
      `/repository/artifactory-build-info/app/1-${Date.parse('2026-03-01T10:00:00.000Z')}.json`,
    );
    expect(stored.body).toBe(text);

    const list = await call('GET', '/api/build');
    expect(list.json().builds).toEqual([{ uri: '/app', lastStarted: '2026-03-01T10:00:00.000+0000' }]);
    const runs = await call('GET', '/api/build/app');
    expect(runs.json().buildsNumbers).toEqual([{ uri: '/1', started: '2026-03-01T10:00:00.000+0000' }]);

    const props = await call('GET', '/api/storage/builds-local/app/1.0/app.txt?properties');
    expect(props.json().properties).toMatchObject({ 'build.name': ['app'], 'build.number': ['1'] });

    const produced = await call('GET', '/ui/api/v1/builds?repoKey=builds-local&path=app/1.0/app.txt');
    expect(produced.json().builds).toEqual([
      {
        name: 'app',
        number: '1',
        started: '2026-03-01T10:00:00.000+0000',
        role: 'produced',
        moduleId: 'app',
      },
    ]);
    const used = await call('GET', '/ui/api/v1/packages/builds?repoKey=builds-local&path=lib/lib-1.0.txt');
    expect(used.json().builds).toMatchObject([{ name: 'app', number: '1', role: 'used' }]);
  });

  it('issue 19 / spec 000 §9: the build-info repository (type buildinfo) is never listed', async () => {
    const repos = await call('GET', '/api/repositories');
    expect(repos.json().map((r: { key: string }) => r.key)).not.toContain('artifactory-build-info');
    const tree = await call('GET', '/ui/api/v1/ui/repodata?type=local');
    expect(tree.body).not.toContain('artifactory-build-info');
  });

  it('issue 19: bad input is refused with a clear 400 — malformed JSON, no name, no number, path escapes', async () => {
    const bad = await call('PUT', '/api/build', ADMIN, '{"name": "x", ');
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toMatch(/not valid JSON/);
    const noName = await call('PUT', '/api/build', ADMIN, {
      number: '1',
      started: '2026-03-01T10:00:00.000+0000',
    });
    expect(noName.statusCode).toBe(400);
    expect(noName.body).toMatch(/name/);
    const noNumber = await call('PUT', '/api/build', ADMIN, {
      name: 'x',
      started: '2026-03-01T10:00:00.000+0000',
    });
    expect(noNumber.statusCode).toBe(400);
    expect(noNumber.body).toMatch(/number/);
    for (const name of ['../etc', 'a/b', '..', 'a\\b'])
      expect(
        (await call('PUT', '/api/build', ADMIN, buildInfo(name, '1', '2026-03-01T10:00:00.000+0000')))
          .statusCode,
        name,
      ).toBe(400);
    expect(
      (await call('PUT', '/api/build', ADMIN, buildInfo('x', '../1', '2026-03-01T10:00:00.000+0000')))
        .statusCode,
    ).toBe(400);
    const badTime = await call('PUT', '/api/build', ADMIN, buildInfo('x', '1', 'yesterday'));
    expect(badTime.statusCode).toBe(400);
    expect((await call('GET', '/api/build/x')).statusCode).toBe(404);
  });

  it('issue 19: the same name, number and started again is refused with 409 and a clear message', async () => {
    const again = await call(
      'PUT',
      '/api/build',
      ADMIN,
      buildInfo('app', '1', '2026-03-01T10:00:00.000+0000'),
    );
    expect(again.statusCode).toBe(409);
    expect(again.json().errors[0].message).toMatch(/already stored/);
  });

  it('issue 19: append adds modules; diff splits artifacts, dependencies and properties four ways', async () => {
    const appended = await call('POST', '/api/build/append/app/1', ADMIN, {
      modules: [
        { id: 'docs', type: 'generic', artifacts: [{ name: 'docs.txt', sha256: sha('sha256', 'docs') }] },
      ],
    });
    expect(appended.statusCode, appended.body).toBe(204);
    const info = (await call('GET', '/api/build/app/1')).json().buildInfo;
    expect(info.modules.map((m: { id: string }) => m.id)).toEqual(['app', 'docs']);

    const second = buildInfo('app', '2', '2026-03-02T10:00:00.000+0000', {
      properties: { 'buildInfo.env.JAVA_HOME': '/usr/lib/jvm/21', 'buildInfo.env.NEW': 'x' },
      modules: [
        {
          id: 'app',
          artifacts: [{ name: 'app.txt', path: 'app/1.0/app.txt', sha256: sha('sha256', 'app-2') }],
          dependencies: [{ id: 'lib:1.0', sha256: sha('sha256', 'lib-1') }],
        },
      ],
    });
    expect((await call('PUT', '/api/build', ADMIN, second)).statusCode).toBe(204);
    const diff = (await call('GET', '/api/build/app/2?diff=1')).json();
    expect(diff.artifacts.updated.map((a: { name: string }) => a.name)).toEqual(['app.txt']);
    expect(diff.artifacts.removed.map((a: { name: string }) => a.name)).toEqual(['docs.txt']);
    expect(diff.dependencies.unchanged.map((d: { id: string }) => d.id)).toEqual(['lib:1.0']);
    expect(diff.properties.updated).toEqual([
      { key: 'buildInfo.env.JAVA_HOME', value: '/usr/lib/jvm/21', diffValue: '/usr/lib/jvm/17' },
    ]);
    expect(diff.properties.new).toEqual([{ key: 'buildInfo.env.NEW', value: 'x' }]);
    expect(diff.properties.removed).toEqual([{ key: 'buildInfo.env.CI', value: 'true' }]);
  });

  it('issue 19: the console reads names (with search), history and a run with links and environment', async () => {
    const names = (await call('GET', '/ui/api/v1/ui/builds/names?search=ap')).json().builds;
    expect(names).toMatchObject([{ name: 'app', lastBuildNumber: '2', runs: 2 }]);
    expect((await call('GET', '/ui/api/v1/ui/builds/names?search=zzz')).json().builds).toEqual([]);
    const history = (await call('GET', '/ui/api/v1/ui/builds/history/app')).json();
    expect(history.runs.map((r: { number: string }) => r.number)).toEqual(['2', '1']);
    const run = (await call('GET', '/ui/api/v1/ui/builds/app/1')).json();
    expect(run.environment['buildInfo.env.JAVA_HOME']).toBe('/usr/lib/jvm/17');
    expect(run.vcs[0].revision).toBe('abc123');
    expect(run.modules[0].artifacts[0].link).toEqual({ repoKey: 'builds-local', path: 'app/1.0/app.txt' });
    expect(run.modules[0].dependencies[0]).toMatchObject({
      requestedBy: [['app']],
      link: { repoKey: 'builds-local' },
    });
    expect(run.modules[1].artifacts[0].link).toBeNull();
    const patterns = await call('POST', '/ui/api/v1/ui/permissiontargets/buildPatterns', ADMIN, {
      includePatterns: ['a*'],
    });
    expect(patterns.json()).toEqual({ builds: [{ name: 'app' }] });
  });

  it('issue 19: provenance is an in-toto Statement v1 with a SLSA provenance v1 predicate, downloaded', async () => {
    const res = await call('GET', '/api/build/app/1/provenance');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/application\/vnd\.in-toto\+json/);
    expect(res.headers['content-disposition']).toMatch(/attachment/);
    const st = res.json();
    expect(st._type).toBe('https://in-toto.io/Statement/v1');
    expect(st.predicateType).toBe('https://slsa.dev/provenance/v1');
    expect(st.subject).toEqual([
      { name: 'app/1.0/app.txt', digest: { sha256: sha('sha256', 'app-1') } },
      { name: 'docs.txt', digest: { sha256: sha('sha256', 'docs') } },
    ]);
    expect(st.predicate.buildDefinition.resolvedDependencies).toEqual([
      { name: 'lib:1.0', digest: { sha256: sha('sha256', 'lib-1') } },
    ]);
    expect(st.predicate.buildDefinition.externalParameters.url).toBe('https://ci.example.com/app/1');
    expect(st.predicate.runDetails.builder.id).toBe('GitHub Actions/2.311.0');
    const openapi = (await call('GET', '/api/openapi.json')).json();
    expect(Object.keys(openapi.paths)).toEqual(
      expect.arrayContaining([
        '/api/build',
        '/api/build/{name}/{number}/provenance',
        '/api/build/promote/{name}/{number}',
      ]),
    );
    expect(st.predicate.runDetails.metadata).toEqual({
      invocationId: 'https://ci.example.com/app/1',
      startedOn: '2026-03-01T10:00:00.000Z',
      finishedOn: '2026-03-01T10:00:04.200Z',
    });
  });

  it('issue 19: build permission targets — no read hides the build, read without write refuses publish, promotion needs write on the target', async () => {
    // eve: nothing at all
    expect((await call('GET', '/api/build/app', EVE)).statusCode).toBe(404);
    expect((await call('GET', '/ui/api/v1/ui/builds/names', EVE)).json().builds).toEqual([]);
    expect(
      (await call('PUT', '/api/build', EVE, buildInfo('eve-build', '1', '2026-03-01T10:00:00.000+0000')))
        .statusCode,
    ).toBe(403);
    expect(
      (await call('PUT', '/api/build', null, buildInfo('anon', '1', '2026-03-01T10:00:00.000+0000')))
        .statusCode,
    ).toBe(401);
    // rex: read on builds named app*, read on builds-local, nothing on release-local
    const target = await call('PUT', '/api/security/permissions/rex-builds', ADMIN, {
      build: { repositories: ['ANY'], include_patterns: ['app*'], actions: { users: { rex: ['read'] } } },
      repo: { repositories: ['builds-local'], actions: { users: { rex: ['read', 'delete'] } } },
    });
    expect(target.statusCode, target.body).toBe(201);
    expect((await call('GET', '/api/build/app', REX)).statusCode).toBe(200);
    expect((await call('DELETE', '/api/build/app?buildNumbers=1', REX)).statusCode).toBe(403);
    expect((await call('POST', '/api/build/retention/app', REX, { count: 1 })).statusCode).toBe(403);
    const promote = await call('POST', '/api/build/promote/app/1', REX, {
      targetRepo: 'release-local',
      status: 'released',
    });
    expect(promote.statusCode).toBe(403);
    // nothing changed
    expect((await call('GET', '/api/storage/builds-local/app/1.0/app.txt')).statusCode).toBe(200);
    expect((await call('GET', '/api/storage/release-local/app/1.0/app.txt')).statusCode).toBe(404);
    expect((await call('GET', '/api/build/app/1')).json().buildInfo.statuses).toBeUndefined();
  });

  it('issue 19: a build target granting write and delete on rex-* lets rex publish and delete those builds only; an escaping name in the URL is refused', async () => {
    const target = await call('PUT', '/api/security/permissions/rex-own', ADMIN, {
      build: {
        repositories: ['ANY'],
        include_patterns: ['rex-*'],
        actions: { users: { rex: ['read', 'write', 'delete'] } },
      },
    });
    expect(target.statusCode, target.body).toBe(201);
    expect(
      (
        await call(
          'PUT',
          '/api/build',
          REX,
          buildInfo('rex-tool', '1', '2026-03-01T10:00:00.000+0000', { modules: [] }),
        )
      ).statusCode,
    ).toBe(204);
    expect(
      (
        await call(
          'PUT',
          '/api/build',
          REX,
          buildInfo('other', '1', '2026-03-01T10:00:00.000+0000', { modules: [] }),
        )
      ).statusCode,
    ).toBe(403);
    expect(
      (await call('GET', '/ui/api/v1/ui/builds/names', REX))
        .json()
        .builds.map((b: { name: string }) => b.name)
        .sort(),
    ).toEqual(['app', 'rex-tool']);
    expect((await call('DELETE', '/api/build/rex-tool?buildNumbers=1', REX)).statusCode).toBe(200);
    expect((await call('GET', '/api/build/rex-tool')).statusCode).toBe(404);
    expect((await call('GET', '/api/build/..%2Fetc/1')).statusCode).toBe(400);
    expect((await call('GET', '/api/build/app/..%2F..%2Fx')).statusCode).toBe(400);
  });

  it("issue 19: a build-info's own buildRetention discards older runs through the queue (builds.delete)", async () => {
    const rule = {
      buildRetention: { count: 1, deleteBuildArtifacts: false, buildNumbersNotToBeDiscarded: [] },
      modules: [],
    };
    for (const n of ['1', '2'])
      expect(
        (
          await call(
            'PUT',
            '/api/build',
            ADMIN,
            buildInfo('kept', n, `2026-03-0${n}T10:00:00.000+0000`, rule),
          )
        ).statusCode,
      ).toBe(204);
    const deadline = Date.now() + 20_000;
    let numbers: string[] = [];
    while (Date.now() < deadline) {
      numbers = (await call('GET', '/api/build/kept'))
        .json()
        .buildsNumbers.map((b: { uri: string }) => b.uri);
      if (numbers.length === 1) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(numbers).toEqual(['/2']);
    await call('POST', '/api/build/delete', ADMIN, { buildName: 'kept', deleteAll: true });
  });

  it('issue 19: promotion is all or nothing — a conflict moves nothing; a dry run changes nothing; then it moves and records the status and events', async () => {
    // a different file already at the target path: conflict
    await call(
      'PUT',
      '/repository/release-local/app/1.0/app.txt',
      ADMIN,
      'other',
      'application/octet-stream',
    );
    const conflict = await call('POST', '/api/build/promote/app/1', ADMIN, {
      targetRepo: 'release-local',
      status: 'released',
      dependencies: true,
    });
    expect(conflict.statusCode).toBe(409);
    expect((await call('GET', '/api/storage/builds-local/app/1.0/app.txt')).statusCode).toBe(200);
    expect((await call('GET', '/api/storage/builds-local/lib/lib-1.0.txt')).statusCode).toBe(200);
    expect((await call('GET', '/api/storage/release-local/lib/lib-1.0.txt')).statusCode).toBe(404);
    expect((await call('GET', '/api/build/app/1')).json().buildInfo.statuses).toBeUndefined();
    await call('DELETE', '/repository/release-local/app/1.0/app.txt');

    const dry = await call('POST', '/api/build/promote/app/1', ADMIN, {
      targetRepo: 'release-local',
      status: 'released',
      dryRun: true,
    });
    expect(dry.statusCode, dry.body).toBe(200);
    expect(dry.json().messages.map((m: { message: string }) => m.message)).toContain(
      'would move builds-local/app/1.0/app.txt to release-local/app/1.0/app.txt',
    );
    expect((await call('GET', '/api/storage/release-local/app/1.0/app.txt')).statusCode).toBe(404);

    const done = await call('POST', '/api/build/promote/app/1', ADMIN, {
      targetRepo: 'release-local',
      status: 'released',
      comment: 'ship it',
      ciUser: 'ci-bot',
      properties: { stage: ['prod'] },
    });
    expect(done.statusCode, done.body).toBe(200);
    expect((await call('GET', '/api/storage/builds-local/app/1.0/app.txt')).statusCode).toBe(404);
    const moved = await call('GET', '/api/storage/release-local/app/1.0/app.txt?properties');
    expect(moved.json().properties).toMatchObject({ stage: ['prod'], 'build.name': ['app'] });
    const statuses = (await call('GET', '/api/build/app/1')).json().buildInfo.statuses;
    expect(statuses).toMatchObject([
      {
        status: 'released',
        comment: 'ship it',
        repository: 'release-local',
        user: 'admin',
        ciUser: 'ci-bot',
      },
    ]);
    expect((await call('GET', '/ui/api/v1/ui/builds/names')).json().builds[0].name).toBe('app');
    expect((await call('GET', '/ui/api/v1/ui/builds/history/app')).json().runs[1].status).toBe('released');
    // the run's files are found where they went
    expect((await call('GET', '/ui/api/v1/ui/builds/app/1')).json().modules[0].artifacts[0].link).toEqual({
      repoKey: 'release-local',
      path: 'app/1.0/app.txt',
    });
    // what release bundles take from a build: the files where they are now
    expect(await getBuildRunFiles(t.app.granary.database.db, 'app', '1')).toEqual([
      { repoKey: 'release-local', path: 'app/1.0/app.txt', sha256: sha('sha256', 'app-1'), size: 5 },
    ]);
    const all = await listEvents(t.app.granary.database.db);
    // the hidden repository's documents announce build events only, no artifact events
    expect(
      all.filter((e) => e.type.startsWith('artifact') && e.payload.repo_key === 'artifactory-build-info'),
    ).toEqual([]);
    const events = all.map((e) => e.type);
    expect(events).toEqual(
      expect.arrayContaining(['build.uploaded', 'build.promoted', 'promotion.promoted']),
    );
  });

  it('issue 19: delete by numbers and POST /api/build/delete; retention keeps the newest runs', async () => {
    for (const n of ['3', '4', '5'])
      expect(
        (
          await call(
            'PUT',
            '/api/build',
            ADMIN,
            buildInfo('app', n, `2026-03-0${n}T10:00:00.000+0000`, { modules: [] }),
          )
        ).statusCode,
      ).toBe(204);
    const del = await call('DELETE', '/api/build/app?buildNumbers=3');
    expect(del.statusCode, del.body).toBe(200);
    expect(
      (await call('GET', '/api/build/app')).json().buildsNumbers.map((b: { uri: string }) => b.uri),
    ).toEqual(['/5', '/4', '/2', '/1']);
    const retention = await call('POST', '/api/build/retention/app', ADMIN, {
      count: 2,
      buildNumbersNotToBeDiscarded: ['1'],
    });
    expect(retention.statusCode, retention.body).toBe(204);
    expect(
      (await call('GET', '/api/build/app')).json().buildsNumbers.map((b: { uri: string }) => b.uri),
    ).toEqual(['/5', '/4', '/1']);
    expect((await call('POST', '/api/build/retention/app', ADMIN, {})).statusCode).toBe(400);
    const all = await call('POST', '/api/build/delete', ADMIN, { buildName: 'app', deleteAll: true });
    expect(all.statusCode, all.body).toBe(200);
    expect((await call('GET', '/api/build/app')).statusCode).toBe(404);
    expect((await call('GET', '/api/build')).statusCode).toBe(404);
    const events = (await listEvents(t.app.granary.database.db)).filter(
      (e) => e.type === 'build.deleted' && e.payload.build_name === 'app',
    );
    expect(events.map((e) => e.payload.build_number).sort()).toEqual(['1', '3', '4', '5', '2'].sort());
  });
});
