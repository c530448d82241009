import { z } from 'zod';

// Release bundles v2 and distribution (issue 19; spec 000 §2 / spec 001 §2 "Release bundles and distribution",
// §3 repository types for distribution, §4 "release bundle by checksum", §8 'No distribution repositories are
// configured...'). The server module is apps/server/src/modules/distribution; it answers Artifactory's public
// REST paths and shapes (JFrog Release Lifecycle Management, Artifactory key pairs / trusted keys) where they exist.
//
// Signing keys (admins; private keys write-only, sealed at rest):
//   GET    /api/security/keypair                         → SigningKey[]
//   GET    /api/security/keypair/{pairName}              → SigningKey
//   POST   /api/security/keypair                         body SigningKeyCreate (generate) or SigningKeyImport → SigningKey (201)
//   DELETE /api/security/keypair/{pairName}              → 204 (409 while bundles are signed with it? no: bundles keep the key id)
//   GET    /api/security/keypair/{pairName}/public       → text/plain armored public key (anonymous, for targets)
// Trusted keys (the public keys whose signatures this instance accepts when it receives a bundle; admins):
//   GET    /api/security/keys/trusted                    → {keys: TrustedKey[]}
//   POST   /api/security/keys/trusted                    body TrustedKeyCreate → TrustedKey (201)
//   DELETE /api/security/keys/trusted/{kid}              → 204
// Release bundles (release-bundle permission targets; create needs deploy, delete needs delete, read needs read):
//   POST   /lifecycle/api/v2/release_bundle              header X-JFrog-Signing-Key-Name, body ReleaseBundleCreate
//                                                         → ReleaseBundleCreated (201)
//   GET    /lifecycle/api/v2/release_bundle/names        → ReleaseBundleNames
//   GET    /lifecycle/api/v2/release_bundle/records/{name}            → ReleaseBundleVersions
//   GET    /lifecycle/api/v2/release_bundle/records/{name}/{version}  → ReleaseBundleVersion (with files, signature)
//   GET    /lifecycle/api/v2/release_bundle/records/{name}/{version}/manifest  → the canonical manifest JSON (bytes signed)
//   GET    /lifecycle/api/v2/release_bundle/records/{name}/{version}/signature → text/plain detached armored signature
//   GET    /lifecycle/api/v2/release_bundle/records/{name}/{version}/files/{sha256} → the file's bytes (targets pull here)
//   DELETE /lifecycle/api/v2/release_bundle/records/{name}/{version}  → 204
//   GET    /distribution/api/ui/release_bundle/checksum/{checksum}?num_of_rows=N → ReleaseBundleByChecksum (spec 001 §4)
// Environments (admins write, any signed-in user reads):
//   GET    /access/api/v1/environments                   → Environment[] (ordered by rank)
//   POST   /access/api/v1/environments                   body EnvironmentCreate → Environment (201)
//   PUT    /access/api/v1/environments/{name}            body EnvironmentUpdate → Environment
//   DELETE /access/api/v1/environments/{name}            → 204
// Promotion:
//   POST   /lifecycle/api/v2/promotion/records/{name}/{version}   body PromotionRequest → Promotion (201)
//   GET    /lifecycle/api/v2/promotion/records/{name}/{version}   → Promotions
// Distribution targets (admins; token write-only, sealed at rest):
//   GET    /lifecycle/api/v2/distribution/targets         → DistributionTarget[]
//   POST   /lifecycle/api/v2/distribution/targets         body DistributionTargetCreate → DistributionTarget (201)
//   PUT    /lifecycle/api/v2/distribution/targets/{name}  body DistributionTargetUpdate (token '' or absent keeps it)
//   DELETE /lifecycle/api/v2/distribution/targets/{name}  → 204
// Distribution (source side):
//   POST   /lifecycle/api/v2/distribution/distribute/{name}/{version}  body DistributeRequest → Distribution (202)
//   GET    /lifecycle/api/v2/distribution/trackers/{name}/{version}    → Distribution[] (newest first)
//   POST   /lifecycle/api/v2/distribution/trackers/{name}/{version}/{trackerId}/retry → Distribution (202)
// Destination (target side; authenticated by the token the source holds):
//   POST   /lifecycle/api/v2/distribution/receive         body ReceiveRequest → Received (202)
//   GET    /lifecycle/api/v2/distribution/received/{id}   → Received (the source polls it for the per-target status)
//   GET    /lifecycle/api/v2/distribution/received        → Received[] (the console's target tab)

