import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { FLAVOUR_FLAGS, type Flavour } from '@granary/contracts';
import { z } from 'zod';
import { parseAllowlist } from '../platform/outbound/address-policy.ts';

/**
 * Every setting of the runtime contract (DESIGN.md), read from the environment and
 * `$GRANARY_HOME/config.yaml`; the environment wins. Parsed once at start by one zod schema.
 */
const SETTINGS = {
  home: { env: 'GRANARY_HOME', yaml: null },
  port: { env: 'GRANARY_PORT', yaml: 'port' },
  host: { env: 'GRANARY_HOST', yaml: 'host' },
  databaseUrl: { env: 'GRANARY_DATABASE_URL', yaml: 'databaseUrl' },
  databaseTimeoutMs: { env: 'GRANARY_DATABASE_TIMEOUT_MS', yaml: 'databaseTimeoutMs' },
  blobstoreUrl: { env: 'GRANARY_BLOBSTORE_URL', yaml: 'blobstoreUrl' },
  archiveStore: { env: 'GRANARY_ARCHIVE_STORE', yaml: 'archiveStore' },
  adminPassword: { env: 'GRANARY_ADMIN_PASSWORD', yaml: 'adminPassword' },
  baseUrl: { env: 'GRANARY_BASE_URL', yaml: 'baseUrl' },
  nodeUrl: { env: 'GRANARY_NODE_URL', yaml: 'nodeUrl' },
  outboundAllowlist: { env: 'GRANARY_OUTBOUND_ALLOWLIST', yaml: 'outboundAllowlist' },
  outboundProxy: { env: 'GRANARY_OUTBOUND_PROXY', yaml: 'outboundProxy' },
  masterKey: { env: 'GRANARY_MASTER_KEY', yaml: 'masterKey' },
  masterKeyPrevious: { env: 'GRANARY_MASTER_KEY_PREVIOUS', yaml: 'masterKeyPrevious' },
  logLevel: { env: 'GRANARY_LOG_LEVEL', yaml: 'logLevel' },
  logMaxBytes: { env: 'GRANARY_LOG_MAX_BYTES', yaml: 'logMaxBytes' },
  logMaxFiles: { env: 'GRANARY_LOG_MAX_FILES', yaml: 'logMaxFiles' },
  logStdout: { env: 'GRANARY_LOG_STDOUT', yaml: 'logStdout' },
  bodyLimitBytes: { env: 'GRANARY_BODY_LIMIT_BYTES', yaml: 'bodyLimitBytes' },
  npmPublishMaxBytes: { env: 'GRANARY_NPM_PUBLISH_MAX_BYTES', yaml: 'npmPublishMaxBytes' },
  blobCacheBytes: { env: 'GRANARY_BLOB_CACHE_BYTES', yaml: 'blobCacheBytes' },
  ociGcIntervalSecs: { env: 'GRANARY_OCI_GC_INTERVAL_SECS', yaml: 'ociGcIntervalSecs' },
  ociGcGraceSecs: { env: 'GRANARY_OCI_GC_GRACE_SECS', yaml: 'ociGcGraceSecs' },
  ociUploadExpirySecs: { env: 'GRANARY_OCI_UPLOAD_EXPIRY_SECS', yaml: 'ociUploadExpirySecs' },
  blobGcIntervalSecs: { env: 'GRANARY_BLOB_GC_INTERVAL_SECS', yaml: 'blobGcIntervalSecs' },
  blobGcGraceSecs: { env: 'GRANARY_BLOB_GC_GRACE_SECS', yaml: 'blobGcGraceSecs' },
  minUploadRateBytesPerSec: {
    env: 'GRANARY_MIN_UPLOAD_RATE_BYTES_PER_SEC',
    yaml: 'minUploadRateBytesPerSec',
  },
  minUploadRateWindowSecs: { env: 'GRANARY_MIN_UPLOAD_RATE_WINDOW_SECS', yaml: 'minUploadRateWindowSecs' },
  maxUploadsPerAddress: { env: 'GRANARY_MAX_UPLOADS_PER_ADDRESS', yaml: 'maxUploadsPerAddress' },
  scrubIntervalSecs: { env: 'GRANARY_SCRUB_INTERVAL_SECS', yaml: 'scrubIntervalSecs' },
  trashRetentionDays: { env: 'GRANARY_TRASH_RETENTION_DAYS', yaml: 'trashRetentionDays' },
  scrubRateBytesPerSec: { env: 'GRANARY_SCRUB_RATE_BYTES_PER_SEC', yaml: 'scrubRateBytesPerSec' },
  distributionPullRateBytesPerSec: {
    env: 'GRANARY_DISTRIBUTION_PULL_RATE_BYTES_PER_SEC',
    yaml: 'distributionPullRateBytesPerSec',
  },
  shutdownTimeoutMs: { env: 'GRANARY_SHUTDOWN_TIMEOUT_MS', yaml: 'shutdownTimeoutMs' },
  consoleDir: { env: 'GRANARY_CONSOLE_DIR', yaml: 'consoleDir' },
  trustProxy: { env: 'GRANARY_TRUST_PROXY', yaml: 'trustProxy' },
  flavour: { env: 'GRANARY_FLAVOUR', yaml: 'flavour' },
  license: { env: 'GRANARY_LICENSE', yaml: 'license' },
  licensePublicKeys: { env: 'GRANARY_LICENSE_PUBLIC_KEYS', yaml: 'licensePublicKeys' },
  onboardingUpstreams: { env: 'GRANARY_ONBOARDING_UPSTREAMS', yaml: 'onboardingUpstreams' },
  onboardingTrialContent: { env: 'GRANARY_ONBOARDING_TRIAL_CONTENT', yaml: 'onboardingTrialContent' },
} as const satisfies Record<string, { env: string; yaml: string | null }>;

