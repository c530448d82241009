// @vitest-environment node
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { QUICK_START_DEFAULTS } from '@granary/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { npmInstallCommands, npmPublishCommand } from './quickStartCommands.ts';

const run = promisify(execFile);
const ctx = { baseUrl: 'http://127.0.0.1:9', user: 'admin', token: 'tok', virtualRepo: 'npm' };
const d = {
  downloadPackage: QUICK_START_DEFAULTS.npm.download.name,
  uploadPackage: QUICK_START_DEFAULTS.npm.upload.name,
};

/**
 * The real npm on this machine (npm 11 refuses to publish a prerelease without --tag) runs the wizard's own Install
 * preparation and Publish command. `--dry-run --offline` stops it before the network: the version and tag rules are
 * npm's own and are checked before it would upload.
 */
describe('quick-start npm commands with the real npm client (issue 17, spec 000 §4)', () => {
  let dir: string;
  const timestamp = Date.now();
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'granary-npm-trial-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('spec 000 §4 Npm Install then Publish: the 0.0.0-{timestamp} trial version the Install step sets is published by the Publish step as shown', async () => {
    // The Install step without its last line (the install itself needs the server).
    const prepare = npmInstallCommands(ctx, d, timestamp).split('\n').slice(0, -1).join(' && ');
    await run('sh', ['-c', prepare], { cwd: dir });
    const project = join(dir, d.uploadPackage);
    const manifest = JSON.parse(await readFile(join(project, 'package.json'), 'utf8'));
    expect(manifest.version).toBe(`0.0.0-${timestamp}`);

    const shown = npmPublishCommand(ctx);
    const published = await run('sh', ['-c', `${shown} --dry-run --offline`], {
      cwd: project,
      env: { ...process.env, npm_config_loglevel: 'notice' },
    });
    expect(`${published.stdout}${published.stderr}`).toContain(`${d.uploadPackage}@0.0.0-${timestamp}`);

    // Without the tag, npm refuses: the rule the command must satisfy.
    const bare = shown.replace(/ --tag \S+/, '');
    await expect(run('sh', ['-c', `${bare} --dry-run --offline`], { cwd: project })).rejects.toThrow(
      /You must specify a tag using --tag when publishing a prerelease version/,
    );
  });
});
