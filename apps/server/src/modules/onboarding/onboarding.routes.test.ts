import { ONBOARDING_MESSAGES } from '@granary/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testImage } from '../../formats/docker/oci-testing.ts';
import { makeTarball, publishDocument } from '../../formats/npm/test-support.ts';
import { makeWheel, uploadForm } from '../../formats/pypi/test-dists.ts';
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
const P = '/ui/api/v1/ui/onboarding';
/** A closed loopback port: every quick remote's upstream is unreachable (the offline machine of issue 17). */
const CLOSED = 'http://127.0.0.1:9';
const UPSTREAMS = ['npm', 'pypi', 'maven', 'gradle', 'docker'].map((t) => `${t}=${CLOSED}`).join(',');

const validAnswers = {
  purpose: 'Commercial',
  companyName: 'Acme',
  ossProjectName: '',
  role: 'Other',
  otherRole: 'Release manager',
  desiredFeature: ['Binary management', 'CI/CD'],
};

describe(`onboarding: questionnaire, quick repositories, quick-start sessions (issue 17, ${testEngine})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ onboardingUpstreams: UPSTREAMS, outboundAllowlist: '127.0.0.1' });
    await t.app.inject({
      method: 'PUT',
      url: '/api/security/users/sam',
      headers: { authorization: ADMIN },
      payload: { password: PW },
    });
  });
  afterAll(async () => {
    await t?.close();
  });
  const call = (method: 'GET' | 'POST' | 'PUT', url: string, auth?: string, payload?: object) =>
    t.app.inject({ method, url, headers: auth ? { authorization: auth } : {}, payload });
  const repoKeys = async () =>
    ((await call('GET', '/api/repositories', ADMIN)).json() as { key: string }[]).map((r) => r.key).sort();
  const status = async (repoKey: string) =>
    (await call('GET', `${P}/quickstart/status?repoKey=${repoKey}`, ADMIN)).json();

  it('spec 000 §6: every onboarding call is for administrators only (401 anonymous, 403 for a user)', async () => {
    const calls: ['GET' | 'POST', string, object?][] = [
      ['GET', `${P}/personalization`],
      ['POST', `${P}/personalization`, validAnswers],
      ['GET', `${P}/reposStates`],
      ['GET', `${P}/getReposModel`],
      ['POST', `${P}/validateBatch`, { repoKeys: ['x'] }],
      ['POST', `${P}/createQuickRepos`, { repoTypes: ['npm'] }],
      [
        'POST',
        `${P}/quickstart/start`,
        { repoKey: 'generic-local', downloadPackageName: 'a', uploadPackageName: 'b' },
      ],
      ['GET', `${P}/quickstart/status?repoKey=generic-local`],
      ['GET', `${P}/quickstart/supported?repoKey=generic-local`],
    ];
    for (const [method, url, body] of calls) {
      expect((await call(method, url, undefined, body)).statusCode, `${method} ${url}`).toBe(401);
      expect((await call(method, url, SAM, body)).statusCode, `${method} ${url}`).toBe(403);
    }
    expect(await repoKeys()).toEqual(['generic-local']);
  });

  it('spec 000 §5: each questionnaire rule refuses with its message (400); a valid one is kept and tracked in the audit log', async () => {
    const refused = async (body: object, message: string) => {
      const res = await call('POST', `${P}/personalization`, ADMIN, body);
      expect(res.statusCode).toBe(400);
      expect(res.body).toContain(message);
    };
    await refused({ ...validAnswers, purpose: undefined }, ONBOARDING_MESSAGES.purposeRequired);
    await refused({ ...validAnswers, role: undefined }, ONBOARDING_MESSAGES.roleRequired);
    await refused({ ...validAnswers, otherRole: '' }, ONBOARDING_MESSAGES.otherRoleRequired);
    await refused({ ...validAnswers, companyName: ' ' }, ONBOARDING_MESSAGES.companyNameRequired);
    await refused({ ...validAnswers, desiredFeature: [] }, ONBOARDING_MESSAGES.desiredFeatureRequired);
    // The OSS project name is never required; for a personal purpose the company name is not either.
    expect((await call('GET', `${P}/personalization`, ADMIN)).json()).toEqual({ sent: false, sentAt: null });
    const ok = await call('POST', `${P}/personalization`, ADMIN, {
      ...validAnswers,
      purpose: 'Personal',
      companyName: '',
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().sent).toBe(true);
    expect((await call('GET', `${P}/personalization`, ADMIN)).json().sent).toBe(true);
    const audit = await t.app.access.context.audit.recent(20);
    expect(audit.find((a) => a.action === 'onboarding.personalization.sent')).toMatchObject({
      actor: 'admin',
      result: 'success',
    });
  });

  it('spec 000 §3 layout: getReposModel offers the registered formats, Maven a release/snapshot pair, taken keys get a free suffix; validateBatch names taken and invalid keys', async () => {
    const model = (await call('GET', `${P}/getReposModel`, ADMIN)).json() as {
      repoType: string;
      localRepoKeys: string[];
      remoteRepoKeys: string[];
      virtualRepoKeys: string[];
    }[];
    expect(model.map((m) => m.repoType).sort()).toEqual([
      'cargo',
      'debian',
      'docker',
      'go',
      'gradle',
      'maven',
      'npm',
      'pypi',
      'rpm',
      'swift',
      'terraform',
    ]);
    expect(model.find((m) => m.repoType === 'maven')).toMatchObject({
      localRepoKeys: ['maven-local', 'maven-snapshot-local'],
      remoteRepoKeys: ['maven-remote'],
      virtualRepoKeys: ['maven', 'maven-snapshot'],
    });
    const states = (await call('GET', `${P}/reposStates`, ADMIN)).json();
    expect(states.repoStates.onlyDefaultRepositories).toBe(true);

    // Someone already made a repository called pypi-local: the quick PyPI set moves to a free suffix.
    expect(
      (await call('PUT', '/api/repositories/pypi-local', ADMIN, { rclass: 'local', packageType: 'pypi' }))
        .statusCode,
    ).toBe(201);
    const after = (await call('GET', `${P}/getReposModel`, ADMIN)).json() as typeof model;
    expect(after.find((m) => m.repoType === 'pypi')).toMatchObject({
      localRepoKeys: ['pypi2-local'],
      remoteRepoKeys: ['pypi2-remote'],
      virtualRepoKeys: ['pypi2'],
    });
    const batch = (
      await call('POST', `${P}/validateBatch`, ADMIN, { repoKeys: ['npm-local', 'PYPI-LOCAL', 'bad key!'] })
    ).json();
    expect(batch.results[0]).toEqual({ key: 'npm-local', valid: true });
    expect(batch.results[1]).toMatchObject({
      valid: false,
      message: "Repository 'PYPI-LOCAL' already exists",
    });
    expect(batch.results[2].valid).toBe(false);
  });

  it('issue 17 one transaction: a create that fails part-way (an unknown type, a refused upstream) leaves no repository behind', async () => {
    const before = await repoKeys();
    const unknown = await call('POST', `${P}/createQuickRepos`, ADMIN, { repoTypes: ['npm', 'cobol'] });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().errors[0].message).toContain('"cobol" is not offered for quick setup');
    expect(await repoKeys()).toEqual(before);

    // A second server whose Maven upstream is not an HTTP URL: npm's three repositories are made first, then
    // Maven's remote is refused; the whole call rolls back.
    const broken = await createTestApp({ onboardingUpstreams: `npm=${CLOSED},maven=ftp://example.com/m2` });
    try {
      const res = await broken.app.inject({
        method: 'POST',
        url: `${P}/createQuickRepos`,
        headers: { authorization: ADMIN },
        payload: { repoTypes: ['npm', 'maven'] },
      });
      expect(res.statusCode).toBe(400);
      const keys = (
        (
          await broken.app.inject({
            method: 'GET',
            url: '/api/repositories',
            headers: { authorization: ADMIN },
          })
        ).json() as { key: string }[]
      ).map((r) => r.key);
      expect(keys).toEqual(['generic-local']);
    } finally {
      await broken.close();
    }
  });

  it('spec 000 §3 created repos: createQuickRepos makes local + remote + virtual per type (Maven pairs), offline', async () => {
    const res = await call('POST', `${P}/createQuickRepos`, ADMIN, {
      repoTypes: ['npm', 'maven', 'docker', 'pypi'],
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().createdReposByTypes).toEqual({
      npm: { type: 'npm', local: 'npm-local', remote: 'npm-remote', virtual: 'npm' },
      maven: {
        type: 'maven',
        local: ['maven-local', 'maven-snapshot-local'],
        remote: 'maven-remote',
        virtual: ['maven', 'maven-snapshot'],
      },
      docker: { type: 'docker', local: 'docker-local', remote: 'docker-remote', virtual: 'docker' },
      pypi: { type: 'pypi', local: 'pypi2-local', remote: 'pypi2-remote', virtual: 'pypi2' },
    });
    const npm = (await call('GET', '/api/repositories/npm', ADMIN)).json();
    expect(npm).toMatchObject({
      rclass: 'virtual',
      repositories: ['npm-local', 'npm-remote'],
      defaultDeploymentRepo: 'npm-local',
    });
    expect((await call('GET', '/api/repositories/npm-remote', ADMIN)).json().url).toBe(CLOSED);
    expect((await call('GET', `${P}/quickstart/supported?repoKey=npm`, ADMIN)).json()).toEqual({
      supported: true,
    });
    expect((await call('GET', `${P}/quickstart/supported?repoKey=generic-local`, ADMIN)).json()).toEqual({
      supported: false,
    });
    expect((await call('GET', `${P}/quickstart/supported?repoKey=nope`, ADMIN)).json()).toEqual({
      supported: false,
    });
  });

  it('spec 000 §3 session flags (npm): a packument GET of the download package through the virtual = isDownloaded, a publish of the upload package = isPublished', async () => {
    const put = (key: string, m: { name: string; version: string }, tgz: Buffer) =>
      t.app.inject({
        method: 'PUT',
        url: `/repository/${key}/${m.name}`,
        headers: { authorization: ADMIN, 'content-type': 'application/json' },
        payload: JSON.stringify(publishDocument(m, tgz)),
      });
    // The upstream is closed: quick setup placed Granary's generated trial package in npm-local.
    const placed = await call('GET', '/repository/npm-local/jfrog-trial-sum-example', ADMIN);
    expect(placed.statusCode).toBe(200);
    expect(Object.keys(placed.json().versions)).toEqual(['1.0.0']);
    const start = await call('POST', `${P}/quickstart/start`, ADMIN, {
      repoKey: 'npm',
      downloadPackageName: 'jfrog-trial-sum-example',
      uploadPackageName: 'jfrog-npm-trial',
    });
    expect(start.json()).toEqual({ isAuthenticated: false, isDownloaded: false, isPublished: false });
    // Another package's traffic changes nothing.
    await call('GET', '/repository/npm/left-pad', ADMIN);
    expect(await status('npm')).toEqual({ isAuthenticated: false, isDownloaded: false, isPublished: false });
    const got = await call('GET', '/repository/npm/jfrog-trial-sum-example', ADMIN);
    expect(got.statusCode).toBe(200);
    await expect
      .poll(() => status('npm'), { timeout: 2_000 })
      .toMatchObject({ isDownloaded: true, isPublished: false });
    const trial = { name: 'jfrog-npm-trial', version: '0.0.0-1' };
    expect((await put('npm', trial, await makeTarball(trial))).statusCode).toBeLessThan(300);
    await expect
      .poll(() => status('npm'), { timeout: 2_000 })
      .toEqual({ isAuthenticated: true, isDownloaded: true, isPublished: true });
    // Sessions are per user: sam sees nothing of admin's.
    expect((await call('GET', `${P}/quickstart/status?repoKey=npm`, SAM)).statusCode).toBe(403);
  });

  it('spec 000 §3 session flags (docker): a token at /v2/token = isAuthenticated, a manifest GET of hello-world:latest = isDownloaded, a PUT of hello-world:1.0.0 = isPublished', async () => {
    await call('POST', `${P}/quickstart/start`, ADMIN, {
      repoKey: 'docker',
      downloadPackageName: 'hello-world',
      downloadVersion: 'latest',
      uploadPackageName: 'hello-world',
      uploadVersion: '1.0.0',
    });
    const token = await call('GET', '/v2/token?service=granary', ADMIN);
    expect(token.statusCode).toBe(200);
    await expect
      .poll(() => status('docker'), { timeout: 2_000 })
      .toEqual({
        isAuthenticated: true,
        isDownloaded: false,
        isPublished: false,
      });
    const image = testImage({ layerSizes: [64], mediaType: 'oci' });
    const push = async (repo: string, tag: string) => {
      for (const blob of [image.config, ...image.layers])
        await t.app.inject({
          method: 'POST',
          url: `/v2/${repo}/hello-world/blobs/uploads/?digest=${blob.digest}`,
          headers: { authorization: ADMIN, 'content-type': 'application/octet-stream' },
          payload: blob.bytes,
        });
      return t.app.inject({
        method: 'PUT',
        url: `/v2/${repo}/hello-world/manifests/${tag}`,
        headers: { authorization: ADMIN, 'content-type': image.mediaType },
        payload: image.manifest,
      });
    };
    // hello-world:latest is the image quick setup built in memory and placed in docker-local (upstream closed).
    expect(await status('docker')).toMatchObject({ isDownloaded: false, isPublished: false });
    const pulled = await t.app.inject({
      method: 'GET',
      url: '/v2/docker/hello-world/manifests/latest',
      headers: { authorization: ADMIN, accept: 'application/vnd.oci.image.manifest.v1+json' },
    });
    expect(pulled.statusCode).toBe(200);
    await expect
      .poll(() => status('docker'), { timeout: 2_000 })
      .toMatchObject({ isDownloaded: true, isPublished: false });
    expect((await push('docker', '1.0.0')).statusCode).toBe(201);
    await expect
      .poll(() => status('docker'), { timeout: 2_000 })
      .toEqual({ isAuthenticated: true, isDownloaded: true, isPublished: true });
  });

  it('spec 000 §3 session flags (pypi, maven): requests shaped like pip, twine and mvn flip isDownloaded and isPublished', async () => {
    const twine = await makeWheel({ name: 'twine', version: '5.0.0' });
    const upload = async (
      key: string,
      file: { filename: string; bytes: Buffer },
      name: string,
      version: string,
    ) => {
      const form = await uploadForm(file, { name, version, metadata_version: '2.1' });
      return t.app.inject({
        method: 'POST',
        url: `/repository/${key}/`,
        headers: { authorization: ADMIN, 'content-type': form.contentType },
        payload: form.body,
      });
    };
    expect((await upload('pypi2-local', twine, 'twine', '5.0.0')).statusCode).toBeLessThan(300);
    await call('POST', `${P}/quickstart/start`, ADMIN, {
      repoKey: 'pypi2',
      downloadPackageName: 'twine',
      uploadPackageName: 'hello-jfrog',
      uploadVersion: '1.0.0',
    });
    const simple = await call('GET', '/repository/pypi2/simple/twine/', ADMIN);
    expect(simple.statusCode).toBe(200);
    await expect
      .poll(() => status('pypi2'), { timeout: 2_000 })
      .toMatchObject({ isDownloaded: true, isPublished: false });
    const hello = await makeWheel({ name: 'hello-jfrog', version: '1.0.0' });
    expect((await upload('pypi2', hello, 'hello-jfrog', '1.0.0')).statusCode).toBeLessThan(300);
    await expect
      .poll(() => status('pypi2'), { timeout: 2_000 })
      .toEqual({ isAuthenticated: true, isDownloaded: true, isPublished: true });

    const pom = (g: string, a: string, v: string) =>
      `<project><modelVersion>4.0.0</modelVersion><groupId>${g}</groupId><artifactId>${a}</artifactId><version>${v}</version></project>`;
    const deploy = (key: string, path: string, body: string) =>
      t.app.inject({
        method: 'PUT',
        url: `/repository/${key}/${path}`,
        headers: { authorization: ADMIN },
        payload: body,
      });
    expect(
      (await deploy('maven-local', 'junit/junit/4.13.2/junit-4.13.2.pom', pom('junit', 'junit', '4.13.2')))
        .statusCode,
    ).toBeLessThan(300);
    await call('POST', `${P}/quickstart/start`, ADMIN, {
      repoKey: 'maven',
      downloadPackageName: 'junit',
      uploadPackageName: 'my-app',
    });
    expect(
      (await call('GET', '/repository/maven/junit/junit/4.13.2/junit-4.13.2.pom', ADMIN)).statusCode,
    ).toBe(200);
    await expect
      .poll(() => status('maven'), { timeout: 2_000 })
      .toMatchObject({ isDownloaded: true, isPublished: false });
    // mvn deploy of the archetype's 1.0-SNAPSHOT goes to the snapshot virtual of the pair.
    expect(
      (
        await deploy(
          'maven-snapshot',
          'com/mycompany/app/my-app/1.0-SNAPSHOT/my-app-1.0-20260101.000000-1.pom',
          pom('com.mycompany.app', 'my-app', '1.0-SNAPSHOT'),
        )
      ).statusCode,
    ).toBeLessThan(300);
    await expect
      .poll(() => status('maven'), { timeout: 2_000 })
      .toEqual({ isAuthenticated: true, isDownloaded: true, isPublished: true });
  });

  it('issue 17 Maven: downloadBuildMaven with includeToken writes a real token of the caller that mvn can use as is; the distributionManagement names the virtual pair', async () => {
    const res = await call('POST', '/ui/api/v1/ui/setMeUp/downloadBuildMaven', ADMIN, {
      release: 'maven',
      snapshot: 'maven-snapshot',
      pluginRelease: 'maven',
      pluginSnapshot: 'maven-snapshot',
      mirrorAny: 'maven',
      includeToken: true,
    });
    expect(res.statusCode).toBe(200);
    expect(res.body).not.toContain('GRANARY_TOKEN');
    expect(res.body).toMatch(/<mirrorOf>\*<\/mirrorOf>/);
    const password = /<password>([^<]+)<\/password>/.exec(res.body)![1]!;
    const junit = await t.app.inject({
      method: 'GET',
      url: '/repository/maven/junit/junit/4.11/junit-4.11.pom',
      headers: { authorization: basicAuth('admin', password) },
    });
    // The token works, and junit 4.11 (what archetype quickstart 1.4 needs) is Granary's offline trial content.
    expect(junit.statusCode).toBe(200);
    expect(junit.body).toContain('<artifactId>junit</artifactId>');
    const dm = await call('POST', '/ui/api/v1/ui/setMeUp/mavenDistributionManagement', ADMIN, {
      release: 'maven',
      snapshot: 'maven-snapshot',
    });
    expect(dm.json().distributionManagement).toMatch(/<snapshotRepository>\s*<id>maven-snapshot<\/id>/);
  });
});

