import { z } from 'zod';

// Builds (issue 19, spec 000 §2, spec 001 §2, §7 "Packages", "Webhooks", "Security scanning"). The
// build-info document is JFrog's, as the JFrog CLI, the Jenkins/Gradle/Maven plugins publish it with
// `PUT /api/build`; the REST answers are Artifactory's (`/api/build…`), so existing scripts work.
// Every object is loose: a field this schema does not name is kept, and the document is stored
// byte for byte as it was sent.

/** A build name or number: no path separators, wildcards or control characters, not `.`/`..` (issue 19). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
export const BUILD_NAME_FORBIDDEN = /[/\\:|?*"<>\u0000-\u001f\u007f]/;
export const BUILD_NAME_MAX = 255;
export const buildNameSchema = z
  .string()
  .trim()
  .min(1, 'The build name is required')
  .max(BUILD_NAME_MAX, `The build name is at most ${BUILD_NAME_MAX} characters`)
  .refine((s) => !BUILD_NAME_FORBIDDEN.test(s) && s !== '.' && s !== '..', {
    message: 'The build name may not contain / \\ : | ? * " < > or control characters',
  });
export const buildNumberSchema = z
  .string()
  .trim()
  .min(1, 'The build number is required')
  .max(BUILD_NAME_MAX, `The build number is at most ${BUILD_NAME_MAX} characters`)
  .refine((s) => !BUILD_NAME_FORBIDDEN.test(s) && s !== '.' && s !== '..', {
    message: 'The build number may not contain / \\ : | ? * " < > or control characters',
  });

/** The hidden repository (type `buildinfo`) every build-info document is stored in. */
export const BUILD_INFO_REPOSITORY = 'artifactory-build-info';
export const BUILD_INFO_PACKAGE_TYPE = 'buildinfo';
/** Properties set on an artifact a build links to. */
export const BUILD_PROPERTIES = {
  name: 'build.name',
  number: 'build.number',
  timestamp: 'build.timestamp',
} as const;

const checksums = {
  sha1: z.string().optional(),
  sha256: z.string().optional(),
  md5: z.string().optional(),
};

export const buildArtifactSchema = z.looseObject({
  name: z.string().optional(),
  type: z.string().optional(),
  path: z.string().optional(),
  ...checksums,
  /** The repository the CLI deployed it to (JFrog CLI ≥ 2). */
  originalDeploymentRepo: z.string().optional(),
});
export type BuildArtifact = z.infer<typeof buildArtifactSchema>;

export const buildDependencySchema = z.looseObject({
  id: z.string().optional(),
  type: z.string().optional(),
  scopes: z.array(z.string()).optional(),
  /** Chains of module/dependency ids that pulled this one in, nearest first. */
  requestedBy: z.array(z.array(z.string())).optional(),
  ...checksums,
});
export type BuildDependency = z.infer<typeof buildDependencySchema>;

export const buildModuleSchema = z.looseObject({
  id: z.string().optional(),
  type: z.string().optional(),
  repository: z.string().optional(),
  properties: z.record(z.string(), z.unknown()).optional(),
  artifacts: z.array(buildArtifactSchema).optional(),
  excludedArtifacts: z.array(buildArtifactSchema).optional(),
  dependencies: z.array(buildDependencySchema).optional(),
});
export type BuildModule = z.infer<typeof buildModuleSchema>;

export const buildAgentSchema = z.looseObject({
  name: z.string().optional(),
  version: z.string().optional(),
});

export const buildVcsSchema = z.looseObject({
  url: z.string().optional(),
  revision: z.string().optional(),
  branch: z.string().optional(),
  message: z.string().optional(),
});

export const buildIssueSchema = z.looseObject({
  key: z.string().optional(),
  url: z.string().optional(),
  summary: z.string().optional(),
  aggregated: z.boolean().optional(),
});