type SettingKey = keyof typeof SETTINGS;

const boolean = z.union([
  z.boolean(),
  z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1'),
]);
const integer = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const httpUrl = z.url({ protocol: /^https?$/ }).transform((v) => v.replace(/\/+$/, ''));

export const configSchema = z.object({
  home: z.string().min(1),
  port: integer(0, 65535).default(8080),
  host: z.string().min(1).default('0.0.0.0'),
  databaseUrl: z
    .string()
    .regex(/^postgres(ql)?:\/\/.+/, 'expected postgres://user:password@host:port/database')
    .optional(),
  /**
   * PostgreSQL: the longest wait for a pooled connection, a new connection or one statement's answer;
   * past it the request answers 503 with Retry-After (the database is unreachable or stuck).
   */
  databaseTimeoutMs: integer(100, 600_000).default(5000),
  blobstoreUrl: z
    .string()
    .regex(/^s3:\/\/[^/?]+/, 'expected s3://bucket?endpoint=…&region=…')
    .optional(),
  /** Issue 21 archive (cold storage): an absolute filesystem path or `s3://bucket?…` like `blobstoreUrl`. */
  archiveStore: z
    .string()
    .regex(/^(s3:\/\/[^/?]+|\/)/, 'expected an absolute path or s3://bucket?endpoint=…&region=…')
    .optional(),
  adminPassword: z.string().min(1).optional(),
  baseUrl: httpUrl.optional(),
  /**
   * The URL other nodes reach this one at (issue 15: the log viewer reads another node's files there).
   * Unset: `http://<host name>:<port>`. Not the public base URL, which points at the load balancer.
   */
  nodeUrl: httpUrl.optional(),
  outboundAllowlist: z
    .string()
    .default('')
    .transform((v, ctx) => {
      try {
        return parseAllowlist(v);
      } catch (err) {
        ctx.addIssue({
          code: 'custom',
          message: (err as Error).message.replace(/^GRANARY_OUTBOUND_ALLOWLIST:?\s*/, ''),
        });
        return z.NEVER;
      }
    }),
  outboundProxy: httpUrl.optional(),
  /**
   * The key that wraps every stored secret's data key (platform/secrets): base64 of 32 bytes. Unset:
   * `$GRANARY_HOME/security/master.key`, created on the first start. Nodes sharing a database share it.
   */
  masterKey: z
    .string()
    .refine((v) => Buffer.from(v.trim(), 'base64').length === 32, 'expected a base64-encoded 32-byte key')
    .optional(),
  /** Earlier master keys (comma-separated base64), still accepted to open secrets while they are re-wrapped. */
  masterKeyPrevious: z
    .string()
    .refine(
      (v) => v.split(',').every((k) => !k.trim() || Buffer.from(k.trim(), 'base64').length === 32),
      'expected comma-separated base64-encoded 32-byte keys',
    )
    .optional(),
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  logMaxBytes: integer(1024, 2 ** 40).default(50 * 1024 * 1024),
  logMaxFiles: integer(1, 1000).default(10),
  logStdout: boolean.default(true),
  bodyLimitBytes: integer(1024, 2 ** 40).default(10 * 1024 * 1024),
  /** Largest `npm publish` document (the tarball travels in it, base64): refused with 413 before it is buffered. */
  npmPublishMaxBytes: integer(1024, 2 ** 40).default(128 * 1024 * 1024),
  /** Memory for the most-read small blobs (each ≤ 4 MiB), served without a disk or S3 read; 0 turns it off. */
  blobCacheBytes: integer(0, 2 ** 40).default(128 * 1024 * 1024),
  /** OCI garbage collection: how often it runs, and how old an unreferenced blob must be to go. */
  ociGcIntervalSecs: integer(60, 30 * 24 * 3600).default(6 * 3600),
  ociGcGraceSecs: integer(0, 30 * 24 * 3600).default(3600),
  /** An OCI blob upload idle this long is dropped with its bytes (`oci.uploads-expire`). */
  ociUploadExpirySecs: integer(1, 30 * 24 * 3600).default(24 * 3600),
  /** Blob garbage collection (issue 21): how often it runs, and how long a blob nothing holds is kept before its bytes go. */
  blobGcIntervalSecs: integer(10, 7 * 24 * 3600).default(300),
  blobGcGraceSecs: integer(0, 30 * 24 * 3600).default(3600),
  /**
   * Slow clients (issue 12 §15): a request body arriving slower than this on average over the window
   * is cut (0 turns it off); at most this many uploads at once from one address (0: no cap), beyond → 429.
   */
  minUploadRateBytesPerSec: integer(0, 2 ** 40).default(1024),
  minUploadRateWindowSecs: integer(1, 3600).default(60),
  maxUploadsPerAddress: integer(0, 1_000_000).default(64),
  /** The trash can (issue 21): days a deleted file is kept where its repository names no retention of its own. */
  trashRetentionDays: integer(1, 3650).default(14),
  /** The blob scrub (re-hashes every stored blob to find damage): how often a pass starts, and its read rate. */
  scrubIntervalSecs: integer(60, 365 * 24 * 3600).default(7 * 24 * 3600),
  scrubRateBytesPerSec: integer(1024, 2 ** 40).default(32 * 1024 * 1024),
  /** Release bundle distribution (issue 19): the most a target pulls per second from a source; 0: no cap. */
  distributionPullRateBytesPerSec: integer(0, 2 ** 40).default(0),
  shutdownTimeoutMs: integer(0, 600_000).default(30_000),
  consoleDir: z.string().optional(),
  /** Quick setup (issue 17): the upstream of each quick remote, `npm=https://…,docker=https://…`; unset: the public registries. */
  onboardingUpstreams: z.string().optional(),
  /** Quick setup's trial packages in the local repository: `auto` (when the upstream does not answer), `always`, `never`. */
  onboardingTrialContent: z.enum(['auto', 'always', 'never']).default('auto'),
  /**
   * Which reverse proxies to believe for X-Forwarded-For/-Proto (client address, HTTPS and so the
   * Secure cookie flag): `false` (default), `true` (any), a hop count, or comma-separated IPs/CIDRs.
   */
  trustProxy: z
    .union([z.boolean(), z.number(), z.string()])
    .default(false)
    .transform((v, ctx): boolean | number | string => {
      if (typeof v !== 'string') return v;
      const t = v.trim();
      if (t === '' || t === 'false') return false;
      if (t === 'true') return true;
      if (/^\d+$/.test(t)) return Number(t);
      if (!/^[0-9a-fA-F.:/,\s]+$/.test(t)) {
        ctx.addIssue({
          code: 'custom',
          message: 'expected true, false, a hop count or comma-separated IPs/CIDRs',
        });
        return z.NEVER;
      }
      return t;
    }),
  /** Instance flavour for the console's menu rules: comma-separated `cloud,trial,freeTier,lightweight,registryOnly`. */
  flavour: z
    .string()
    .default('')
    .transform((v, ctx): Flavour => {
      const out = Object.fromEntries(FLAVOUR_FLAGS.map((f) => [f, false])) as Flavour;
      for (const name of v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)) {
        if (!(FLAVOUR_FLAGS as readonly string[]).includes(name)) {
          ctx.addIssue({
            code: 'custom',
            message: `unknown flavour ${name}; expected ${FLAVOUR_FLAGS.join(', ')}`,
          });
          return z.NEVER;
        }
        out[name as keyof Flavour] = true;
      }
      return out;
    }),
  /** `builtin` (default): the stored licence, else the built-in one; `none`: no licence (type N/A). */
  license: z.enum(['builtin', 'none']).default('builtin'),
  /** Extra trusted Ed25519 licence public keys: comma-separated base64 (raw 32 bytes or SPKI DER). */
  licensePublicKeys: z
    .string()
    .default('')
    .transform((v, ctx): string[] => {
      const keys = v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      for (const key of keys) {
        const bytes = Buffer.from(key, 'base64');
        if (bytes.length !== 32 && bytes.length !== 44) {
          ctx.addIssue({
            code: 'custom',
            message: 'expected base64 Ed25519 public keys (raw 32 bytes or SPKI DER)',
          });
          return z.NEVER;
        }
      }
      return keys;
    }),
});