describe(`issue 24: quick-start observation costs signed-in traffic nothing until a session starts, on any node (${testEngine})`, () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    const [first, second] = await createTestDatabasePair();
    a = await createTestApp({}, { database: first });
    b = await createTestApp({}, { database: second });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it('a session started on one node is seen by the next client request on the other, though that node had found the user without sessions', async () => {
    const admin = { authorization: ADMIN };
    expect(
      (
        await a.app.inject({
          method: 'PUT',
          url: '/api/repositories/npm-two',
          headers: admin,
          payload: { rclass: 'local', packageType: 'npm' },
        })
      ).statusCode,
    ).toBe(201);
    const m = { name: 'two-nodes', version: '1.0.0' };
    const published = await a.app.inject({
      method: 'PUT',
      url: '/repository/npm-two/two-nodes',
      headers: { ...admin, 'content-type': 'application/json' },
      payload: JSON.stringify(publishDocument(m, await makeTarball(m))),
    });
    expect(published.statusCode).toBeLessThan(300);
    // Node b serves the admin with no session open: it remembers that and reads no sessions table.
    expect(
      (await b.app.inject({ method: 'GET', url: '/repository/npm-two/two-nodes', headers: admin }))
        .statusCode,
    ).toBe(200);
    const start = await a.app.inject({
      method: 'POST',
      url: `${P}/quickstart/start`,
      headers: admin,
      payload: { repoKey: 'npm-two', downloadPackageName: 'two-nodes', uploadPackageName: 'two-nodes-up' },
    });
    expect(start.statusCode).toBe(200);
    const status = async () =>
      (
        await a.app.inject({ method: 'GET', url: `${P}/quickstart/status?repoKey=npm-two`, headers: admin })
      ).json();
    // The notification reaches b: its next GET flips the flag (a 60 s belief would have missed it).
    await expect
      .poll(
        async () => {
          await b.app.inject({ method: 'GET', url: '/repository/npm-two/two-nodes', headers: admin });
          return status();
        },
        { timeout: 5_000 },
      )
      .toMatchObject({ isDownloaded: true });
  });
});
