import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PackageFormat } from '../formats/sdk/format.ts';
import { packages, packageVersions } from '../modules/packages/packages.schema.ts';
import { basicAuth, createTestApp, TEST_ADMIN_PASSWORD, type TestApp } from './test-app.ts';

export const ADMIN_AUTH = basicAuth('admin', TEST_ADMIN_PASSWORD);

/** What the kit needs from a format's client protocol, spoken through `app.inject` as its client would. */
export interface ProtocolDriver {
  /** A package name the driver can publish (any valid name of the format). */
  name: string;
  /** Publishes `name@version` to a local repository as the client does; throws on failure. */
  publish(t: TestApp, repoKey: string, name: string, version: string): Promise<void>;
  /**
   * Reads the index document of `name` from a repository as the client does: the versions it
   * offers and the absolute URLs of the files it points at (null when the name is unknown).
   */
  read(t: TestApp, repoKey: string, name: string): Promise<{ versions: string[]; fileUrls: string[] } | null>;
  /** The URL a remote repository is given for an upstream repository (default `{base}/repository/{key}/`). */
  remoteUrl?(baseUrl: string, upstreamKey: string): string;
  /** How the packages index spells a version the kit names (Go: `v1.0.0`); default: as named. */
  indexVersion?(version: string): string;
  /** Extra repository settings the format needs (e.g. maven's handleSnapshots). */
  repositorySettings?: Record<string, unknown>;
  /** Extra settings of the remote repository only (e.g. credentials for the upstream, which refuses anonymous reads). */
  remoteSettings?: Record<string, unknown>;
}

const pathOf = (url: string) => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};

/**
 * The protocol half of the conformance kit (issue 5: extract, index, remote rewrite, virtual merge):
 * run against the real app with the format's client protocol. Every format with a client protocol
 * runs it beside `describeFormatConformance` (formats/sdk/conformance.ts). Test support, so it lives
 * here: it reads the packages index and speaks through `app.inject`, which formats themselves never do.
 */
export function describeFormatProtocolConformance(format: PackageFormat, driver: ProtocolDriver): void {
  describe(`format protocol conformance: ${format.id}`, () => {
    let t: TestApp;
    let base: string;
    const create = async (key: string, body: Record<string, unknown>) => {
      const res = await t.app.inject({
        method: 'PUT',
        url: `/api/repositories/${key}`,
        headers: { authorization: ADMIN_AUTH },
        payload: { packageType: format.id, ...driver.repositorySettings, ...body },
      });
      expect(res.statusCode, res.body).toBe(201);
    };
    const fetchFile = (url: string) =>
      t.app.inject({ method: 'GET', url: pathOf(url), headers: { authorization: ADMIN_AUTH } });

    beforeAll(async () => {
      t = await createTestApp({ outboundAllowlist: '127.0.0.1' });
      base = await t.app.listen({ host: '127.0.0.1', port: 0 });
      await create('conf-a', { rclass: 'local' });
      await create('conf-b', { rclass: 'local' });
      await create('conf-up', { rclass: 'local' });
      await create('conf-remote', {
        rclass: 'remote',
        url: driver.remoteUrl?.(base, 'conf-up') ?? `${base}/repository/conf-up/`,
        ...driver.remoteSettings,
      });
      await create('conf-virtual', { rclass: 'virtual', repositories: ['conf-a', 'conf-b'] });
      await create('conf-guarded', { rclass: 'virtual', repositories: ['conf-b', 'conf-remote'] });
      await driver.publish(t, 'conf-a', driver.name, '1.0.0');
      await driver.publish(t, 'conf-b', driver.name, '2.0.0');
      await driver.publish(t, 'conf-up', driver.name, '99.0.0');
    });
    afterAll(async () => {
      await t?.close();
    });

    it('index: a published version is in the packages index with its lead file, and in the index document', async () => {
      const rows = await t.app.granary.database.db
        .select({ name: packages.name, version: packageVersions.version, lead: packageVersions.leadPath })
        .from(packageVersions)
        .innerJoin(packages, eq(packages.id, packageVersions.packageId));
      expect(rows).toContainEqual(
        expect.objectContaining({ version: driver.indexVersion?.('1.0.0') ?? '1.0.0' }),
      );
      const doc = await driver.read(t, 'conf-a', driver.name);
      expect(doc?.versions).toEqual(['1.0.0']);
      for (const url of doc!.fileUrls) {
        expect(pathOf(url).startsWith('/repository/conf-a/') || pathOf(url).startsWith('/v2/conf-a/')).toBe(
          true,
        );
        expect((await fetchFile(url)).statusCode).toBe(200);
      }
    });

    it('virtual merge: the virtual repository offers the versions of every member, each file fetchable', async () => {
      const doc = await driver.read(t, 'conf-virtual', driver.name);
      expect([...(doc?.versions ?? [])].sort()).toEqual(['1.0.0', '2.0.0']);
      expect(doc!.fileUrls.length).toBeGreaterThanOrEqual(2);
      for (const url of doc!.fileUrls) expect((await fetchFile(url)).statusCode).toBe(200);
    });

    it('remote rewrite: documents fetched from the upstream point at this server, and the files arrive byte-identical', async () => {
      const doc = await driver.read(t, 'conf-remote', driver.name);
      expect(doc?.versions).toEqual(['99.0.0']);
      const upstream = await driver.read(t, 'conf-up', driver.name);
      const name = (url: string) => new URL(url).pathname.split('/').at(-1);
      expect(doc!.fileUrls.map(name).sort()).toEqual(upstream!.fileUrls.map(name).sort());
      for (const url of doc!.fileUrls) {
        const p = pathOf(url);
        expect(p.startsWith('/repository/conf-remote/') || p.startsWith('/v2/conf-remote/')).toBe(true);
        const mine = await fetchFile(url);
        expect(mine.statusCode).toBe(200);
        const theirs = await fetchFile(upstream!.fileUrls.find((u) => name(u) === name(url))!);
        expect(mine.rawPayload.equals(theirs.rawPayload)).toBe(true);
      }
    });

    it('dependency confusion: a name a local member holds is never offered from a remote member', async () => {
      const doc = await driver.read(t, 'conf-guarded', driver.name);
      expect(doc?.versions).toEqual(['2.0.0']);
    });
  });
}
