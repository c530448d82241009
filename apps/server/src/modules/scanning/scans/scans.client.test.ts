import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import yazl from 'yazl';
import { httpPublish } from '../../../formats/npm/test-support.ts';
import { startTestServer, type TestServer } from '../../../testing/server-process.ts';
import { basicAuth } from '../../../testing/test-app.ts';

/**
 * Issue 16: `npm audit` (the real npm CLI) against a Granary process reports the advisory the
 * admin imported, from the bulk advisory endpoint of a local repository.
 */
const PASSWORD = 'Npm-audit-Pa55word!';
const ADMIN = basicAuth('admin', PASSWORD);

function npmEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k)) env[k] = v;
  return {
    ...env,
    HOME: home,
    NO_UPDATE_NOTIFIER: '1',
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
  };
}

describe('issue 16: npm audit with the real npm client', () => {
  let server: TestServer | undefined;
  let work: string;

  beforeAll(async () => {
    work = await mkdtemp(path.join(os.tmpdir(), 'granary-npm-audit-'));
    server = await startTestServer(PASSWORD);
    const api = (method: string, url: string, body: unknown, type = 'application/json') =>
      fetch(`${server!.url}${url}`, {
        method,
        headers: { authorization: ADMIN, 'content-type': type },
        body: body as string | Buffer,
      });
    expect(
      (
        await api(
          'PUT',
          '/api/repositories/npm-local',
          JSON.stringify({ rclass: 'local', packageType: 'npm' }),
        )
      ).status,
    ).toBe(201);
    const zip = new yazl.ZipFile();
    zip.addBuffer(
      Buffer.from(
        JSON.stringify({
          id: 'GHSA-audi-tcli-test',
          modified: '2024-05-01T00:00:00Z',
          aliases: ['CVE-2024-4242'],
          summary: 'Prototype pollution in audited-lib',
          database_specific: { severity: 'HIGH' },
          affected: [
            {
              package: { ecosystem: 'npm', name: 'audited-lib' },
              ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '1.0.1' }] }],
            },
          ],
          references: [{ type: 'ADVISORY', url: 'https://example.test/GHSA-audi-tcli-test' }],
        }),
      ),
      'GHSA-audi-tcli-test.json',
    );
    zip.end();
    const chunks: Buffer[] = [];
    for await (const c of zip.outputStream) chunks.push(c as Buffer);
    const imported = await api(
      'POST',
      '/api/scanning/advisories/import',
      Buffer.concat(chunks),
      'application/zip',
    );
    expect(imported.status, await imported.text()).toBe(200);
    const registry = `${server.url}/repository/npm-local`;
    const published = await httpPublish(registry, ADMIN, { name: 'audited-lib', version: '1.0.0' });
    expect(published.status).toBe(201);
    await writeFile(
      path.join(work, 'package.json'),
      JSON.stringify({ name: 'app', version: '1.0.0', dependencies: { 'audited-lib': '1.0.0' } }),
    );
    const auth = Buffer.from(`admin:${PASSWORD}`).toString('base64');
    await writeFile(
      path.join(work, '.npmrc'),
      `registry=${registry}/\n${registry.replace(/^http:/, '')}/:_auth=${auth}\n`,
    );
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('issue 16: npm audit reports the imported advisory for the installed version', async () => {
    const run = (args: string[]) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
        execFile(
          'npm',
          [...args, '--cache', path.join(work, 'cache'), '--loglevel', 'warn'],
          { cwd: work, env: npmEnv(work), timeout: 120_000, maxBuffer: 8 * 1024 * 1024 },
          (err, stdout, stderr) =>
            resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
        ),
      );
    const install = await run(['install', '--no-audit']);
    expect(install.code, install.stderr).toBe(0);
    const audit = await run(['audit', '--json']);
    expect(audit.code, audit.stderr).toBe(1); // npm audit exits 1 when it finds vulnerabilities
    const report = JSON.parse(audit.stdout);
    expect(report.vulnerabilities['audited-lib']).toMatchObject({
      severity: 'high',
      // the advisory's range as the bulk answer gave it (npm's own `range` spans the versions the registry has)
      via: [
        expect.objectContaining({
          title: 'Prototype pollution in audited-lib',
          url: 'https://example.test/GHSA-audi-tcli-test',
          range: '<1.0.1',
        }),
      ],
    });
    expect(report.metadata.vulnerabilities.high).toBe(1);
  }, 180_000);
});
