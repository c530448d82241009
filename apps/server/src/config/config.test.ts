import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

describe('config', () => {
  let home: string;
  beforeEach(async () => {
    home = await mkdtemp(path.join(os.tmpdir(), 'granary-config-'));
  });
  afterEach(async () => {
    await rm(home, { recursive: true, force: true });
  });

  it('runtime contract: defaults are port 8080, host 0.0.0.0, home ./.granary, empty allow-list', () => {
    const config = loadConfig({}, '/srv/app');
    expect(config.port).toBe(8080);
    expect(config.host).toBe('0.0.0.0');
    expect(config.home).toBe('/srv/app/.granary');
    expect(config.outboundAllowlist).toEqual([]);
    expect(config.databaseUrl).toBeUndefined();
    expect(config.blobstoreUrl).toBeUndefined();
  });

  it('reads every contract setting from the environment', () => {
    const config = loadConfig({
      GRANARY_HOME: home,
      GRANARY_PORT: '9090',
      GRANARY_HOST: '127.0.0.1',
      GRANARY_DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/granary',
      GRANARY_BLOBSTORE_URL: 's3://bucket?endpoint=http://127.0.0.1:9000&region=us-east-1',
      GRANARY_ADMIN_PASSWORD: 'secret',
      GRANARY_BASE_URL: 'https://repo.example.com/',
      GRANARY_OUTBOUND_ALLOWLIST: '127.0.0.1, 10.0.0.0/8,,mirror.local',
    });
    expect(config).toMatchObject({
      home,
      port: 9090,
      host: '127.0.0.1',
      databaseUrl: 'postgres://u:p@127.0.0.1:5432/granary',
      blobstoreUrl: 's3://bucket?endpoint=http://127.0.0.1:9000&region=us-east-1',
      adminPassword: 'secret',
      baseUrl: 'https://repo.example.com',
      outboundAllowlist: ['127.0.0.1', '10.0.0.0/8', 'mirror.local'],
    });
  });

  it('reads $GRANARY_HOME/config.yaml, and the environment wins over it', async () => {
    await writeFile(
      path.join(home, 'config.yaml'),
      'port: 7000\nhost: 127.0.0.2\noutboundAllowlist: [127.0.0.1, ::1]\n',
    );
    expect(loadConfig({ GRANARY_HOME: home })).toMatchObject({
      port: 7000,
      host: '127.0.0.2',
      outboundAllowlist: ['127.0.0.1', '::1'],
    });
    expect(loadConfig({ GRANARY_HOME: home, GRANARY_PORT: '7001' }).port).toBe(7001);
  });

  it('a bad value is one line naming the setting: GRANARY_PORT=abc', () => {
    expect(() => loadConfig({ GRANARY_HOME: home, GRANARY_PORT: 'abc' })).toThrow(ConfigError);
    try {
      loadConfig({ GRANARY_HOME: home, GRANARY_PORT: 'abc' });
    } catch (err) {
      expect((err as Error).message).toMatch(/^GRANARY_PORT: /);
      expect((err as Error).message).not.toContain('\n');
    }
    expect(() => loadConfig({ GRANARY_HOME: home, GRANARY_PORT: '70000' })).toThrow(/GRANARY_PORT/);
    expect(() => loadConfig({ GRANARY_HOME: home, GRANARY_DATABASE_URL: 'mysql://x' })).toThrow(
      /GRANARY_DATABASE_URL/,
    );
    expect(() => loadConfig({ GRANARY_HOME: home, GRANARY_BLOBSTORE_URL: 'gs://x' })).toThrow(
      /GRANARY_BLOBSTORE_URL/,
    );
    expect(() => loadConfig({ GRANARY_HOME: home, GRANARY_BASE_URL: 'ftp://x' })).toThrow(/GRANARY_BASE_URL/);
    expect(() => loadConfig({ GRANARY_HOME: home, GRANARY_OUTBOUND_ALLOWLIST: '10.0.0.0/99' })).toThrow(
      /^GRANARY_OUTBOUND_ALLOWLIST: /,
    );
  });

  it('GRANARY_TRUST_PROXY: false by default; true, a hop count or an address list; anything else is refused', () => {
    expect(loadConfig({ GRANARY_HOME: home }).trustProxy).toBe(false);
    expect(loadConfig({ GRANARY_HOME: home, GRANARY_TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({ GRANARY_HOME: home, GRANARY_TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ GRANARY_HOME: home, GRANARY_TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' }).trustProxy).toBe(
      '10.0.0.0/8, 127.0.0.1',
    );
    expect(() => loadConfig({ GRANARY_HOME: home, GRANARY_TRUST_PROXY: 'everyone' })).toThrow(
      /^GRANARY_TRUST_PROXY: /,
    );
  });

  it('GRANARY_FLAVOUR, GRANARY_LICENSE, GRANARY_LICENSE_PUBLIC_KEYS: defaults off/builtin/none; bad values name the setting', () => {
    const d = loadConfig({ GRANARY_HOME: home });
    expect(d.flavour).toEqual({
      cloud: false,
      trial: false,
      freeTier: false,
      lightweight: false,
      registryOnly: false,
    });
    expect(d.license).toBe('builtin');
    expect(d.licensePublicKeys).toEqual([]);
    expect(loadConfig({ GRANARY_HOME: home, GRANARY_FLAVOUR: 'cloud, lightweight' }).flavour).toMatchObject({
      cloud: true,
      lightweight: true,
      trial: false,
    });
    expect(() => loadConfig({ GRANARY_HOME: home, GRANARY_FLAVOUR: 'moon' })).toThrow(
      /^GRANARY_FLAVOUR: unknown flavour moon/,
    );
    expect(loadConfig({ GRANARY_HOME: home, GRANARY_LICENSE: 'none' }).license).toBe('none');
    expect(() => loadConfig({ GRANARY_HOME: home, GRANARY_LICENSE: 'free' })).toThrow(/^GRANARY_LICENSE: /);
    const raw = Buffer.alloc(32, 7).toString('base64');
    expect(
      loadConfig({ GRANARY_HOME: home, GRANARY_LICENSE_PUBLIC_KEYS: `${raw}, ${raw}` }).licensePublicKeys,
    ).toEqual([raw, raw]);
    expect(() => loadConfig({ GRANARY_HOME: home, GRANARY_LICENSE_PUBLIC_KEYS: 'abc' })).toThrow(
      /^GRANARY_LICENSE_PUBLIC_KEYS: /,
    );
  });

  it('a bad or unknown key in config.yaml is named with the file', async () => {
    await writeFile(path.join(home, 'config.yaml'), 'port: nope\n');
    expect(() => loadConfig({ GRANARY_HOME: home })).toThrow(/^config\.yaml port: /);
    await writeFile(path.join(home, 'config.yaml'), 'prot: 8080\n');
    expect(() => loadConfig({ GRANARY_HOME: home })).toThrow(/config\.yaml prot: unknown setting/);
  });

  it('the password and database URL are never echoed in the error', () => {
    expect(() => loadConfig({ GRANARY_HOME: home, GRANARY_DATABASE_URL: 'postgres:secretpw' })).toThrow(
      /^GRANARY_DATABASE_URL: (?!.*secretpw)/,
    );
  });

  it('the server process stops at start with a non-zero exit and a message naming GRANARY_PORT', () => {
    const main = path.join(import.meta.dirname, '..', 'main.ts');
    const result = spawnSync(process.execPath, ['--import', 'tsx', main], {
      env: { ...process.env, GRANARY_HOME: home, GRANARY_PORT: 'abc' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('GRANARY_PORT');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });
});