/** Hidden repository that holds the bundles' files by checksum (repository types for distribution, spec 001 §3). */
export const RELEASE_BUNDLES_REPO_KEY = 'release-bundles-v2';

/** Issue 19: bundle names and versions `[A-Za-z0-9_.-]`, at most 255 characters. */
export const BUNDLE_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,255}$/;
export const bundleNameSchema = z
  .string()
  .min(1, 'A name is required')
  .max(255, 'At most 255 characters')
  .regex(BUNDLE_NAME_PATTERN, 'Only letters, digits, "_", "." and "-"');
export const bundleVersionSchema = z
  .string()
  .min(1, 'A version is required')
  .max(255, 'At most 255 characters')
  .regex(BUNDLE_NAME_PATTERN, 'Only letters, digits, "_", "." and "-"');

export const DISTRIBUTION_MESSAGES = {
  noDistributionRepositories: 'No distribution repositories are configured...',
  bundleExists: 'A release bundle with this name and version already exists',
  unknownSigningKey: 'Unknown signing key',
  noSigningKey: 'A signing key is required (header X-JFrog-Signing-Key-Name)',
  emptyBundle: 'The release bundle has no files',
} as const;

// ---------------------------------------------------------------- signing keys

export const SIGNING_KEY_ALGORITHMS = ['rsa3072', 'rsa4096', 'curve25519'] as const;
export type SigningKeyAlgorithm = (typeof SIGNING_KEY_ALGORITHMS)[number];

const keyNameSchema = z
  .string()
  .min(1, 'A name is required')
  .max(64, 'At most 64 characters')
  .regex(/^[A-Za-z0-9_.-]+$/, 'Only letters, digits, "_", "." and "-"');

/** Artifactory's key pair (GET /api/security/keypair): the private key is never answered. */
export const signingKeySchema = z.object({
  pairName: z.string(),
  pairType: z.literal('GPG'),
  alias: z.string(),
  /** Armored public key. */
  publicKey: z.string(),
  /** OpenPGP key id (16 hex digits, upper case). */
  keyId: z.string(),
  fingerprint: z.string(),
  algorithm: z.string(),
  /** User id of the key (name <email>). */
  userId: z.string(),
  createdBy: z.string(),
  created: z.string(),
});
export type SigningKey = z.infer<typeof signingKeySchema>;

/** Generate a key pair on the server (openpgp). */
export const signingKeyCreateSchema = z.object({
  pairName: keyNameSchema,
  pairType: z.literal('GPG').default('GPG'),
  alias: z.string().max(128).optional(),
  algorithm: z.enum(SIGNING_KEY_ALGORITHMS).default('curve25519'),
  userName: z.string().max(128).default('Granary'),
  email: z.string().max(256).default('release@granary.local'),
});
export type SigningKeyCreate = z.input<typeof signingKeyCreateSchema>;

/** Import an armored GPG key pair (Artifactory's POST /api/security/keypair body). Write-only privateKey/passphrase. */
export const signingKeyImportSchema = z.object({
  pairName: keyNameSchema,
  pairType: z.literal('GPG').default('GPG'),
  alias: z.string().max(128).optional(),
  privateKey: z.string().min(1).max(65536),
  publicKey: z.string().max(65536).optional(),
  passphrase: z.string().max(1024).optional(),
});
export type SigningKeyImport = z.input<typeof signingKeyImportSchema>;

