import { createHash } from 'node:crypto';
import type { XrayPolicy } from '@granary/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testImage } from '../../../formats/docker/oci-testing.ts';
import { makeTarball, publishDocument } from '../../../formats/npm/test-support.ts';
import { makeWheel, uploadForm } from '../../../formats/pypi/test-dists.ts';
import {
  basicAuth,
  createTestApp,
  TEST_ADMIN_PASSWORD,
  type TestApp,
  testEngine,
} from '../../../testing/index.ts';
import { findRepository } from '../../repositories/repositories.api.ts';
import { TestReceiver } from '../../webhooks/test-receiver.ts';
import type { Component, ScanRecord } from '../model.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
const USER = basicAuth('plain', 'Plain-pa55word!');
const HOUR = 3_600_000;

const securityPolicy = (
  name: string,
  extra: Record<string, unknown> = {},
): XrayPolicy & Record<string, unknown> => ({
  name,
  type: 'security',
  description: 'blocks high',
  rules: [
    {
      name: 'high-and-up',
      priority: 1,
      criteria: { min_severity: 'High' },
      actions: {
        block_download: { active: true, unscanned: false },
        webhooks: ['policy-hook'],
        fail_build: true,
      },
    },
  ],
  ...extra,
});

describe(`issue 16 policies: Xray REST, violations, ignore rules and blocking (${testEngine})`, () => {
  let t: TestApp;
  let clock = Date.parse('2030-01-01T00:00:00Z');
  let receiver: TestReceiver;

  const api = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown, auth = ADMIN) =>
    t.app.inject({
      method,
      url,
      headers: { authorization: auth },
      ...(payload !== undefined ? { payload: payload as object } : {}),
    });

  /** A scan record as the scans part hands it over: the artifact, one component, one finding. */
  async function scanOf(
    repoKey: string,
    path: string,
    sha256: string,
    component: Component,
    advisory = 'GHSA-test-0001',
  ): Promise<ScanRecord> {
    const repo = await findRepository(t.app.granary.database.db, repoKey);
    return {
      repositoryId: repo!.id,
      repoKey,
      packageType: repo!.packageType,
      path,
      sha256,
      status: 'scanned',
      error: null,
      scannedAt: new Date(clock),
      artifact: { root: component, components: [], dependencies: {} },
      findings: [
        {
          purl: component.purl,
          finding: {
            advisoryId: advisory,
            aliases: ['CVE-2030-0001'],
            summary: `Prototype pollution in ${component.name}`,
            severity: 'High',
            cvssScore: 8.1,
            cvssVector: null,
            fixedVersions: ['9.9.9'],
            references: [],
            modified: '2029-12-01T00:00:00Z',
          },
        },
      ],
    };
  }

  beforeAll(async () => {
    t = await createTestApp({ outboundAllowlist: '127.0.0.1' }, { now: () => clock });
    receiver = await new TestReceiver().start();
    await api('PUT', '/api/security/users/plain', { password: 'Plain-pa55word!' });
    for (const [key, packageType] of [
      ['npm-local', 'npm'],
      ['pypi-local', 'pypi'],
      ['maven-local', 'maven'],
      ['docker-local', 'docker'],
    ])
      expect(
        (await api('PUT', `/api/repositories/${key}`, { rclass: 'local', packageType })).statusCode,
      ).toBe(201);
    // These tests hand the policies their scan records themselves: the pipeline leaves these repositories alone.
    const unindexed = await api('PUT', '/ui/api/v1/xray/ui/indexedRepos', { indexed: [] });
    expect(unindexed.statusCode, unindexed.body).toBeLessThan(300);
  });
  afterAll(async () => {
    await receiver?.stop();
    await t?.close();
  });

  it('issue 16 Console and API: policies and watches round-trip at Xray’s paths and JSON; ignore rules answer Xray’s info', async () => {
    const policy = securityPolicy('block-high', {
      rules: [
        { ...securityPolicy('x').rules[0]!, criteria: { min_severity: 'High', malicious_package: false } },
      ],
    });
    const created = await api('POST', '/xray/api/v2/policies', policy);
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toEqual({ info: 'Policy created successfully' });
    expect((await api('POST', '/xray/api/v2/policies', policy)).statusCode).toBe(409);
    const read = (await api('GET', '/xray/api/v2/policies/block-high')).json();
    expect(read).toMatchObject({ name: 'block-high', type: 'security', description: 'blocks high' });
    expect(read.rules[0]).toEqual(policy.rules[0]);
    expect((await api('GET', '/xray/api/v2/policies')).json().map((p: XrayPolicy) => p.name)).toEqual([
      'block-high',
    ]);

    const watch = {
      general_data: { name: 'prod', description: 'production repositories', active: true },
      project_resources: {
        resources: ['npm-local', 'pypi-local', 'maven-local', 'docker-local'].map((name) => ({
          type: 'repository',
          bin_mgr_id: 'default',
          name,
          repo_type: 'local',
          filters: [{ type: 'regex', value: '.*' }],
        })),
      },
      assigned_policies: [{ name: 'block-high', type: 'security' }],
      watch_recipients: ['sec@example.com'],
    };
    const w = await api('POST', '/xray/api/v2/watches', watch);
    expect(w.statusCode, w.body).toBe(201);
    expect(w.json()).toEqual({ info: 'Watch has been successfully created' });
    const readWatch = (await api('GET', '/xray/api/v2/watches/prod')).json();
    expect(readWatch.project_resources).toEqual(watch.project_resources);
    expect(readWatch.assigned_policies).toEqual(watch.assigned_policies);
    expect(readWatch.general_data).toMatchObject({ name: 'prod', active: true });
    expect((await api('GET', '/ui/api/v1/xray/api/v2/watches')).json()).toHaveLength(1);

    // Clear 400s naming the field; a policy a watch assigns cannot go.
    const bad = await api('POST', '/xray/api/v2/watches', {
      ...watch,
      general_data: { name: 'x' },
      assigned_policies: [{ name: 'nope', type: 'security' }],
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain("Policy 'nope' does not exist");
    const noName = await api('POST', '/xray/api/v2/policies', { type: 'security', rules: [] });
    expect(noName.statusCode).toBe(400);
    expect(noName.body).toContain('name');
    expect((await api('DELETE', '/xray/api/v2/policies/block-high')).statusCode).toBe(409);

    const noNotes = await api('POST', '/xray/api/v1/ignore_rules', {
      expiration_date: new Date(clock + HOUR).toISOString(),
      ignore_filters: { vulnerabilities: ['GHSA-x'] },
    });
    expect(noNotes.statusCode).toBe(400);
    const noExpiry = await api('POST', '/xray/api/v1/ignore_rules', {
      notes: 'why',
      ignore_filters: { vulnerabilities: ['GHSA-x'] },
    });
    expect(noExpiry.statusCode).toBe(400);
    expect(noExpiry.body).toContain('expiration_date');
    const rule = await api('POST', '/xray/api/v1/ignore_rules', {
      notes: 'not reachable in our use',
      expiration_date: new Date(clock + HOUR).toISOString(),
      ignore_filters: { vulnerabilities: ['GHSA-other'], watches: ['prod'] },
    });
    expect(rule.statusCode, rule.body).toBe(201);
    const id = /^Successfully added Ignore rule with id: (.+)$/.exec(rule.json().info)![1]!;
    expect((await api('GET', `/xray/api/v1/ignore_rules/${id}`)).json()).toMatchObject({
      id,
      notes: 'not reachable in our use',
      author: 'admin',
      is_expired: false,
      ignore_filters: { vulnerabilities: ['GHSA-other'], watches: ['prod'] },
    });
    const list = (await api('GET', '/xray/api/v1/ignore_rules?vulnerability=GHSA-other')).json();
    expect(list.total_count).toBe(1);
    expect((await api('DELETE', `/xray/api/v1/ignore_rules/${id}`)).statusCode).toBe(200);
    expect((await api('GET', `/xray/api/v1/ignore_rules/${id}`)).statusCode).toBe(404);
  });

  it('issue 16 / spec 001 §6: a non-admin gets 403 on every policy, watch, ignore-rule and violation call', async () => {
    for (const [method, url] of [
      ['GET', '/xray/api/v2/policies'],
      ['GET', '/xray/api/v2/watches/prod'],
      ['GET', '/xray/api/v1/ignore_rules'],
      ['POST', '/xray/api/v1/violations'],
      ['POST', '/ui/api/v1/xray/ui/violations'],
      ['POST', '/ui/api/v1/xray/ui/ignore'],
    ] as const)
      expect((await api(method, url, method === 'POST' ? {} : undefined, USER)).statusCode, url).toBe(403);
  });

  it('issue 16 Blocking: npm tarball GET answers 403 {error} naming the advisory; a webhook subscribed to `policy` gets policy.violation', async () => {
    const sub = await api('POST', '/event/api/v1/subscriptions', {
      key: 'policy-hook',
      enabled: true,
      event_filter: { domain: 'policy', event_types: ['violation'] },
      handlers: [{ handler_type: 'webhook', url: receiver.url }],
    });
    expect(sub.statusCode, sub.body).toBe(201);

    const manifest = { name: 'vuln-lib', version: '1.0.0', license: 'MIT' };
    const tarball = await makeTarball(manifest);
    const put = await api('PUT', '/repository/npm-local/vuln-lib', publishDocument(manifest, tarball));
    expect(put.statusCode, put.body).toBeLessThan(300);
    const path = 'vuln-lib/-/vuln-lib-1.0.0.tgz';
    expect((await api('GET', `/repository/npm-local/${path}`)).statusCode).toBe(200);

    const component = {
      purl: 'pkg:npm/vuln-lib@1.0.0',
      ecosystem: 'npm',
      name: 'vuln-lib',
      version: '1.0.0',
      licenses: ['MIT'],
    };
    const sha256 = createHash('sha256').update(tarball).digest('hex');
    await t.app.scanPolicies.onScan(await scanOf('npm-local', path, sha256, component));

    const blocked = await api('GET', `/repository/npm-local/${path}`);
    expect(blocked.statusCode).toBe(403);
    expect(blocked.json().error).toBe(
      "npm-local/vuln-lib/-/vuln-lib-1.0.0.tgz is blocked by policy 'block-high' of watch 'prod' (GHSA-test-0001 in vuln-lib 1.0.0); ask an administrator for an ignore rule",
    );

    // Violations: Xray's REST shape and the console's page.
    const xray = (
      await api('POST', '/xray/api/v1/violations', {
        filters: {
          watch_name: 'prod',
          violation_type: 'Security',
          min_severity: 'High',
          resources: { artifacts: [{ repo: 'npm-local', path }] },
        },
        pagination: { limit: 10, offset: 0 },
      })
    ).json();
    expect(xray.total_violations).toBe(1);
    expect(xray.violations[0]).toMatchObject({
      issue_id: 'GHSA-test-0001',
      severity: 'High',
      type: 'Security',
      watch_name: 'prod',
      policies: [{ policy: 'block-high', rule: 'high-and-up' }],
      impacted_artifacts: [`default/npm-local/${path}`],
      infected_components: ['pkg:npm/vuln-lib@1.0.0'],
      cves: ['CVE-2030-0001'],
    });
    const page = (await api('POST', '/ui/api/v1/xray/ui/violations', {})).json();
    expect(page.total).toBe(1);
    expect(page.rows[0]).toMatchObject({
      issueId: 'GHSA-test-0001',
      blocking: true,
      ignored: false,
      repoKey: 'npm-local',
    });
    expect((await api('GET', '/ui/api/v1/xray/ui/watchesByIssue/GHSA-test-0001')).json()).toEqual({
      watches: ['prod'],
    });

    // A second evaluation keeps the violation (same id) and publishes nothing new.
    await t.app.scanPolicies.onScan(await scanOf('npm-local', path, sha256, component));
    expect((await api('POST', '/ui/api/v1/xray/ui/violations', {})).json().rows[0].id).toBe(page.rows[0].id);

    const deadline = Date.now() + 10_000;
    while (receiver.arrivals.length === 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    expect(receiver.arrivals).toHaveLength(1);
    const body = JSON.parse(receiver.arrivals[0]!.body);
    expect(body).toMatchObject({
      domain: 'policy',
      event_type: 'violation',
      subscription_key: 'policy-hook',
    });
    expect(body.data).toMatchObject({
      watch_name: 'prod',
      policy_name: 'block-high',
      rule_name: 'high-and-up',
      severity: 'High',
      issue_id: 'GHSA-test-0001',
      repo_key: 'npm-local',
      path,
      component: 'pkg:npm/vuln-lib@1.0.0',
    });
  });

  it('issue 16 Acceptance: an ignore rule with expiry lets the version through; after expiry (server clock) it is blocked again', async () => {
    const path = 'vuln-lib/-/vuln-lib-1.0.0.tgz';
    const [violation] = (await api('POST', '/ui/api/v1/xray/ui/violations', {})).json().rows;
    const refused = await api('POST', '/ui/api/v1/xray/ui/ignore', {
      violationId: violation.id,
      mode: 'all',
      notes: ' ',
      expiration_date: new Date(clock + HOUR).toISOString(),
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('A justification is required');
    const ignored = await api('POST', '/ui/api/v1/xray/ui/ignore', {
      violationId: violation.id,
      mode: 'all',
      notes: 'patched in our fork',
      expiration_date: new Date(clock + HOUR).toISOString(),
    });
    expect(ignored.statusCode, ignored.body).toBe(201);
    expect((await api('GET', `/repository/npm-local/${path}`)).statusCode).toBe(200);
    expect((await api('POST', '/ui/api/v1/xray/ui/violations', {})).json().total).toBe(0);
    const all = (await api('POST', '/ui/api/v1/xray/ui/violations', { filter: 'ignored' })).json();
    expect(all.rows[0]).toMatchObject({
      id: violation.id,
      ignored: true,
      blocking: false,
      ignoreRuleId: ignored.json().id,
    });

    clock += 2 * HOUR;
    const again = await api('GET', `/repository/npm-local/${path}`);
    expect(again.statusCode).toBe(403);
    expect(again.json().error).toContain('GHSA-test-0001');
    expect((await api('GET', `/xray/api/v1/ignore_rules/${ignored.json().id}`)).json().is_expired).toBe(true);

    // Ignore once: that violation only.
    const once = await api('POST', '/ui/api/v1/xray/ui/ignore', {
      violationId: violation.id,
      mode: 'once',
      notes: 'release today, fix tomorrow',
      expiration_date: new Date(clock + HOUR).toISOString(),
    });
    expect(once.statusCode, once.body).toBe(201);
    expect((await api('GET', `/repository/npm-local/${path}`)).statusCode).toBe(200);
    clock += 2 * HOUR;
    expect((await api('GET', `/repository/npm-local/${path}`)).statusCode).toBe(403);
  });

  it('issue 16 Blocking: PyPI answers 403 as its HTTP error, Maven blocks the jar and its pom in plain text, OCI manifests answer DENIED', async () => {
    // PyPI: a wheel uploaded as twine does.
    const wheel = await makeWheel({ name: 'vulnpy', version: '1.0' });
    const form = await uploadForm(wheel, { name: 'vulnpy', version: '1.0' });
    const up = await t.app.inject({
      method: 'POST',
      url: '/repository/pypi-local/',
      headers: { authorization: ADMIN, 'content-type': form.contentType },
      payload: form.body,
    });
    expect(up.statusCode, up.body).toBe(200);
    const wheelPath = `packages/vulnpy/1.0/${wheel.filename}`;
    const pyComponent = {
      purl: 'pkg:pypi/vulnpy@1.0',
      ecosystem: 'PyPI',
      name: 'vulnpy',
      version: '1.0',
      licenses: [],
    };
    const wheelSha = createHash('sha256').update(wheel.bytes).digest('hex');
    await t.app.scanPolicies.onScan(
      await scanOf('pypi-local', wheelPath, wheelSha, pyComponent, 'PYSEC-2030-1'),
    );
    const py = await api('GET', `/repository/pypi-local/${wheelPath}`);
    expect(py.statusCode).toBe(403);
    expect(py.headers['content-type']).toMatch(/^text\/plain/);
    expect(py.body).toContain("blocked by policy 'block-high' of watch 'prod' (PYSEC-2030-1");

    // Maven: the jar is scanned; the pom beside it is blocked too.
    const jar = Buffer.from('PK\u0005\u0006'.padEnd(22, '\u0000'), 'latin1');
    for (const [file, bytes] of [
      ['demo-1.0.jar', jar],
      [
        'demo-1.0.pom',
        Buffer.from(
          '<project><modelVersion>4.0.0</modelVersion><groupId>org.acme</groupId><artifactId>demo</artifactId><version>1.0</version></project>',
        ),
      ],
    ] as const)
      expect(
        (
          await t.app.inject({
            method: 'PUT',
            url: `/repository/maven-local/org/acme/demo/1.0/${file}`,
            headers: { authorization: ADMIN },
            payload: bytes,
          })
        ).statusCode,
      ).toBe(201);
    const mvnComponent = {
      purl: 'pkg:maven/org.acme/demo@1.0',
      ecosystem: 'Maven',
      name: 'org.acme:demo',
      version: '1.0',
      licenses: [],
    };
    await t.app.scanPolicies.onScan(
      await scanOf(
        'maven-local',
        'org/acme/demo/1.0/demo-1.0.jar',
        createHash('sha256').update(jar).digest('hex'),
        mvnComponent,
        'GHSA-mvn-0001',
      ),
    );
    for (const file of ['demo-1.0.jar', 'demo-1.0.pom']) {
      const res = await api('GET', `/repository/maven-local/org/acme/demo/1.0/${file}`);
      expect(res.statusCode, file).toBe(403);
      expect(res.body).toContain('GHSA-mvn-0001');
    }

    // OCI: the tag's manifest, by tag and by digest.
    const image = testImage();
    for (const b of [image.config, ...image.layers])
      await t.app.inject({
        method: 'POST',
        url: `/v2/docker-local/app/blobs/uploads/?digest=${b.digest}`,
        headers: { authorization: ADMIN, 'content-type': 'application/octet-stream' },
        payload: b.bytes,
      });
    const pushed = await t.app.inject({
      method: 'PUT',
      url: '/v2/docker-local/app/manifests/1.0',
      headers: { authorization: ADMIN, 'content-type': image.mediaType },
      payload: image.manifest,
    });
    expect(pushed.statusCode, pushed.body).toBe(201);
    const digest = pushed.headers['docker-content-digest'] as string;
    const ociComponent = {
      purl: `pkg:oci/app@${encodeURIComponent(digest)}`,
      ecosystem: 'Debian',
      name: 'app',
      version: '1.0',
      licenses: [],
    };
    await t.app.scanPolicies.onScan(
      await scanOf('docker-local', 'app/1.0/manifest.json', digest.slice(7), ociComponent, 'DSA-2030-1'),
    );
    for (const ref of ['1.0', digest]) {
      const res = await api('GET', `/v2/docker-local/app/manifests/${ref}`);
      expect(res.statusCode, ref).toBe(403);
      expect(res.json().errors[0]).toMatchObject({ code: 'DENIED' });
      expect(res.json().errors[0].message).toContain(
        "blocked by policy 'block-high' of watch 'prod' (DSA-2030-1",
      );
    }
    // A repository no watch covers serves as before.
    expect((await api('GET', '/xray/api/v2/watches/prod')).statusCode).toBe(200);
  });
});