export type Config = z.infer<typeof configSchema>;
export type ConfigInput = z.input<typeof configSchema>;

/** A bad setting: its message is one line naming the setting, e.g. `GRANARY_PORT: …`. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/**
 * Reads the configuration: `GRANARY_HOME` from the environment (default `./.granary`), then
 * `$GRANARY_HOME/config.yaml` if present, then the environment over it.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): Config {
  const home = path.resolve(cwd, env.GRANARY_HOME || '.granary');
  const raw: Record<string, unknown> = { home };
  const source: Partial<Record<SettingKey, string>> = { home: 'GRANARY_HOME' };

  const yamlFile = path.join(home, 'config.yaml');
  if (existsSync(yamlFile)) {
    let doc: unknown;
    try {
      // yaml is loaded only when there is a file to read (issue 24, idle memory).
      const { parse } = createRequire(import.meta.url)('yaml') as typeof import('yaml');
      doc = parse(readFileSync(yamlFile, 'utf8'));
    } catch (err) {
      throw new ConfigError(`${yamlFile}: not valid YAML (${(err as Error).message.split('\n')[0]})`);
    }
    if (doc != null && (typeof doc !== 'object' || Array.isArray(doc))) {
      throw new ConfigError(`${yamlFile}: expected a mapping of settings`);
    }
    const known = new Map(
      Object.entries(SETTINGS)
        .filter(([, s]) => s.yaml)
        .map(([k, s]) => [s.yaml as string, k as SettingKey]),
    );
    for (const [name, value] of Object.entries((doc ?? {}) as Record<string, unknown>)) {
      const key = known.get(name);
      if (!key) throw new ConfigError(`config.yaml ${name}: unknown setting`);
      raw[key] = Array.isArray(value) ? value.join(',') : value;
      source[key] = `config.yaml ${name}`;
    }
  }

  for (const [key, setting] of Object.entries(SETTINGS) as [SettingKey, (typeof SETTINGS)[SettingKey]][]) {
    const value = env[setting.env];
    if (key !== 'home' && value !== undefined && value !== '') {
      raw[key] = value;
      source[key] = setting.env;
    }
  }
  return parseConfig(raw, source);
}

/** Validates already-gathered settings (tests build configs with this). */
export function parseConfig(
  raw: ConfigInput | Record<string, unknown>,
  source: Partial<Record<SettingKey, string>> = {},
) {
  const result = configSchema.safeParse(raw);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const key = String(issue.path[0] ?? 'home') as SettingKey;
  const name = source[key] ?? SETTINGS[key]?.env ?? key;
  const given = (raw as Record<string, unknown>)[key];
  const shown =
    key === 'adminPassword' || key === 'databaseUrl' || key === 'masterKey' || key === 'masterKeyPrevious'
      ? ''
      : ` (got ${JSON.stringify(given)})`;
  throw new ConfigError(`${name}: ${issue.message}${shown}`);
}
