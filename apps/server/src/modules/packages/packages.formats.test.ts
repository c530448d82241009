import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uploadForm } from '../../formats/pypi/test-dists.ts';
import {
  basicAuth,
  createTestApp,
  TEST_ADMIN_PASSWORD,
  type TestApp,
  testEngine,
} from '../../testing/index.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
const FORMATS = path.join(import.meta.dirname, '../../formats');
const fixture = (format: string, name: string) =>
  readFileSync(path.join(FORMATS, format, '__fixtures__', name));

/** The packages index fed by the formats that have landed, through their own client protocols. */
describe(`packages from real format uploads (${testEngine})`, () => {
  let t: TestApp;
  const gql = async (query: string) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/ui/api/v1/packages',
      headers: { authorization: ADMIN },
      payload: { query },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().errors, res.body).toBeUndefined();
    return res.json().data;
  };

  beforeAll(async () => {
    t = await createTestApp();
    for (const [key, packageType] of [
      ['maven-local', 'maven'],
      ['py-local', 'pypi'],
    ] as const) {
      const res = await t.app.inject({
        method: 'PUT',
        url: `/api/repositories/${key}`,
        headers: { authorization: ADMIN },
        payload: { rclass: 'local', packageType },
      });
      expect(res.statusCode, res.body).toBe(201);
    }
    const base = '/repository/maven-local/org/granary/samples';
    for (const [url, file] of [
      [`${base}/demo-parent/1.2.0/demo-parent-1.2.0.pom`, 'demo-parent-1.2.0.pom'],
      [`${base}/demo-lib/1.2.0/demo-lib-1.2.0.jar`, 'demo-lib-1.2.0.jar'],
      [`${base}/demo-lib/1.2.0/demo-lib-1.2.0.pom`, 'demo-lib-1.2.0.pom'],
    ] as const) {
      const res = await t.app.inject({
        method: 'PUT',
        url,
        headers: { authorization: ADMIN },
        payload: fixture('maven', file),
      });
      expect(res.statusCode, res.body).toBe(201);
    }
    const form = await uploadForm(
      {
        filename: 'Hello_Granary-1.0.0-py3-none-any.whl',
        bytes: fixture('pypi', 'Hello_Granary-1.0.0-py3-none-any.whl'),
      },
      { name: 'Hello-Granary', version: '1.0.0', filetype: 'bdist_wheel' },
    );
    const up = await t.app.inject({
      method: 'POST',
      url: '/repository/py-local/',
      headers: { authorization: ADMIN, 'content-type': form.contentType },
      payload: form.body,
    });
    expect(up.statusCode, up.body).toBe(200);
  }, 120_000);
  afterAll(() => t?.close());

  it('maven (gav alias): a deployed pom and jar make a version whose files are the whole version folder, lead file the pom', async () => {
    const data = await gql(
      `{ packages(package_type: ["gav"]) { edges { node { id name latestVersion licenses } } } }`,
    );
    const pkg = data.packages.edges.find((e: { node: { name: string } }) =>
      e.node.name.endsWith(':demo-lib'),
    )?.node;
    expect(pkg).toMatchObject({ latestVersion: '1.2.0', licenses: ['Apache-2.0'] });
    const v = (
      await gql(`{ version(packageId: ${JSON.stringify(pkg.id)}, name: "1.2.0") {
        files { name lead sha256 } dependencies { name range scope } install: installCommand repos { leadFilePath } } }`)
    ).version;
    expect(
      v.files.map((f: { name: string; lead: boolean }) => `${f.name}${f.lead ? ' (lead)' : ''}`),
    ).toEqual(['demo-lib-1.2.0.jar', 'demo-lib-1.2.0.pom (lead)']);
    expect(v.dependencies.map((d: { name: string }) => d.name)).toContain('commons-lang:commons-lang');
    expect(v.install).toBeNull(); // no maven template in spec 001 §3
  });

  it('maven: GAVC and archive-entry search find the deployed jar and its class', async () => {
    const gavc = await t.app.inject({
      url: '/api/search/gavc?g=org.granary.samples&a=demo-lib&v=1.2.0',
      headers: { authorization: ADMIN },
    });
    expect(
      gavc
        .json()
        .results.map((r: { path: string }) => r.path)
        .sort(),
    ).toEqual([
      'org/granary/samples/demo-lib/1.2.0/demo-lib-1.2.0.jar',
      'org/granary/samples/demo-lib/1.2.0/demo-lib-1.2.0.pom',
    ]);
    // the maven format stores the jar with its own metadata: its entries are read just after the commit
    const archive = () =>
      t.app
        .inject({
          method: 'POST',
          url: '/ui/api/v1/ui/artifactsearch/archive',
          headers: { authorization: ADMIN },
          payload: { query: 'Greeter', searchClassOnly: true },
        })
        .then((r) => r.json().results);
    await expect.poll(archive, { timeout: 10_000 }).toEqual([
      expect.objectContaining({
        repoKey: 'maven-local',
        path: 'org/granary/samples/demo-lib/1.2.0/demo-lib-1.2.0.jar',
        entry: 'demo/Greeter.class',
      }),
    ]);
  });

  it('pypi: an uploaded wheel is a package with its install command (pip install name==version)', async () => {
    const data = await gql(
      `{ packages(package_type: ["pypi"], name: "hello") { edges { node { id name latestVersion } } } }`,
    );
    expect(data.packages.edges).toHaveLength(1);
    const pkg = data.packages.edges[0].node;
    expect(pkg.latestVersion).toBe('1.0.0');
    const v = (
      await gql(`{ version(packageId: ${JSON.stringify(pkg.id)}, name: "1.0.0") {
        files { name lead } install: installCommand latest: installCommand(withVersion: false) } }`)
    ).version;
    expect(v.install).toBe(`pip install ${pkg.name}==1.0.0`);
    expect(v.latest).toBe(`pip install ${pkg.name}`);
    expect(v.files.find((f: { lead: boolean }) => f.lead).name).toBe('Hello_Granary-1.0.0-py3-none-any.whl');
  });

  it('issue 13 §3: a package’s install command (GraphQL installCommand, no version) comes from its format: pip for the wheel, none for maven', async () => {
    const data = await gql(
      `{ packages(package_type: ["pypi", "maven"]) { edges { node { name packageType installCommand } } } }`,
    );
    const byType = Object.fromEntries(
      data.packages.edges.map((e: { node: { packageType: string } }) => [e.node.packageType, e.node]),
    );
    expect(byType.pypi.installCommand).toBe(`pip install ${byType.pypi.name}`);
    expect(byType.maven).toMatchObject({ installCommand: null });
  });
});
