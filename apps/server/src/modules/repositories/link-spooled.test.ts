import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConflictError } from '../../platform/errors.ts';
import { basicAuth, createTestApp, TEST_ADMIN_PASSWORD, type TestApp } from '../../testing/index.ts';
import { findArtifacts } from './artifacts.queries.ts';
import { createSystemHandle, findRepository } from './repositories.api.ts';

/**
 * Issue 24: `link` also makes files of bytes `spool` put in the blob store, several in one commit
 * (an npm publish's tarball and version record), and with `noOverwrite` refuses other content at a
 * path without storing anything.
 */

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);

describe('issue 24: link of spooled bytes', () => {
  let t: TestApp;
  const handle = async () =>
    createSystemHandle(t.app.repositories, (await findRepository(t.app.repositories.db, 'gen'))!);
  const spool = async (path: string, text: string) =>
    (await handle()).spool(path, Readable.from([Buffer.from(text)]));
  const rows = async (paths: string[]) => {
    const repo = (await findRepository(t.app.repositories.db, 'gen'))!;
    return findArtifacts(t.app.repositories.db, repo.id, paths);
  };

  beforeAll(async () => {
    t = await createTestApp();
    const res = await t.app.inject({
      method: 'PUT',
      url: '/api/repositories/gen',
      headers: { authorization: ADMIN },
      payload: { rclass: 'local', packageType: 'generic' },
    });
    expect(res.statusCode, res.body).toBe(201);
  }, 120_000);
  afterAll(async () => t?.close());

  it('issue 24: spooled bytes become files, all in one commit, with the checksums the core computed', async () => {
    const a = await spool('one/a.txt', 'alpha');
    const b = await spool('one/b.txt', 'beta');
    const files = await (await handle()).link(
      [
        { path: 'one/a.txt', spooled: a, properties: { k: ['v'] } },
        { path: 'one/b.txt', spooled: b },
      ],
      { noOverwrite: true },
    );
    await a.release();
    await b.release();
    expect(files.map((f) => [f.path, f.size, f.sha256])).toEqual([
      ['one/a.txt', 5, a.sha256],
      ['one/b.txt', 4, b.sha256],
    ]);
    expect(files[0]!.properties).toEqual({ k: ['v'] });
    const res = await t.app.inject({
      method: 'GET',
      url: '/repository/gen/one/b.txt',
      headers: { authorization: ADMIN },
    });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('beta');
  });

  it('issue 24: with noOverwrite, the same bytes again change nothing; other bytes at one path store neither file', async () => {
    const again = await spool('two/a.txt', 'alpha');
    const first = await (await handle()).link([{ path: 'two/a.txt', spooled: again }], { noOverwrite: true });
    const same = await spool('two/a.txt', 'alpha');
    const twin = await (await handle()).link([{ path: 'two/a.txt', spooled: same }], { noOverwrite: true });
    expect(twin[0]!.modifiedAt).toEqual(first[0]!.modifiedAt);

    const other = await spool('two/a.txt', 'changed');
    const fresh = await spool('two/new.txt', 'new');
    const refused = (await handle()).link(
      [
        { path: 'two/new.txt', spooled: fresh },
        { path: 'two/a.txt', spooled: other },
      ],
      { noOverwrite: true },
    );
    await expect(refused).rejects.toBeInstanceOf(ConflictError);
    await expect(refused).rejects.toMatchObject({ code: 'ALREADY_EXISTS' });
    for (const s of [again, same, other, fresh]) await s.release();
    const stored = await rows(['two/a.txt', 'two/new.txt']);
    expect(stored.map((r) => [r.path, r.sha256])).toEqual([['two/a.txt', first[0]!.sha256]]);
  });

  it('issue 24: without noOverwrite, other bytes replace the file (the server may delete)', async () => {
    const one = await spool('three/a.txt', 'one');
    await (await handle()).link([{ path: 'three/a.txt', spooled: one }]);
    const two = await spool('three/a.txt', 'two');
    const [replaced] = await (await handle()).link([{ path: 'three/a.txt', spooled: two }]);
    expect(replaced!.sha256).toBe(two.sha256);
    await one.release();
    await two.release();
  });
});
