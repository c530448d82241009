import { z } from 'zod';
import { PROJECT_KEY_MAX_LENGTH } from './constants.ts';

/**
 * Request and response shapes of the repositories REST API (DESIGN.md "Public REST API"), the storage API and
 * the console calls of the tree browser, shared by the server and the console.
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
  /** Artifactory's `disableProxy`: go direct, even when a default proxy is configured. */
  disableProxy: z.boolean().optional(),
  offline: z.boolean().optional(),
  retrievalCachePeriodSecs: seconds.optional(),
  missedRetrievalCachePeriodSecs: seconds.optional(),
  storeArtifactsLocally: z.boolean().optional(),
  /**
   * On by default (dependency-confusion protection): through a virtual repository without
   * `allowRemoteOverride`, this remote is never asked for anything of a package a local member holds
   * (another version of an npm name, a PyPI project, a Maven groupId:artifactId).
   */
  namespaceConfusionProtection: z.boolean().optional(),
  // virtual
  repositories: z.array(z.string()).max(500).optional(),
  defaultDeploymentRepo: z.string().nullable().optional(),
  /** Off by default: a path held by a local member is never resolved from a remote member (dependency confusion). */
  allowRemoteOverride: z.boolean().optional(),
  // maven
  handleReleases: z.boolean().optional(),
  handleSnapshots: z.boolean().optional(),
  /** maven: a deployed release may be replaced (off by default: 409). */
  allowReleaseRedeploy: z.boolean().optional(),
  // local: the trash can (issue 21, `trash.ts`)
  trashcanEnabled: z.boolean().optional(),
  trashcanRetentionDays: z.number().int().min(1).max(3650).nullable().optional(),
  /**
   * Debian, RPM, Terraform (issue 23): the signing key (Administration → Signing keys) the repository's
   * index signatures are made with, Artifactory's field; empty: the repository's own, made on first use.
   */
  primaryKeyPairRef: z.string().max(128).nullable().optional(),
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
  disableProxy: z.boolean().optional(),
  offline: z.boolean().optional(),
  retrievalCachePeriodSecs: z.number().optional(),
  missedRetrievalCachePeriodSecs: z.number().optional(),
  storeArtifactsLocally: z.boolean().optional(),
  namespaceConfusionProtection: z.boolean().optional(),
  repositories: z.array(z.string()).optional(),
  defaultDeploymentRepo: z.string().nullable().optional(),
  allowRemoteOverride: z.boolean().optional(),
  handleReleases: z.boolean().optional(),
  handleSnapshots: z.boolean().optional(),
  allowReleaseRedeploy: z.boolean().optional(),
  trashcanEnabled: z.boolean().optional(),
  trashcanRetentionDays: z.number().optional(),
  primaryKeyPairRef: z.string().optional(),
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
export type RepositoryListItem = z.infer<typeof repositoryListItemSchema>;

export const repositoryListQuerySchema = z.object({
  type: z
    .string()
    .transform((s) => s.toLowerCase())
    .pipe(repositoryClassSchema)
    .optional(),
  packageType: z.string().optional(),
});

export const checksumsSchema = z.object({ sha1: z.string(), md5: z.string(), sha256: z.string() });

/** One entry of a folder's `children`: `uri` is `/{name}`. */
export const storageChildSchema = z.object({ uri: z.string(), folder: z.boolean() });
export type StorageChild = z.infer<typeof storageChildSchema>;

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
  children: z.array(storageChildSchema).optional(),
  uri: z.string(),
});
export type StorageInfo = z.infer<typeof storageInfoSchema>;

/** `GET /api/storage/{key}/{path}?properties[=k1,k2]` */
export const storagePropertiesSchema = z.object({
  properties: z.record(z.string(), z.array(z.string())),
  uri: z.string(),
});
export type StorageProperties = z.infer<typeof storagePropertiesSchema>;

/** `POST /api/copy|move/{key}/{path}?to=/{key}/{path}[&dry=1]` */
export const copyMoveAnswerSchema = z.object({
  messages: z.array(z.object({ level: z.string(), message: z.string() })),
});
export type CopyMoveAnswer = z.infer<typeof copyMoveAnswerSchema>;

/** A package type the server runs (`GET /ui/api/v1/ui/packagetypes`), for the repository creation grid. */
export const packageTypeInfoSchema = z.object({
  id: z.string(),
  displayName: z.string(),
  /** Icon name; the console maps it to an image. */
  icon: z.string(),
  classes: z.array(repositoryClassSchema),
});
export type PackageTypeInfo = z.infer<typeof packageTypeInfoSchema>;

export const snippetSchema = z.object({ title: z.string(), language: z.string(), code: z.string() });
export type Snippet = z.infer<typeof snippetSchema>;

/**
 * spec 000 §7 `GET ui/setMeUp` reads baseUrl; with `?repoKey=` it also carries the repository's Set Me Up
 * snippets from its package format.
 */
export const setMeUpSchema = z.object({
  baseUrl: z.string(),
  repoKey: z.string().optional(),
  packageType: z.string().optional(),
  /** The URL clients use for the repository. */
  repositoryUrl: z.string().optional(),
  snippets: z.array(snippetSchema).optional(),
});
export type SetMeUp = z.infer<typeof setMeUpSchema>;

/** spec 001 §3 artifact action catalogue: the actions the tree browser offers. */
export const ARTIFACT_ACTIONS = [
  'Download',
  /** The folder (or repository) as a zip: `GET /api/archive/download/{key}/{path}?archiveType=zip`. */
  'Download Folder',
  'Deploy',
  'Copy',
  'Move',
  'Delete',
  'Set Properties',
  'Refresh',
  'Native Browser',
  'Zap Cache',
] as const;
export type ArtifactAction = (typeof ARTIFACT_ACTIONS)[number];

/**
 * `GET /ui/api/v1/ui/artifactactions?repoKey=&path=`: what the caller may do at a path, as the server's
 * authorizer answers it (the server checks again on every call), and the catalogue actions that follow.
 */
export const artifactActionsSchema = z.object({
  repoKey: z.string(),
  path: z.string(),
  /** `file`, `folder`, or `repository` (the root). */
  kind: z.enum(['file', 'folder', 'repository']),
  rclass: repositoryClassSchema,
  permissions: z.object({
    read: z.boolean(),
    annotate: z.boolean(),
    write: z.boolean(),
    delete: z.boolean(),
    manage: z.boolean(),
  }),
  actions: z.array(z.enum(ARTIFACT_ACTIONS)),
});
export type ArtifactActions = z.infer<typeof artifactActionsSchema>;

/** `POST /api/repositories/{key}/zap[?path=]`: cached upstream answers marked stale, remembered misses forgotten. */
export const zapAnswerSchema = z.object({
  repo: z.string(),
  path: z.string(),
  expired: z.number(),
  forgottenMisses: z.number(),
});
export type ZapAnswer = z.infer<typeof zapAnswerSchema>;

/** A remote repository's upstream: an http or https URL without credentials in it (the server's own rule). */
export const remoteUrlSchema = z
  .string()
  .trim()
  .min(1, 'url: a remote repository needs the upstream URL')
  .refine((u) => URL.canParse(u), 'url: not a URL')
  .refine((u) => /^https?:$/.test(new URL(u).protocol), 'url: only http and https upstreams are supported')
  .refine((u) => {
    const p = new URL(u);
    return !p.username && !p.password;
  }, 'url: put credentials in username and password, not in the URL');