export const buildIssuesSchema = z.looseObject({
  tracker: buildAgentSchema.optional(),
  aggregateBuildIssues: z.boolean().optional(),
  aggregationBuildStatus: z.string().optional(),
  affectedIssues: z.array(buildIssueSchema).optional(),
});

/** A promotion, as Artifactory lists it in the build-info's `statuses` (newest last). */
export const buildStatusSchema = z.looseObject({
  status: z.string(),
  comment: z.string().optional(),
  repository: z.string().optional(),
  timestamp: z.string(),
  user: z.string().optional(),
  ciUser: z.string().optional(),
  timestampDate: z.number().optional(),
});
export type BuildStatus = z.infer<typeof buildStatusSchema>;

export const buildRetentionSchema = z.looseObject({
  count: z.number().int().optional(),
  deleteBuildArtifacts: z.boolean().optional(),
  /** epoch ms or an ISO date: runs started before it are discarded. */
  minimumBuildDate: z.union([z.number(), z.string()]).optional(),
  buildNumbersNotToBeDiscarded: z.array(z.string()).optional(),
});
export type BuildRetention = z.infer<typeof buildRetentionSchema>;

/** The build-info document (`PUT /api/build`). Unknown fields are kept. */
export const buildInfoSchema = z.looseObject({
  version: z.string().optional(),
  name: buildNameSchema,
  number: buildNumberSchema,
  type: z.string().optional(),
  /** `yyyy-MM-dd'T'HH:mm:ss.SSSZ`, e.g. `2026-03-01T10:00:00.000+0000`. */
  started: z.string().min(1, 'The build-info needs its started time'),
  durationMillis: z.number().optional(),
  agent: buildAgentSchema.optional(),
  buildAgent: buildAgentSchema.optional(),
  principal: z.string().optional(),
  artifactoryPrincipal: z.string().optional(),
  url: z.string().optional(),
  vcs: z.array(buildVcsSchema).optional(),
  vcsRevision: z.string().optional(),
  vcsUrl: z.string().optional(),
  /** Environment and system properties (`buildInfo.env.*`). */
  properties: z.record(z.string(), z.unknown()).optional(),
  modules: z.array(buildModuleSchema).optional(),
  issues: buildIssuesSchema.optional(),
  statuses: z.array(buildStatusSchema).optional(),
  buildRetention: buildRetentionSchema.optional(),
  project: z.string().optional(),
});
export type BuildInfo = z.infer<typeof buildInfoSchema>;

/** `POST /api/build/append/{name}/{number}`: modules to add to the run (a build-info with modules, or `{modules}`). */
export const buildAppendSchema = z.looseObject({ modules: z.array(buildModuleSchema).min(1) });

// --- REST answers (Artifactory's shapes) -----------------------------------------------------------

/** `GET /api/build` */
export const buildsListAnswerSchema = z.object({
  uri: z.string(),
  builds: z.array(z.object({ uri: z.string(), lastStarted: z.string() })),
});
/** `GET /api/build/{name}` */
export const buildRunsAnswerSchema = z.object({
  uri: z.string(),
  buildsNumbers: z.array(z.object({ uri: z.string(), started: z.string() })),
});
/** `GET /api/build/{name}/{number}` */
export const buildRunAnswerSchema = z.object({ uri: z.string(), buildInfo: buildInfoSchema });

/** `GET /api/build/{name}/{number}?diff={older}`: each part split four ways. */
export const buildDiffPartSchema = <T extends z.ZodType>(item: T) =>
  z.object({ new: z.array(item), updated: z.array(item), unchanged: z.array(item), removed: z.array(item) });
export const buildPropertyDiffItemSchema = z.object({
  key: z.string(),
  value: z.string(),
  /** updated: the older run's value */
  diffValue: z.string().optional(),
});
export const buildDiffAnswerSchema = z.object({
  artifacts: buildDiffPartSchema(buildArtifactSchema),
  dependencies: buildDiffPartSchema(buildDependencySchema),
  properties: buildDiffPartSchema(buildPropertyDiffItemSchema),
});
export type BuildDiffAnswer = z.infer<typeof buildDiffAnswerSchema>;