export const trustedKeySchema = z.object({
  kid: z.string(),
  alias: z.string(),
  fingerprint: z.string(),
  public_key: z.string(),
  issued_on: z.string(),
  issued_by: z.string(),
});
export type TrustedKey = z.infer<typeof trustedKeySchema>;
export const trustedKeyCreateSchema = z.object({
  alias: keyNameSchema,
  public_key: z.string().min(1).max(65536),
});
export type TrustedKeyCreate = z.input<typeof trustedKeyCreateSchema>;

// ---------------------------------------------------------------- release bundles

export const BUNDLE_SOURCE_TYPES = ['artifacts', 'builds', 'release_bundles', 'packages', 'aql'] as const;
export type BundleSourceType = (typeof BUNDLE_SOURCE_TYPES)[number];

/** RLM's create body. `aql` here is Granary's search: `{repository_key?, path_pattern (Ant), name_pattern?}` or an AQL-like string
 *  `items.find({"repo":"x","path":{"$match":"a/*"}})`. */
export const releaseBundleCreateSchema = z.object({
  release_bundle_name: bundleNameSchema,
  release_bundle_version: bundleVersionSchema,
  skip_docker_manifest_resolution: z.boolean().optional(),
  source_type: z.enum(BUNDLE_SOURCE_TYPES),
  source: z.object({
    /** `path` is `repoKey/path/in/repo`. */
    artifacts: z
      .array(z.object({ path: z.string().min(1).max(2048), sha256: z.string().optional() }))
      .max(10000)
      .optional(),
    builds: z
      .array(
        z.object({
          build_name: z.string().min(1),
          build_number: z.string().min(1),
          build_repository: z.string().optional(),
          include_dependencies: z.boolean().optional(),
        }),
      )
      .max(100)
      .optional(),
    release_bundles: z
      .array(
        z.object({
          release_bundle_name: bundleNameSchema,
          release_bundle_version: bundleVersionSchema,
          project_key: z.string().optional(),
          repository_key: z.string().optional(),
        }),
      )
      .max(100)
      .optional(),
    packages: z
      .array(
        z.object({
          package_name: z.string().min(1),
          package_version: z.string().min(1),
          package_type: z.string().optional(),
          repository_key: z.string().min(1),
        }),
      )
      .max(1000)
      .optional(),
    aql: z
      .union([
        z.string().min(1).max(4096),
        z.object({ repository_key: z.string().min(1), path_pattern: z.string().min(1).max(1024) }),
      ])
      .optional(),
  }),
});
export type ReleaseBundleCreate = z.input<typeof releaseBundleCreateSchema>;

export const releaseBundleCreatedSchema = z.object({
  repository_key: z.string(),
  release_bundle_name: z.string(),
  release_bundle_version: z.string(),
  created: z.string(),
});
export type ReleaseBundleCreated = z.infer<typeof releaseBundleCreatedSchema>;

export const BUNDLE_STATUSES = ['COMPLETED', 'PROCESSING', 'FAILED'] as const;
export type BundleStatus = (typeof BUNDLE_STATUSES)[number];

/** One file of a bundle: where it was taken from and its checksum. */
export const bundleFileSchema = z.object({
  repoKey: z.string(),
  path: z.string(),
  sha256: z.string(),
  size: z.number().int(),
});
export type BundleFile = z.infer<typeof bundleFileSchema>;

/** The signed manifest (canonical JSON: sorted keys, no spaces, files sorted by repoKey then path). */
export const bundleManifestSchema = z.object({
  schema: z.literal('granary.release-bundle/v1'),
  name: z.string(),
  version: z.string(),
  created: z.string(),
  created_by: z.string(),
  source_type: z.enum(BUNDLE_SOURCE_TYPES),
  files: z.array(bundleFileSchema),
});
export type BundleManifest = z.infer<typeof bundleManifestSchema>;

