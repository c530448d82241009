import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../testing/server-process.ts';

/**
 * Acceptance (issue 23, Cargo): the real cargo client (rustup's cargo on this machine) against a
 * Granary process on loopback: `cargo publish` of two crates, one depending on the other, then
 * `cargo build` of a project using them, with the registry as a sparse index and the token in
 * `credentials.toml`. Nothing reaches crates.io: no crate here depends on it.
 */
const PASSWORD = 'Cargo-acceptance-Pa55!';

/** rustup's cargo where it is installed for the user, else the one on PATH (Debian's). */
const CARGO = existsSync(path.join(os.homedir(), '.cargo/bin/cargo'))
  ? path.join(os.homedir(), '.cargo/bin/cargo')
  : 'cargo';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

describe('issue 23 Cargo: cargo client acceptance', () => {
  let work: string;
  let server: TestServer | undefined;
  let cargoHome: string;

  /** cargo with its home (config, credentials, caches) in the test's folder and nothing inherited. */
  const cargo = (args: string[], cwd: string) =>
    new Promise<Run>((resolve) => {
      const env: NodeJS.ProcessEnv = {};
      for (const [k, v] of Object.entries(process.env)) if (!/^CARGO/.test(k)) env[k] = v;
      execFile(
        CARGO,
        args,
        {
          cwd,
          env: {
            ...env,
            CARGO_HOME: cargoHome,
            CARGO_TARGET_DIR: path.join(work, 'target'),
            CARGO_TERM_COLOR: 'never',
            // rustup's own home stays the user's, where the toolchain is installed.
            RUSTUP_HOME: process.env.RUSTUP_HOME ?? path.join(os.homedir(), '.rustup'),
          },
          timeout: 240_000,
          maxBuffer: 16 * 1024 * 1024,
        },
        (err, stdout, stderr) =>
          resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
      );
    });
  const ok = async (args: string[], cwd: string) => {
    const run = await cargo(args, cwd);
    expect(run.code, `cargo ${args.join(' ')}\n${run.stdout}\n${run.stderr}`).toBe(0);
    return run;
  };

  async function writeCrate(name: string, toml: string, files: Record<string, string>) {
    const dir = path.join(work, name);
    await mkdir(path.join(dir, 'src'), { recursive: true });
    await writeFile(path.join(dir, 'Cargo.toml'), toml);
    for (const [file, text] of Object.entries(files)) await writeFile(path.join(dir, file), text);
    return dir;
  }

  beforeAll(async () => {
    work = await mkdtemp(path.join(os.tmpdir(), 'granary-cargo-client-'));
    cargoHome = path.join(work, 'cargo-home');
    await mkdir(cargoHome);
    server = await startTestServer(PASSWORD);
    await server.createRepository('cargo-local', { rclass: 'local', packageType: 'cargo' });
    await server.createRepository('cargo', {
      rclass: 'virtual',
      packageType: 'cargo',
      repositories: ['cargo-local'],
      defaultDeploymentRepo: 'cargo-local',
    });
    const res = await fetch(`${server.url}/api/security/tokens`, {
      method: 'POST',
      headers: { authorization: server.auth, 'content-type': 'application/json' },
      body: JSON.stringify({ description: 'cargo acceptance', scope: 'applied-permissions/admin' }),
    });
    expect(res.status).toBe(200);
    const { access_token: token } = (await res.json()) as { access_token: string };
    // The registry through the virtual repository (publishes land in its default deployment repository);
    // cargo sends a token to a registry that requires one only with a credential provider named.
    await writeFile(
      path.join(cargoHome, 'config.toml'),
      `[registries.granary]\nindex = "sparse+${server.url}/repository/cargo/"\ncredential-provider = "cargo:token"\n`,
    );
    await writeFile(path.join(cargoHome, 'credentials.toml'), `[registries.granary]\ntoken = "${token}"\n`);
  }, 300_000);
  afterAll(async () => {
    await server?.stop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('issue 23 Cargo: cargo publish of two crates (one depending on the other), then cargo build of a project using them', async () => {
    // No VCS in these folders, so cargo has no dirty state to complain of (no --allow-dirty); publishing
    // verifies each crate by building it, the second one with its dependency fetched from Granary.
    const base = await writeCrate(
      'granary-base',
      '[package]\nname = "granary-base"\nversion = "0.1.0"\nedition = "2021"\ndescription = "the base"\nlicense = "MIT"\npublish = ["granary"]\n',
      { 'src/lib.rs': 'pub fn base() -> u32 { 41 }\n' },
    );
    await ok(['publish', '--registry', 'granary'], base);
    const plus = await writeCrate(
      'granary-plus',
      '[package]\nname = "granary-plus"\nversion = "0.2.0"\nedition = "2021"\ndescription = "one more"\nlicense = "MIT"\npublish = ["granary"]\n\n[dependencies]\ngranary-base = { version = "0.1", registry = "granary" }\n',
      { 'src/lib.rs': 'pub fn plus() -> u32 { granary_base::base() + 1 }\n' },
    );
    await ok(['publish', '--registry', 'granary'], plus);

    const app = await writeCrate(
      'app',
      '[package]\nname = "app"\nversion = "0.0.0"\nedition = "2021"\npublish = false\n\n[dependencies]\ngranary-plus = { version = "0.2", registry = "granary" }\n',
      { 'src/main.rs': 'fn main() { println!("answer {}", granary_plus::plus()); }\n' },
    );
    const built = await ok(['run', '--quiet'], app);
    expect(built.stdout.trim()).toBe('answer 42');

    const search = await ok(['search', '--registry', 'granary', 'granary'], app);
    expect(search.stdout).toContain('granary-base = "0.1.0"');
    expect(search.stdout).toContain('granary-plus = "0.2.0"');

    // Granary's errors reach the user in cargo's words: its `{"errors":[{"detail"}]}` is printed.
    const missing = await cargo(['yank', '--registry', 'granary', 'granary-base@9.9.9'], app);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('crate `granary-base` does not have a version `9.9.9`');
    await ok(['yank', '--registry', 'granary', 'granary-base@0.1.0'], app);
    const index = await fetch(`${server!.url}/repository/cargo/gr/an/granary-base`, {
      headers: { authorization: server!.auth },
    });
    expect(JSON.parse(await index.text())).toMatchObject({
      name: 'granary-base',
      vers: '0.1.0',
      yanked: true,
    });
  });
});
