import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { npmFormat } from '../../formats/npm/index.ts';
import { makeTarball, publishDocument } from '../../formats/npm/test-support.ts';
import type { PathsChange, RepositoryHandle } from '../../formats/sdk/format.ts';
import { basicAuth, createTestApp, TEST_ADMIN_PASSWORD, type TestApp } from '../../testing/index.ts';
import { copyOrMove, deleteArtifacts } from './artifacts.service.ts';
import { SYSTEM_PRINCIPAL } from './format-context.ts';
import { RepoPath } from './repo-path.ts';

/**
 * Issue 13 §1/§2: the repositories service — not a route — tells a format of the paths it changed
 * (`afterChange`), after the commit, through a system RepositoryHandle (no request); the format's own
 * changes through its handle are not echoed back, and a failing `afterChange` never fails the change.
 */

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);

describe('issue 13: afterChange from the repositories service', () => {
  let t: TestApp;
  const request = (method: 'GET' | 'PUT' | 'DELETE', url: string, payload?: unknown) =>
    t.app.inject({
      method,
      url,
      headers: {
        authorization: ADMIN,
        ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
      },
      payload: payload === undefined ? undefined : JSON.stringify(payload),
    });
  const publish = async (repo: string, name: string, version: string) => {
    const manifest = { name, version };
    const res = await request(
      'PUT',
      `/repository/${repo}/${name}`,
      publishDocument(manifest, await makeTarball(manifest)),
    );
    expect(res.statusCode, res.body).toBe(201);
  };
  const versions = async (repo: string, name: string) => {
    const res = await request('GET', `/repository/${repo}/${name}`);
    if (res.statusCode === 404) return null;
    expect(res.statusCode, res.body).toBe(200);
    return Object.keys((JSON.parse(res.body) as { versions: Record<string, unknown> }).versions).sort();
  };

  beforeAll(async () => {
    t = await createTestApp();
    for (const key of ['npm-a', 'npm-b']) {
      const res = await t.app.inject({
        method: 'PUT',
        url: `/api/repositories/${key}`,
        headers: { authorization: ADMIN },
        payload: { rclass: 'local', packageType: 'npm' },
      });
      expect(res.statusCode, res.body).toBe(201);
    }
  }, 120_000);
  afterAll(async () => t?.close());
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('issue 13 §1: a delete made by calling the service, no route involved, reaches the format: the packument drops the version', async () => {
    await publish('npm-a', 'svc-delete', '1.0.0');
    await publish('npm-a', 'svc-delete', '2.0.0');
    const removed = await deleteArtifacts(
      t.app.repositories,
      SYSTEM_PRINCIPAL,
      RepoPath.parse('npm-a', 'svc-delete/-/svc-delete-1.0.0.tgz'),
    );
    expect(removed).toBe(1);
    expect(await versions('npm-a', 'svc-delete')).toEqual(['2.0.0']);
  });

  it('issue 13 §2: afterChange gets a system RepositoryHandle — no request, acting as the server — with the moved paths per repository', async () => {
    await publish('npm-a', 'svc-move', '1.0.0');
    const calls: { repo: string; change: PathsChange; handle: RepositoryHandle; canDelete: boolean }[] = [];
    const original = npmFormat.afterChange!;
    vi.spyOn(npmFormat, 'afterChange').mockImplementation(async (handle, change) => {
      calls.push({
        repo: handle.repository.key,
        change,
        handle,
        canDelete: await handle.can('delete', 'anything'),
      });
      return original(handle, change);
    });
    await copyOrMove(
      t.app.repositories,
      SYSTEM_PRINCIPAL,
      'move',
      RepoPath.parse('npm-a', 'svc-move/-/svc-move-1.0.0.tgz'),
      RepoPath.parse('npm-b', 'svc-move/-/svc-move-1.0.0.tgz'),
      false,
    );
    expect(calls.map(({ repo, change }) => ({ repo, change }))).toEqual([
      { repo: 'npm-a', change: { deleted: ['svc-move/-/svc-move-1.0.0.tgz'], added: [] } },
      { repo: 'npm-b', change: { deleted: [], added: ['svc-move/-/svc-move-1.0.0.tgz'] } },
    ]);
    for (const { handle, canDelete } of calls) {
      expect(canDelete).toBe(true);
      // A handle, not a request context: nothing of a client request is there.
      expect('send' in handle || 'principal' in handle || 'baseUrl' in handle).toBe(false);
    }
    expect(await versions('npm-a', 'svc-move')).toBeNull();
    expect(await versions('npm-b', 'svc-move')).toEqual(['1.0.0']);
  });

  it("issue 13 §1: the format's own deletes through its handle are not echoed back to its afterChange", async () => {
    await publish('npm-a', 'own-delete', '1.0.0');
    const afterChange = vi.spyOn(npmFormat, 'afterChange');
    const res = await request('DELETE', '/repository/npm-a/own-delete/-/own-delete-1.0.0.tgz/-rev/1');
    expect(res.statusCode, res.body).toBe(200);
    expect(afterChange).not.toHaveBeenCalled();
    expect(await versions('npm-a', 'own-delete')).toBeNull();
  });

  it('issue 13 §1: an afterChange that throws is logged; the delete the client asked for still succeeds', async () => {
    await publish('npm-a', 'failing-format', '1.0.0');
    vi.spyOn(npmFormat, 'afterChange').mockRejectedValue(new Error('regeneration failed'));
    // The tarball folder: a DELETE the npm format leaves to the core.
    const res = await request('DELETE', '/repository/npm-a/failing-format/-/');
    expect(res.statusCode, res.body).toBe(204);
    const file = await request('GET', '/repository/npm-a/failing-format/-/failing-format-1.0.0.tgz');
    expect(file.statusCode).toBe(404);
  });
});
