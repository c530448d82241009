import { PROJECT_KEY_MAX_LENGTH } from '@granary/contracts';
import { z } from 'zod';

/**
 * Request and response shapes of the repositories REST API (DESIGN.md "Public REST API").
 * They belong in `packages/contracts` once the console uses them; kept here while only the server does.
 */

export const REPOSITORY_KEY_MAX_LENGTH = 64;
/** Letters, digits, `.`, `_`, `-`; starts with a letter or digit; no `..`. */
export const REPOSITORY_KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
/** Remote repositories' caches are addressed as `{key}-cache`, so no key may end so. */
export const CACHE_SUFFIX = '-cache';
export const DEFAULT_REPOSITORY_KEY = 'generic-local';

export const repositoryKeySchema = z
  .string()
  .min(1, 'Repository key is required')
  .max(REPOSITORY_KEY_MAX_LENGTH, `Repository key must be at most ${REPOSITORY_KEY_MAX_LENGTH} characters`)
  .regex(
    REPOSITORY_KEY_PATTERN,
    'Repository key may contain only letters, digits, ".", "_" and "-", and must start with a letter or digit',
  )
  .refine((k) => !k.includes('..'), 'Repository key must not contain ".."')
  .refine(
    (k) => !k.toLowerCase().endsWith(CACHE_SUFFIX),
    `Repository key must not end with "${CACHE_SUFFIX}"`,
  );

export const repositoryClassSchema = z.enum(['local', 'remote', 'virtual']);

const seconds = z
  .number()
  .int()
  .min(0)
  .max(10 * 365 * 24 * 3600);

/** Body of PUT (create) and POST (update): every field optional on update; unknown fields refused. */
export const repositoryWriteSchema = z.strictObject({
  key: z.string().optional(),
  rclass: repositoryClassSchema.optional(),
  packageType: z.string().min(1).optional(),
  description: z.string().max(2000).optional(),
  notes: z.string().max(20000).optional(),
  includesPattern: z.string().max(4000).optional(),
  excludesPattern: z.string().max(4000).optional(),
  projectKey: z.string().max(PROJECT_KEY_MAX_LENGTH).nullable().optional(),
  // remote
  url: z.string().max(2000).optional(),
  username: z.string().max(256).optional(),
  password: z.string().max(1024).optional(),
  proxy: z.string().max(256).optional(),
  offline: z.boolean().optional(),
  retrievalCachePeriodSecs: seconds.optional(),
  missedRetrievalCachePeriodSecs: seconds.optional(),
  storeArtifactsLocally: z.boolean().optional(),
  // virtual
  repositories: z.array(z.string()).max(500).optional(),
  defaultDeploymentRepo: z.string().nullable().optional(),
  // maven
  handleReleases: z.boolean().optional(),
  handleSnapshots: z.boolean().optional(),
});
export type RepositoryWrite = z.infer<typeof repositoryWriteSchema>;

/** GET answer; the remote password is never part of it. */
export const repositorySchema = z.object({
  key: z.string(),
  rclass: repositoryClassSchema,
  packageType: z.string(),
  description: z.string(),
  notes: z.string(),
  includesPattern: z.string(),
  excludesPattern: z.string(),
  projectKey: z.string().nullable(),
  url: z.string().optional(),
  username: z.string().optional(),
  proxy: z.string().optional(),
  offline: z.boolean().optional(),
  retrievalCachePeriodSecs: z.number().optional(),
  missedRetrievalCachePeriodSecs: z.number().optional(),
  storeArtifactsLocally: z.boolean().optional(),
  repositories: z.array(z.string()).optional(),
  defaultDeploymentRepo: z.string().nullable().optional(),
  handleReleases: z.boolean().optional(),
  handleSnapshots: z.boolean().optional(),
});
export type Repository = z.infer<typeof repositorySchema>;

export const repositoryListItemSchema = z.object({
  key: z.string(),
  /** `LOCAL`, `REMOTE` or `VIRTUAL`, as Artifactory answers. */
  type: z.string(),
  packageType: z.string(),
  url: z.string(),
  description: z.string(),
});

export const repositoryListQuerySchema = z.object({
  type: z
    .string()
    .transform((s) => s.toLowerCase())
    .pipe(repositoryClassSchema)
    .optional(),
  packageType: z.string().optional(),
});

export const checksumsSchema = z.object({ sha1: z.string(), md5: z.string(), sha256: z.string() });

/** `GET /api/storage/{key}/{path}` */
export const storageInfoSchema = z.object({
  repo: z.string(),
  path: z.string(),
  created: z.string(),
  createdBy: z.string(),
  lastModified: z.string(),
  modifiedBy: z.string().optional(),
  lastUpdated: z.string().optional(),
  size: z.string().optional(),
  mimeType: z.string().optional(),
  checksums: checksumsSchema.optional(),
  originalChecksums: checksumsSchema.optional(),
  downloadUri: z.string().optional(),
  children: z.array(z.object({ uri: z.string(), folder: z.boolean() })).optional(),
  uri: z.string(),
});
export type StorageInfo = z.infer<typeof storageInfoSchema>;