export const releaseBundleVersionSummarySchema = z.object({
  status: z.enum(BUNDLE_STATUSES),
  repository_key: z.string(),
  release_bundle_name: z.string(),
  release_bundle_version: z.string(),
  created_by: z.string(),
  created: z.string(),
  /** sha256 of the canonical manifest. */
  release_bundle_sha256: z.string(),
  /** Bundles received from another instance: where from. */
  source: z.enum(['local', 'received']),
  file_count: z.number().int(),
  total_size: z.number().int(),
  /** The environments it was promoted to, in order. */
  environments: z.array(z.string()),
});
export type ReleaseBundleVersionSummary = z.infer<typeof releaseBundleVersionSummarySchema>;

export const releaseBundleVersionsSchema = z.object({
  release_bundles: z.array(releaseBundleVersionSummarySchema),
  total: z.number().int(),
});
export type ReleaseBundleVersions = z.infer<typeof releaseBundleVersionsSchema>;

export const releaseBundleNamesSchema = z.object({
  release_bundles: z.array(
    z.object({
      release_bundle_name: z.string(),
      repository_key: z.string(),
      release_bundle_version_latest: z.string(),
      last_version_created_millis: z.number(),
      versions: z.number().int(),
    }),
  ),
  total: z.number().int(),
});
export type ReleaseBundleNames = z.infer<typeof releaseBundleNamesSchema>;

export const releaseBundleVersionSchema = releaseBundleVersionSummarySchema.extend({
  source_type: z.enum(BUNDLE_SOURCE_TYPES),
  files: z.array(bundleFileSchema),
  signature: z.object({
    key_name: z.string().nullable(),
    key_id: z.string(),
    fingerprint: z.string(),
    /** Detached armored signature over the manifest bytes. */
    armored: z.string(),
  }),
});
export type ReleaseBundleVersion = z.infer<typeof releaseBundleVersionSchema>;

/** spec 001 §4 `GET /distribution/api/ui/release_bundle/checksum/{checksum}?num_of_rows=N`. */
export const releaseBundleByChecksumSchema = z.object({
  release_bundles: z.array(
    z.object({
      release_bundle_name: z.string(),
      release_bundle_version: z.string(),
      repoKey: z.string(),
      path: z.string(),
      created: z.string(),
    }),
  ),
  total: z.number().int(),
});
export type ReleaseBundleByChecksum = z.infer<typeof releaseBundleByChecksumSchema>;

// ---------------------------------------------------------------- environments and promotion

export const environmentSchema = z.object({
  name: z.string(),
  /** Order in the promotion path (DEV 1 < QA 2 < PROD 3). */
  rank: z.number().int(),
  /** The environment's repositories (local); promotion copies the files into them. */
  repositories: z.array(z.string()),
});
export type Environment = z.infer<typeof environmentSchema>;

export const environmentCreateSchema = z.object({
  name: z
    .string()
    .min(1)
    .max(32)
    .regex(/^[A-Za-z0-9_-]+$/, 'Only letters, digits, "_" and "-"'),
  rank: z.number().int().min(0).max(1000).optional(),
  repositories: z.array(z.string().min(1)).max(100).default([]),
});
export type EnvironmentCreate = z.input<typeof environmentCreateSchema>;
export const environmentUpdateSchema = environmentCreateSchema.omit({ name: true }).partial();
export type EnvironmentUpdate = z.input<typeof environmentUpdateSchema>;

export const PROMOTION_STATUSES = ['COMPLETED', 'FAILED'] as const;
export const promotionRequestSchema = z.object({
  environment: z.string().min(1),
  /** Limits the target repositories to these (of the environment's); empty: all. */
  included_repository_keys: z.array(z.string()).optional(),
  excluded_repository_keys: z.array(z.string()).optional(),
  /** copy (default) or move (the files leave the previous environment's repositories). */
  operation: z.enum(['copy', 'move']).default('copy'),
});
export type PromotionRequest = z.input<typeof promotionRequestSchema>;

