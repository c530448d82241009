import {
  bigint,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * Signing keys (issue 19): GPG key pairs generated here (openpgp) or imported. The private key, as an
 * armored key without passphrase protection, is sealed by platform/secrets (`private_key_sealed`);
 * it is never answered by any API.
 */
export const signingKeys = pgTable('signing_keys', {
  name: text('name').primaryKey(),
  alias: text('alias').notNull(),
  keyId: text('key_id').notNull(),
  fingerprint: text('fingerprint').notNull(),
  algorithm: text('algorithm').notNull(),
  userId: text('user_id').notNull(),
  publicKey: text('public_key').notNull(),
  privateKeySealed: text('private_key_sealed').notNull(),
  createdBy: text('created_by').notNull(),
  createdAt: at('created_at').notNull().defaultNow(),
});

/** Public keys whose signatures this instance accepts on bundles it receives (Artifactory's trusted keys). */
export const trustedKeys = pgTable('trusted_keys', {
  kid: text('kid').primaryKey(),
  alias: text('alias').notNull().unique(),
  fingerprint: text('fingerprint').notNull(),
  publicKey: text('public_key').notNull(),
  issuedBy: text('issued_by').notNull(),
  issuedAt: at('issued_at').notNull().defaultNow(),
});

/**
 * Release bundles v2: immutable once made. `manifest` is the canonical JSON that `signature`
 * (detached, armored) signs; its files are kept by checksum in `release_bundle_files` (the hidden
 * `release-bundles-v2` repository's content), so a source artifact deleted later does not break it.
 */
export const releaseBundles = pgTable(
  'release_bundles',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    name: text('name').notNull(),
    version: text('version').notNull(),
    status: text('status').notNull().default('COMPLETED'),
    /** local | received */
    origin: text('origin').notNull().default('local'),
    sourceType: text('source_type').notNull(),
    manifest: text('manifest').notNull(),
    manifestSha256: text('manifest_sha256').notNull(),
    signature: text('signature').notNull(),
    keyName: text('key_name'),
    keyId: text('key_id').notNull(),
    fingerprint: text('fingerprint').notNull(),
    fileCount: integer('file_count').notNull(),
    totalSize: bigint('total_size', { mode: 'number' }).notNull(),
    createdBy: text('created_by').notNull(),
    createdAt: at('created_at').notNull().defaultNow(),
  },
  (t) => [uniqueIndex('release_bundles_name_version_idx').on(t.name, t.version)],
);

export const releaseBundleFiles = pgTable(
  'release_bundle_files',
  {
    bundleId: uuid('bundle_id')
      .notNull()
      .references(() => releaseBundles.id, { onDelete: 'cascade' }),
    repoKey: text('repo_key').notNull(),
    path: text('path').notNull(),
    sha256: text('sha256').notNull(),
    sha1: text('sha1').notNull(),
    md5: text('md5').notNull(),
    size: bigint('size', { mode: 'number' }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.bundleId, t.repoKey, t.path] }),
    index('release_bundle_files_sha256_idx').on(t.sha256),
  ],
);

/** Admin-defined environments, ordered by rank (DEV < QA < PROD), each with its repositories. */
export const releaseEnvironments = pgTable('release_environments', {
  name: text('name').primaryKey(),
  rank: integer('rank').notNull(),
  repositories: jsonb('repositories').$type<string[]>().notNull().default([]),
  createdAt: at('created_at').notNull().defaultNow(),
});

export const releaseBundlePromotions = pgTable(
  'release_bundle_promotions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    bundleId: uuid('bundle_id')
      .notNull()
      .references(() => releaseBundles.id, { onDelete: 'cascade' }),
    environment: text('environment').notNull(),
    status: text('status').notNull(),
    operation: text('operation').notNull(),
    repositories: jsonb('repositories').$type<string[]>().notNull().default([]),
    messages: jsonb('messages').$type<{ text: string }[]>().notNull().default([]),
    createdBy: text('created_by').notNull(),
    createdAt: at('created_at').notNull().defaultNow(),
  },
  (t) => [index('release_bundle_promotions_bundle_idx').on(t.bundleId)],
);

/** Other Granary instances bundles are distributed to; the access token is sealed. */
export const distributionTargets = pgTable('distribution_targets', {
  name: text('name').primaryKey(),
  url: text('url').notNull(),
  tokenSealed: text('token_sealed').notNull(),
  tokenLast4: text('token_last4').notNull(),
  createdAt: at('created_at').notNull().defaultNow(),
});

/**
 * One distribution of a bundle (a tracker) and its targets. The targets pull the files with a token of
 * this distribution only (`pull_token_sha256`: its hash; the token itself is handed to the targets).
 */
export const distributions = pgTable('distributions', {
  id: uuid('id').primaryKey().defaultRandom(),
  bundleId: uuid('bundle_id')
    .notNull()
    .references(() => releaseBundles.id, { onDelete: 'cascade' }),
  pullTokenSha256: text('pull_token_sha256').notNull(),
  /** The pull token, sealed, for retries (a target asked again gets the same token). */
  pullTokenSealed: text('pull_token_sealed').notNull(),
  pullBase: text('pull_base').notNull(),
  distributedBy: text('distributed_by').notNull(),
  createdAt: at('created_at').notNull().defaultNow(),
});

export const distributionTargetStatuses = pgTable(
  'distribution_target_statuses',
  {
    distributionId: uuid('distribution_id')
      .notNull()
      .references(() => distributions.id, { onDelete: 'cascade' }),
    target: text('target').notNull(),
    /** IN_PROGRESS | COMPLETED | FAILED */
    status: text('status').notNull(),
    reason: text('reason'),
    /** The id of the transfer on the target, once it accepted it. */
    remoteId: text('remote_id'),
    filesDone: integer('files_done').notNull().default(0),
    filesTotal: integer('files_total').notNull().default(0),
    attempts: integer('attempts').notNull().default(0),
    /** The completed/failed event was published. */
    announced: boolean('announced').notNull().default(false),
    updatedAt: at('updated_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.distributionId, t.target] }), index('dts_status_idx').on(t.status)],
);

/** Target side: a bundle being received (pulled, verified) from a source; visible only once COMPLETED. */
export const receivedBundles = pgTable(
  'received_bundles',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    name: text('name').notNull(),
    version: text('version').notNull(),
    manifest: text('manifest').notNull(),
    manifestSha256: text('manifest_sha256').notNull(),
    signature: text('signature').notNull(),
    keyId: text('key_id').notNull(),
    pullBase: text('pull_base').notNull(),
    pullTokenSealed: text('pull_token_sealed').notNull(),
    sourceId: text('source_id'),
    status: text('status').notNull(),
    reason: text('reason'),
    filesDone: integer('files_done').notNull().default(0),
    filesTotal: integer('files_total').notNull(),
    /** Files pulled and verified so far, by sha256 (a restart pulls only the others): their SHA-1 and MD5. */
    pulled: jsonb('pulled').$type<Record<string, { sha1: string; md5: string }>>().notNull().default({}),
    receivedBy: text('received_by').notNull(),
    createdAt: at('created_at').notNull().defaultNow(),
    updatedAt: at('updated_at').notNull().defaultNow(),
  },
  (t) => [index('received_bundles_name_version_idx').on(t.name, t.version)],
);
