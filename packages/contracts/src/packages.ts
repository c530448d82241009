import { z } from 'zod';
import { EXCLUDED_PACKAGE_TYPES, GRAPHQL_DEFAULT_PAGE_SIZE, PACKAGE_TYPE_ALIASES } from './constants.ts';

/**
 * Packages index and search (spec 001 §3, §5, §7, §9): the answers of the packages GraphQL calls
 * (`POST /ui/api/v1/packages|package|versions`), the version-details calls, the artifact search
 * (console `/ui/api/v1/ui/artifactsearch/{kind}`, REST `/api/search/*`), and the rules both the
 * server and the console apply to a package query.
 */

// spec 001 §3: severities of the vulnerability counts, in this order.
export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info', 'unknown', 'skipped'] as const;
export type Severity = (typeof SEVERITIES)[number];
export const severitySchema = z.enum(SEVERITIES);

/** Vulnerability counts by severity; zero counts are dropped (spec 001 §3). */
export const vulnerabilitiesSchema = z.object(
  Object.fromEntries(SEVERITIES.map((s) => [s, z.number().int().positive().nullish()])) as Record<
    Severity,
    z.ZodOptional<z.ZodNullable<z.ZodNumber>>
  >,
);
export type Vulnerabilities = z.infer<typeof vulnerabilitiesSchema>;

/** Drops zero and missing counts. */
export function dropZeroCounts(
  counts: Partial<Record<string, number>> | null | undefined,
): Partial<Record<Severity, number>> {
  const out: Partial<Record<Severity, number>> = {};
  for (const s of SEVERITIES) {
    const n = counts?.[s];
    if (typeof n === 'number' && n > 0) out[s] = n;
  }
  return out;
}

// ---------- query rules (spec 001 §5) ----------

/** spec 001 §5: asc, ascend, $asc and their uppercase variants are ascending; desc, descend, $desc descending; anything else ASC. */
export function sortDirection(value: string | null | undefined): 'ASC' | 'DESC' {
  const v = (value ?? '').trim().toLowerCase();
  return v === 'desc' || v === 'descend' || v === '$desc' ? 'DESC' : 'ASC';
}

/** spec 001 §5: a package name filter gets a trailing `*` unless it has one. */
export function packageNamePattern(name: string): string {
  return name.endsWith('*') ? name : `${name}*`;
}

/** spec 001 §9: a package type as users write it (golang, gav, deb, rubygems, terraform module…) → the type id. */
export function canonicalPackageType(type: string): string {
  const t = type.trim();
  return PACKAGE_TYPE_ALIASES[t.toLowerCase()] ?? PACKAGE_TYPE_ALIASES[t] ?? t.toLowerCase();
}

/** spec 001 §9: types never listed as packages. */
export function isExcludedPackageType(type: string): boolean {
  return (EXCLUDED_PACKAGE_TYPES as readonly string[]).some((t) => t.toLowerCase() === type.toLowerCase());
}

/** A package's id across repositories: `{type}://{name}` (e.g. `npm://@scope/name`). */
export function packageIdOf(packageType: string, name: string): string {
  return `${packageType}://${name}`;
}

export function parsePackageId(id: string): { packageType: string; name: string } | null {
  const m = /^([A-Za-z0-9_-]+):\/\/(.+)$/.exec(id);
  return m ? { packageType: canonicalPackageType(m[1]!), name: m[2]! } : null;
}

export const PACKAGE_SORT_FIELDS = ['name', 'created', 'modified', 'downloads', 'versionsCount'] as const;
export const VERSION_SORT_FIELDS = ['name', 'created', 'modified', 'downloads', 'size'] as const;

// ---------- GraphQL answers (spec 001 §3) ----------

export const pageInfoSchema = z.object({ hasNextPage: z.boolean(), endCursor: z.string().nullable() });

export const packageSchema = z.object({
  id: z.string(),
  name: z.string(),
  packageType: z.string(),
  description: z.string(),
  created: z.string(),
  modified: z.string(),
  versionsCount: z.number().int(),
  latestVersion: z.string().nullable(),
  stats: z.object({ downloads: z.number().int(), followers: z.number().int() }),
  licenses: z.array(z.string()),
  tags: z.array(z.string()),
  repos: z.array(z.object({ name: z.string(), type: z.string() })).optional(),
  vulnerabilities: vulnerabilitiesSchema.nullable(),
  operationalRisk: z.object({ riskLevel: z.string().nullable() }).nullable(),
  /** spec 001 §3: the install command without a version, built by the package's format (null: none) */
  installCommand: z.string().nullable().optional(),
});
export type PackageSummary = z.infer<typeof packageSchema>;

export const packageFileSchema = z.object({
  name: z.string(),
  lead: z.boolean(),
  size: z.number().int(),
  md5: z.string(),
  sha1: z.string(),
  sha256: z.string(),
  mimeType: z.string().nullable(),
});

export const packageVersionRepoSchema = z.object({
  name: z.string(),
  type: z.string(),
  leadFilePath: z.string(),
});

export const dependencySchema = z.object({
  name: z.string(),
  range: z.string().nullable().optional(),
  scope: z.string().nullable().optional(),
});

export const packageVersionSchema = z.object({
  name: z.string(),
  packageId: z.string(),
  created: z.string(),
  modified: z.string(),
  description: z.string().optional(),
  repos: z.array(packageVersionRepoSchema),
  licenses: z.array(z.string()),
  size: z.number().int(),
  stats: z.object({ downloadCount: z.number().int() }),
  vulnerabilities: vulnerabilitiesSchema.nullable(),
  operationalRisk: z.object({ riskLevel: z.string().nullable() }).nullable().optional(),
  files: z.array(packageFileSchema).optional(),
  dependencies: z.array(dependencySchema).optional(),
  installCommand: z.string().nullable().optional(),
});
export type PackageVersionSummary = z.infer<typeof packageVersionSchema>;