export const promotionSchema = z.object({
  id: z.string(),
  status: z.enum(PROMOTION_STATUSES),
  repository_key: z.string(),
  release_bundle_name: z.string(),
  release_bundle_version: z.string(),
  environment: z.string(),
  included_repository_keys: z.array(z.string()),
  operation: z.enum(['copy', 'move']),
  created_by: z.string(),
  created: z.string(),
  created_millis: z.number(),
  /** Failure reasons or evidence (files copied). */
  messages: z.array(z.object({ text: z.string() })),
});
export type Promotion = z.infer<typeof promotionSchema>;
export const promotionsSchema = z.object({ promotions: z.array(promotionSchema), total: z.number().int() });
export type Promotions = z.infer<typeof promotionsSchema>;

// ---------------------------------------------------------------- distribution

export const distributionTargetSchema = z.object({
  name: z.string(),
  /** Base URL of the other Granary instance. */
  url: z.string(),
  /** The token's last four characters (never the token). */
  tokenLast4: z.string(),
  created: z.string(),
});
export type DistributionTarget = z.infer<typeof distributionTargetSchema>;
export const distributionTargetCreateSchema = z.object({
  name: keyNameSchema,
  url: z.string().url().max(2048),
  /** Write-only access token of a user on the target allowed to receive bundles (admin). */
  token: z.string().min(1).max(8192),
});
export type DistributionTargetCreate = z.input<typeof distributionTargetCreateSchema>;
export const distributionTargetUpdateSchema = z.object({
  url: z.string().url().max(2048).optional(),
  token: z.string().max(8192).optional(),
});
export type DistributionTargetUpdate = z.input<typeof distributionTargetUpdateSchema>;

export const DISTRIBUTION_STATUSES = ['IN_PROGRESS', 'COMPLETED', 'FAILED'] as const;
export type DistributionStatus = (typeof DISTRIBUTION_STATUSES)[number];

export const distributeRequestSchema = z.object({
  /** Target names; or RLM's distribution_rules [{site_name: "name" | "*"}]. */
  targets: z.array(z.string().min(1)).optional(),
  distribution_rules: z.array(z.object({ site_name: z.string().min(1) })).optional(),
  dry_run: z.boolean().optional(),
});
export type DistributeRequest = z.input<typeof distributeRequestSchema>;

export const distributionTargetStatusSchema = z.object({
  target: z.string(),
  status: z.enum(DISTRIBUTION_STATUSES),
  /** Failure reason. */
  reason: z.string().nullable(),
  files_done: z.number().int(),
  files_total: z.number().int(),
  attempts: z.number().int(),
  updated: z.string(),
});
export type DistributionTargetStatus = z.infer<typeof distributionTargetStatusSchema>;

export const distributionSchema = z.object({
  tracker_id: z.string(),
  release_bundle_name: z.string(),
  release_bundle_version: z.string(),
  distributed_by: z.string(),
  distributed_at: z.string(),
  /** The worst of the targets': FAILED > IN_PROGRESS > COMPLETED. */
  status: z.enum(DISTRIBUTION_STATUSES),
  targets: z.array(distributionTargetStatusSchema),
});
export type Distribution = z.infer<typeof distributionSchema>;

/** What the source tells the target. */
export const receiveRequestSchema = z.object({
  /** The source's base URL the target pulls from (`{pull_base}/{sha256}`), and the token to pull with. */
  pull_base: z.string().url(),
  pull_token: z.string().min(1).max(8192),
  /** Canonical manifest (the exact bytes signed), and the detached armored signature. */
  manifest: z.string().min(1).max(50_000_000),
  signature: z.string().min(1).max(65536),
  /** OpenPGP key id of the source's signing key (must be a trusted key on the target). */
  key_id: z.string().min(1).max(64),
  source_id: z.string().max(256).optional(),
});
export type ReceiveRequest = z.input<typeof receiveRequestSchema>;

export const receivedSchema = z.object({
  id: z.string(),
  release_bundle_name: z.string(),
  release_bundle_version: z.string(),
  status: z.enum(DISTRIBUTION_STATUSES),
  reason: z.string().nullable(),
  files_done: z.number().int(),
  files_total: z.number().int(),
  created: z.string(),
  updated: z.string(),
});
export type Received = z.infer<typeof receivedSchema>;