/** `POST /api/build/delete` */
export const buildDeleteRequestSchema = z.object({
  project: z.string().optional(),
  buildName: buildNameSchema,
  buildNumbers: z.array(z.string()).default([]),
  deleteArtifacts: z.boolean().default(false),
  deleteAll: z.boolean().default(false),
});
export type BuildDeleteRequest = z.infer<typeof buildDeleteRequestSchema>;

/** `POST /api/build/retention/{name}` (`?async=true` runs it as a job). */
export const buildRetentionRequestSchema = z.object({
  deleteBuildArtifacts: z.boolean().default(false),
  count: z.number().int().min(0).optional(),
  /** epoch ms or ISO date */
  minimumBuildDate: z.union([z.number(), z.string()]).optional(),
  buildNumbersNotToBeDiscarded: z.array(z.string()).default([]),
});
export type BuildRetentionRequest = z.infer<typeof buildRetentionRequestSchema>;

/** `POST /api/build/promote/{name}/{number}` */
export const buildPromotionRequestSchema = z.object({
  status: z.string().max(255).optional(),
  comment: z.string().max(4000).optional(),
  ciUser: z.string().max(255).optional(),
  /** ISO8601; default now */
  timestamp: z.string().optional(),
  dryRun: z.boolean().default(false),
  sourceRepo: z.string().optional(),
  targetRepo: z.string().optional(),
  /** true: copy; false (default): move */
  copy: z.boolean().default(false),
  artifacts: z.boolean().default(true),
  dependencies: z.boolean().default(false),
  scopes: z.array(z.string()).optional(),
  /** Properties to set on every promoted file. */
  properties: z.record(z.string(), z.array(z.string())).optional(),
  failFast: z.boolean().default(true),
});
export type BuildPromotionRequest = z.infer<typeof buildPromotionRequestSchema>;
export const buildMessageSchema = z.object({
  level: z.enum(['info', 'warning', 'error']),
  message: z.string(),
});
export const buildPromotionAnswerSchema = z.object({ messages: z.array(buildMessageSchema) });
export type BuildPromotionAnswer = z.infer<typeof buildPromotionAnswerSchema>;

// --- Provenance (`GET /api/build/{name}/{number}/provenance`, application/vnd.in-toto+json) -----

export const PROVENANCE_MEDIA_TYPE = 'application/vnd.in-toto+json';
export const IN_TOTO_STATEMENT_TYPE = 'https://in-toto.io/Statement/v1';
export const SLSA_PROVENANCE_TYPE = 'https://slsa.dev/provenance/v1';
const resourceDescriptor = z.looseObject({
  name: z.string().optional(),
  uri: z.string().optional(),
  digest: z.record(z.string(), z.string()),
});
export const provenanceStatementSchema = z.object({
  _type: z.literal(IN_TOTO_STATEMENT_TYPE),
  subject: z.array(z.object({ name: z.string(), digest: z.record(z.string(), z.string()) })),
  predicateType: z.literal(SLSA_PROVENANCE_TYPE),
  predicate: z.object({
    buildDefinition: z.object({
      buildType: z.string(),
      externalParameters: z.record(z.string(), z.unknown()),
      internalParameters: z.record(z.string(), z.unknown()).optional(),
      resolvedDependencies: z.array(resourceDescriptor),
    }),
    runDetails: z.object({
      builder: z.looseObject({ id: z.string(), version: z.record(z.string(), z.string()).optional() }),
      metadata: z.object({
        invocationId: z.string().optional(),
        startedOn: z.string().optional(),
        finishedOn: z.string().optional(),
      }),
    }),
  }),
});
export type ProvenanceStatement = z.infer<typeof provenanceStatementSchema>;

// --- Console calls (`/ui/api/v1/…`) ---------------------------------------------------------------

