import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../platform/db/index.ts';
import type { Principal } from '../../platform/http/access-control.ts';
import { createTestDatabase } from '../../testing/index.ts';
import type { Authorizer } from '../access/index.ts';
import { MAX_VIRTUAL_DEPTH } from '../repositories/repositories.api.ts';
import { PackageVisibility } from './package-visibility.ts';

const USER: Principal = { id: 'u', name: 'reader', admin: false, groups: [], via: 'password' };

/** An authorizer that lets `reader` read every repository but `secret`, and below `hidden/` nowhere. */
const authorizer = {
  can: async (_p: Principal | null, _action: string, ref: { key: string; path: string }) =>
    ref.key !== 'secret' && !ref.path.startsWith('hidden/'),
} as unknown as Authorizer;

describe('issue 13 §5: package visibility (repositories through the repositories read API)', () => {
  let database: Database;
  let clock = 0;
  let visibility: PackageVisibility;

  const addRepo = (key: string, rclass: string, packageType: string, members: string[] = []) =>
    database.db.execute(sql`insert into repositories (key, rclass, package_type, settings)
      values (${key}, ${rclass}, ${packageType},
        ${JSON.stringify(rclass === 'virtual' ? { virtual: { repositories: members } } : {})}::jsonb)`);

  beforeAll(async () => {
    database = await createTestDatabase();
    // A chain of virtual repositories v0 → v1 → … each with a local member local-k, one level deeper
    // than the virtual repository above it.
    for (let k = 0; k <= MAX_VIRTUAL_DEPTH + 1; k++) {
      await addRepo(`local-${k}`, 'local', 'npm');
      await addRepo(`v${k}`, 'virtual', 'npm', [`local-${k}`, `v${k + 1}`]);
    }
    await addRepo('secret', 'local', 'npm');
    await addRepo('builds', 'local', 'buildinfo');
    visibility = new PackageVisibility(database.db, authorizer, () => clock);
  });
  afterAll(async () => {
    await database?.close();
  });

  it('issue 13 §5: readable repositories leave out virtual ones, hidden types and those the caller may not read', async () => {
    const keys = (await visibility.readableRepos(USER)).map((r) => r.key).sort();
    expect(keys).toEqual(Array.from({ length: MAX_VIRTUAL_DEPTH + 2 }, (_, k) => `local-${k}`).sort());
  });

  it('issue 13 §5: a repos filter naming a virtual repository stands for its members, nested as deep as downloads resolve (MAX_VIRTUAL_DEPTH)', async () => {
    const scope = await visibility.scope(USER, ['V0']);
    expect(scope.all).toBe(false);
    // local-k sits k + 1 levels below v0: the levels 0…MAX_VIRTUAL_DEPTH are searched, no deeper
    expect(scope.repos.map((r) => r.key).sort()).toEqual(
      Array.from({ length: MAX_VIRTUAL_DEPTH }, (_, k) => `local-${k}`).sort(),
    );
    expect((await visibility.scope(USER, ['local-3-cache'])).repos.map((r) => r.key)).toEqual(['local-3']);
    expect((await visibility.scope(USER, ['secret'])).repos).toEqual([]);
  });

  it('issue 13 §5: lead files are checked at their path, except for admins; the repository list lives a second on the clock given', async () => {
    const [repo] = (await visibility.scope(USER, ['local-0'])).repos;
    expect(await visibility.leadReadable(USER, repo!, 'a/-/a-1.0.0.tgz')).toBe(true);
    expect(await visibility.leadReadable(USER, repo!, 'hidden/a-1.0.0.tgz')).toBe(false);
    expect(await visibility.leadReadable({ ...USER, admin: true }, repo!, 'hidden/a-1.0.0.tgz')).toBe(true);
    await addRepo('late', 'local', 'npm');
    expect((await visibility.readableRepos(USER)).some((r) => r.key === 'late')).toBe(false);
    clock += 1_000;
    expect((await visibility.readableRepos(USER)).some((r) => r.key === 'late')).toBe(true);
  });
});