const connection = <T extends z.ZodTypeAny>(node: T) =>
  z.object({ edges: z.array(z.object({ cursor: z.string(), node })), pageInfo: pageInfoSchema });

export const packagesConnectionSchema = connection(packageSchema);
export const versionsConnectionSchema = connection(packageVersionSchema);

/** The GraphQL envelope: `{data, errors}`. */
export const graphqlAnswerSchema = <T extends z.ZodTypeAny>(data: T) =>
  z.object({
    data: data.nullable().optional(),
    errors: z.array(z.object({ message: z.string() })).optional(),
  });

/** A graph-query request body. */
export const graphqlRequestSchema = z.object({
  query: z.string().min(1).max(20_000),
  variables: z.record(z.string(), z.unknown()).nullish(),
  operationName: z.string().nullish(),
});

/** Arguments of `packages(...)` (spec 001 §3 package query, §7 list parameters). */
export const packageQuerySchema = z.object({
  packageId: z.string().optional(),
  name: z.string().optional(),
  lowercase_name: z.string().optional(),
  description: z.string().optional(),
  tags: z.array(z.string()).optional(),
  version: z.string().optional(),
  checksum: z.string().optional(),
  scope: z.string().optional(),
  repos: z.array(z.string()).optional(),
  package_type: z.array(z.string()).optional(),
  licenses: z.array(z.string()).optional(),
  severities: z.array(z.string()).optional(),
  before: z.string().optional(),
  after: z.string().optional(),
  ignorePreRelease: z.boolean().optional(),
  sort_by: z.string().optional(),
  sort_type: z.string().optional(),
  limit: z.number().int().positive().default(GRAPHQL_DEFAULT_PAGE_SIZE).optional(),
  endCursor: z.string().optional(),
  includeFiles: z.boolean().optional(),
});
export type PackageQuery = z.infer<typeof packageQuerySchema>;

// ---------- version details calls (spec 001 §7) ----------

export const readmeAnswerSchema = z.object({ readme: z.string().nullable() });
export const propertiesAnswerSchema = z.object({
  properties: z.array(z.object({ name: z.string(), values: z.array(z.string()) })),
});
export const dependenciesAnswerSchema = z.object({ dependencies: z.array(dependencySchema) });
export const buildsAnswerSchema = z.object({
  builds: z.array(z.object({ name: z.string(), number: z.string() })),
});
export const dockerLayersRequestSchema = z.object({
  repoKey: z.string().min(1),
  path: z.string().min(1),
  view: z.string().optional(),
});
export const dockerLayerSchema = z.object({
  index: z.number().int(),
  digest: z.string(),
  size: z.number().int(),
  mediaType: z.string(),
  command: z.string().nullable(),
});
export const dockerLayersAnswerSchema = z.object({
  layers: z.array(dockerLayerSchema),
  totalSize: z.number().int(),
  config: z.object({ digest: z.string(), size: z.number().int() }).nullable(),
});

// ---------- artifact search ----------

export const ARTIFACT_SEARCH_KINDS = ['quick', 'checksum', 'property', 'gavc', 'archive'] as const;
export type ArtifactSearchKind = (typeof ARTIFACT_SEARCH_KINDS)[number];
/** Results per artifact search (more are cut and `limitReached` says so). */
export const ARTIFACT_SEARCH_LIMIT = 500;
/** Entries indexed per archive, and the longest entry path kept. */
export const ARCHIVE_ENTRIES_MAX = 20_000;
export const ARCHIVE_ENTRY_PATH_MAX = 1024;

export const artifactSearchRequestSchema = z.object({
  /** quick: a file name with `*` and `?` wildcards; archive: an entry name (`Foo.class`, `Foo`, `*.xml`) */
  query: z.string().max(1000).optional(),
  repos: z.array(z.string()).optional(),
  // checksum
  checksum: z.string().max(128).optional(),
  // property: [{key, value}] (value may use wildcards); all must match
  properties: z.array(z.object({ key: z.string().min(1), value: z.string().optional() })).optional(),
  // gavc
  groupId: z.string().optional(),
  artifactId: z.string().optional(),
  version: z.string().optional(),
  classifier: z.string().optional(),
  // archive
  searchClassOnly: z.boolean().optional(),
  excludeInnerClasses: z.boolean().optional(),
  path: z.string().optional(),
});
export type ArtifactSearchRequest = z.infer<typeof artifactSearchRequestSchema>;

export const artifactSearchResultSchema = z.object({
  name: z.string(),
  path: z.string(),
  repoKey: z.string(),
  /** the file's address in the tree browser: `{repoKey}/{path}` */
  relativePath: z.string(),
  size: z.number().int(),
  modified: z.string(),
  sha256: z.string(),
  /** archive search: the matching entry inside the archive */
  entry: z.string().optional(),
});
export const artifactSearchAnswerSchema = z.object({
  results: z.array(artifactSearchResultSchema),
  limitReached: z.boolean(),
});
export type ArtifactSearchAnswer = z.infer<typeof artifactSearchAnswerSchema>;

/** REST `/api/search/*` (DESIGN.md "Public REST API"). */
export const restSearchAnswerSchema = z.object({
  results: z.array(z.object({ uri: z.string(), repo: z.string(), path: z.string() })),
});
export const restArchiveSearchAnswerSchema = z.object({
  results: z.array(z.object({ entry: z.string(), archiveUris: z.array(z.string()) })),
});