/** `GET ui/builds/names?search=`: every build the caller may read, newest run first. */
export const buildNameItemSchema = z.object({
  name: z.string(),
  lastBuildNumber: z.string(),
  lastStarted: z.string(),
  /** ISO time of the last run's start (sortable) */
  lastStartedAt: z.string(),
  /** The last run's latest promotion status, or null. */
  status: z.string().nullable(),
  runs: z.number().int(),
});
export type BuildNameItem = z.infer<typeof buildNameItemSchema>;
export const buildNamesAnswerSchema = z.object({ builds: z.array(buildNameItemSchema) });

/** One run in `GET ui/builds/history/{name}`. */
export const buildRunItemSchema = z.object({
  name: z.string(),
  number: z.string(),
  started: z.string(),
  startedAt: z.string(),
  durationMillis: z.number().nullable(),
  agent: z.string().nullable(),
  url: z.string().nullable(),
  status: z.string().nullable(),
  modules: z.number().int(),
  artifacts: z.number().int(),
  dependencies: z.number().int(),
  uploadedBy: z.string(),
});
export type BuildRunItem = z.infer<typeof buildRunItemSchema>;
export const buildHistoryAnswerSchema = z.object({ name: z.string(), runs: z.array(buildRunItemSchema) });

/** Where a build's artifact or dependency is stored, when it links by checksum (null otherwise). */
export const buildLinkSchema = z.object({ repoKey: z.string(), path: z.string() }).nullable();
/** A dependency's package version's vulnerability counts (from scanning), when linked and scanned. */
export const buildVulnerabilityCountsSchema = z
  .object({
    critical: z.number(),
    high: z.number(),
    medium: z.number(),
    low: z.number(),
    unknown: z.number(),
  })
  .nullable();

export const buildRunDetailsSchema = z.object({
  run: buildRunItemSchema,
  vcs: z.array(buildVcsSchema),
  /** The build-info `properties` (environment and system). */
  environment: z.record(z.string(), z.string()),
  issues: buildIssuesSchema.nullable(),
  statuses: z.array(buildStatusSchema),
  modules: z.array(
    z.object({
      id: z.string(),
      type: z.string().nullable(),
      artifacts: z.array(
        z.object({
          name: z.string(),
          type: z.string().nullable(),
          path: z.string().nullable(),
          sha1: z.string().nullable(),
          sha256: z.string().nullable(),
          md5: z.string().nullable(),
          link: buildLinkSchema,
        }),
      ),
      dependencies: z.array(
        z.object({
          id: z.string(),
          type: z.string().nullable(),
          scopes: z.array(z.string()),
          requestedBy: z.array(z.array(z.string())),
          sha1: z.string().nullable(),
          sha256: z.string().nullable(),
          md5: z.string().nullable(),
          link: buildLinkSchema,
          vulnerabilities: buildVulnerabilityCountsSchema,
        }),
      ),
    }),
  ),
  /** The provenance statement's download path (relative to the server root). */
  provenanceUri: z.string(),
});
export type BuildRunDetails = z.infer<typeof buildRunDetailsSchema>;

/** `GET ui/api/v1/builds?path=&repoKey=` (and the version Builds tab's `packages/builds`). */
export const artifactBuildsAnswerSchema = z.object({
  builds: z.array(
    z.object({
      name: z.string(),
      number: z.string(),
      started: z.string(),
      role: z.enum(['produced', 'used']),
      /** produced: the module id; used: the dependency id */
      moduleId: z.string().nullable(),
    }),
  ),
});
export type ArtifactBuildsAnswer = z.infer<typeof artifactBuildsAnswerSchema>;

/** Console: `POST ui/api/v1/builds/{name}/{number}/promote` answers as the REST call does. */
export const buildRunFileSchema = z.object({
  repoKey: z.string(),
  path: z.string(),
  sha256: z.string(),
  size: z.number(),
});
export type BuildRunFile = z.infer<typeof buildRunFileSchema>;
