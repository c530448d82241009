import { z } from 'zod';

/**
 * Issue 21 "Cleanup and retention policies" and the archive (spec 001 §2 cold storage, §4 retention
 * feature flag, §7 `GET bundle retention config enable`, §8 'Cannot download expired artifact').
 */

/** spec 001 §8: what a client asking for an archived file's path hears. */
export const EXPIRED_ARTIFACT_MESSAGE = 'Cannot download expired artifact';
/** spec 001 §8: the console's info notification when the retention feature status cannot be read. */
export const RETENTION_STATUS_FAILURE =
  'There was an error while trying to fetch retention feature status: {message}';
/** spec 001 §9: the console asks for the retention feature status at most this many times. */
export const RETENTION_STATUS_MAX_ATTEMPTS = 3;

const days = z.number().int().min(0).max(36_500);
const count = z.number().int().min(0).max(100_000);

/**
 * What a policy removes. A package version is a candidate when every age rule set holds (created more than
 * `olderThanDays` ago; not downloaded — or, never downloaded, not created — for `notDownloadedDays`) and it
 * is not one of its package's `keepLastVersions` newest; with no age rule, everything past the newest
 * `keepLastVersions` is a candidate. Maven snapshots and OCI images have rules of their own (builds of a
 * snapshot version, tags by push time, untagged manifests). Whatever a keep rule names is never removed.
 */
export const retentionRulesSchema = z.object({
  keepLastVersions: count.nullable().default(null),
  notDownloadedDays: days.nullable().default(null),
  olderThanDays: days.nullable().default(null),
  /** Ant-style path patterns (`**\/*-rc*`, `libs/**`): files or folders they match are kept. */
  keepPatterns: z.array(z.string().min(1).max(500)).max(100).default([]),
  /** Properties (`key` or `key=value`) that keep a file that carries them. */
  keepProperties: z.array(z.string().min(1).max(500)).max(100).default([]),
  /** Keep anything a build or a release bundle references (by checksum). */
  keepReferenced: z.boolean().default(true),
  /** Maven: builds (timestamp-buildNumber) kept per snapshot version, the newest. */
  mavenSnapshotKeep: count.nullable().default(null),
  /** OCI: tags kept per image, the newest pushed. */
  ociKeepTags: count.nullable().default(null),
  /** OCI: manifests no tag names, removed once older than this. */
  ociUntaggedDays: days.nullable().default(null),
});
export type RetentionRules = z.infer<typeof retentionRulesSchema>;

export const RETENTION_ACTIONS = ['delete', 'archive'] as const;
export type RetentionAction = (typeof RETENTION_ACTIONS)[number];

export const retentionPolicyInputSchema = z.object({
  name: z.string().regex(/^[A-Za-z][A-Za-z0-9_-]{1,63}$/, 'Name cannot contain special characters'),
  description: z.string().max(1000).default(''),
  enabled: z.boolean().default(true),
  /** Repository keys the policy applies to; empty with a project key: that project's repositories. */
  repositories: z.array(z.string().min(1).max(200)).max(500).default([]),
  projectKey: z.string().max(128).nullable().default(null),
  rules: retentionRulesSchema,
  /** delete: through the trash; archive: to the archive store (cold storage). */
  action: z.enum(RETENTION_ACTIONS).default('delete'),
  /** Runs every this many hours in the background; null: only when run by hand. */
  intervalHours: z
    .number()
    .int()
    .min(1)
    .max(24 * 365)
    .nullable()
    .default(null),
});
export type RetentionPolicyInput = z.input<typeof retentionPolicyInputSchema>;

export const retentionRunResultSchema = z.object({
  dryRun: z.boolean(),
  candidates: z.number().int(),
  bytes: z.number(),
  /** units removed (deleted or archived) */
  done: z.number().int(),
  failed: z.number().int(),
  at: z.string(),
});
export type RetentionRunResult = z.infer<typeof retentionRunResultSchema>;

export const retentionPolicySchema = retentionPolicyInputSchema.extend({
  id: z.string(),
  createdAt: z.string(),
  modifiedAt: z.string(),
  lastRunAt: z.string().nullable(),
  nextRunAt: z.string().nullable(),
  lastResult: retentionRunResultSchema.nullable(),
});
export type RetentionPolicy = z.infer<typeof retentionPolicySchema>;
export const retentionPoliciesSchema = z.object({ policies: z.array(retentionPolicySchema) });

export const RETENTION_CANDIDATE_KINDS = ['version', 'snapshot-build', 'tag', 'untagged'] as const;

/** One thing a policy would remove: a version, a snapshot build, an OCI tag or an untagged manifest. */
export const retentionCandidateSchema = z.object({
  repoKey: z.string(),
  kind: z.enum(RETENTION_CANDIDATE_KINDS),
  /** package name and version (or image and tag, or snapshot version and build) when known */
  name: z.string(),
  version: z.string(),
  /** the paths removed (a folder, or files) */
  paths: z.array(z.string()),
  files: z.number().int(),
  bytes: z.number(),
  reason: z.string(),
});
export type RetentionCandidate = z.infer<typeof retentionCandidateSchema>;

export const retentionDryRunSchema = z.object({
  candidates: z.array(retentionCandidateSchema),
  count: z.number().int(),
  bytes: z.number(),
  /** the list is cut at 1,000; count and bytes are whole */
  truncated: z.boolean(),
});
export type RetentionDryRun = z.infer<typeof retentionDryRunSchema>;

/** An archived file (cold storage): gone from client views, found by the Archive search, restorable. */
export const archivedArtifactSchema = z.object({
  id: z.string(),
  repoKey: z.string(),
  path: z.string(),
  name: z.string(),
  size: z.number(),
  sha256: z.string(),
  archivedAt: z.string(),
  archivedBy: z.string(),
  createdAt: z.string(),
  policy: z.string().nullable(),
});
export type ArchivedArtifact = z.infer<typeof archivedArtifactSchema>;

export const archiveSearchQuerySchema = z.object({
  /** name or path substring, `*` and `?` wildcards */
  q: z.string().max(500).optional(),
  repo: z.string().max(200).optional(),
  /** archived on or after / before (yyyy-mm-dd or ISO) */
  from: z.string().max(40).optional(),
  to: z.string().max(40).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(200),
});
export const archiveSearchAnswerSchema = z.object({
  results: z.array(archivedArtifactSchema),
  total: z.number().int(),
});
export type ArchiveSearchAnswer = z.infer<typeof archiveSearchAnswerSchema>;

export const archiveRestoreRequestSchema = z.object({ ids: z.array(z.string()).min(1).max(1000) });
export const archiveRestoreAnswerSchema = z.object({
  restored: z.array(z.object({ id: z.string(), repoKey: z.string(), path: z.string() })),
  errors: z.array(z.object({ id: z.string(), message: z.string() })),
});
export type ArchiveRestoreAnswer = z.infer<typeof archiveRestoreAnswerSchema>;

/** spec 001 §7 `GET bundle retention config enable` (response `enable`). */
export const retentionEnableSchema = z.object({ enable: z.boolean() });

/** Artifactory's storage-info statistics (`GET /api/storage/{repo}/{path}?stats`). */
export const downloadStatsSchema = z.object({
  uri: z.string(),
  downloadCount: z.number().int(),
  /** epoch ms; 0 when never downloaded */
  lastDownloaded: z.number(),
  lastDownloadedBy: z.string().optional(),
  remoteDownloadCount: z.number().int(),
  remoteLastDownloaded: z.number(),
});
export type DownloadStats = z.infer<typeof downloadStatsSchema>;
