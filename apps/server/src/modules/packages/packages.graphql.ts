import type { FastifyBaseLogger, FastifyReply } from 'fastify';
import { DomainError } from '../../platform/errors.ts';
import type { Principal } from '../../platform/http/access-control.ts';
import { httpStatusOf } from '../../platform/http/error-status.ts';
import { installCommandOf, type RepositoriesContext } from '../repositories/repositories.api.ts';
import type {
  PackageFilter,
  PackageNode,
  PackageReader,
  VersionFilter,
  VersionNode,
} from './packages.read.ts';

/**
 * The packages GraphQL schema (spec 001 §3 package and version fields and query parameters, §7
 * list and version parameters; spec names kept, so `after`/`before` are date filters and the page
 * cursor is `endCursor`). Relay-style connections: `edges { cursor node }` and `pageInfo { hasNextPage endCursor }`.
 */
export const packagesSchema = /* GraphQL */ `
  type Query {
    packages(
      packageId: String
      name: String
      lowercase_name: String
      description: String
      tags: [String!]
      version: String
      checksum: String
      scope: String
      repos: [String!]
      package_type: [String!]
      licenses: [String!]
      severities: [String!]
      before: String
      after: String
      ignorePreRelease: Boolean
      sort_by: String
      sort_type: String
      limit: Int
      endCursor: String
      includeFiles: Boolean
    ): PackageConnection!
    package(packageId: String!): Package
    versions(
      packageId: String!
      name: String
      repos: [String!]
      cve: String
      severities: [String!]
      licenses: [String!]
      before: String
      after: String
      ignorePreRelease: Boolean
      includeFiles: Boolean
      sort: String
      sort_by: String
      sort_type: String
      limit: Int
      endCursor: String
    ): VersionConnection!
    version(packageId: String!, name: String!, repos: [String!]): PackageVersion
  }

  type PageInfo {
    hasNextPage: Boolean!
    endCursor: String
  }

  type PackageConnection {
    edges: [PackageEdge!]!
    pageInfo: PageInfo!
  }
  type PackageEdge {
    cursor: String!
    node: Package!
  }
  type VersionConnection {
    edges: [VersionEdge!]!
    pageInfo: PageInfo!
  }
  type VersionEdge {
    cursor: String!
    node: PackageVersion!
  }

  "Counts by severity; a zero count is null (dropped)."
  type Vulnerabilities {
    critical: Int
    high: Int
    medium: Int
    low: Int
    info: Int
    unknown: Int
    skipped: Int
  }
  type OperationalRisk {
    riskLevel: String
  }
  type PackageStats {
    downloads: Int!
    followers: Int!
  }
  type VersionStats {
    downloadCount: Int!
  }
  type RepositoryRef {
    name: String!
    type: String!
  }
  type VersionRepository {
    name: String!
    type: String!
    leadFilePath: String!
  }

  type Package {
    id: String!
    name: String!
    packageType: String!
    description: String!
    created: String!
    modified: String!
    versionsCount: Int!
    latestVersion: String
    stats: PackageStats!
    licenses: [String!]!
    tags: [String!]!
    repos: [RepositoryRef!]!
    vulnerabilities: Vulnerabilities
    operationalRisk: OperationalRisk
    "spec 001 §3 install command of the package (no version), from its format; null for types without one."
    installCommand: String
  }

  type PackageFile {
    name: String!
    lead: Boolean!
    size: Float!
    md5: String!
    sha1: String!
    sha256: String!
    mimeType: String
  }

  type Dependency {
    name: String!
    range: String
    scope: String
  }

  type PackageVersion {
    name: String!
    packageId: String!
    created: String!
    modified: String!
    description: String!
    repos: [VersionRepository!]!
    licenses: [String!]!
    size: Float!
    stats: VersionStats!
    vulnerabilities: Vulnerabilities
    operationalRisk: OperationalRisk
    "The version's files (empty unless the query asked includeFiles, or for version(...))."
    files: [PackageFile!]!
    dependencies: [Dependency!]!
    "spec 001 §3 install command, from the package's format; null for types without one."
    installCommand(withVersion: Boolean = true): String
  }
`;

export interface GraphContext {
  principal: Principal | null;
  /** The server's public base URL (Set Me Up's), for install commands that name the registry (docker). */
  baseUrl?: string;
}

/**
 * Resolvers over the packages reader; the caller's permissions apply to every answer. Install commands
 * come from each package type's format (`formats`).
 */
export function packagesResolvers(reader: PackageReader, formats: RepositoriesContext['formats']) {
  return {
    Query: {
      packages: (_: unknown, args: PackageFilter, ctx: GraphContext) =>
        reader.listPackages(ctx.principal, args),
      package: (_: unknown, args: { packageId: string }, ctx: GraphContext) =>
        reader.getPackage(ctx.principal, args.packageId),
      versions: (_: unknown, args: VersionFilter, ctx: GraphContext) =>
        reader.listVersions(ctx.principal, args),
      version: (_: unknown, args: { packageId: string; name: string; repos?: string[] }, ctx: GraphContext) =>
        reader.getVersion(ctx.principal, args.packageId, args.name, args.repos),
    },
    // issue 22: the command names this server and the (first) repository the caller sees the package in.
    Package: {
      installCommand: (p: PackageNode, _: unknown, ctx: GraphContext) =>
        installCommandOf(formats, p.packageType, p.name, null, {
          baseUrl: ctx.baseUrl,
          repoKey: p.repos[0]?.name,
        }),
    },
    PackageVersion: {
      files: (v: VersionNode) => (v.includeFiles ? reader.filesOf(v) : []),
      installCommand: (v: VersionNode, args: { withVersion?: boolean }, ctx: GraphContext) =>
        installCommandOf(formats, v.packageType, v.packageName, args.withVersion !== false ? v.name : null, {
          baseUrl: ctx.baseUrl,
          repoKey: v.repos[0]?.name,
        }),
    },
  };
}

/** A GraphQL error as graphql-js and graphql-jit report it: a resolver's throw is its `originalError`. */
interface ReportedError {
  message: string;
  originalError?: unknown;
}

/**
 * The errors a client may see (issue 12 §17). The query's own faults (syntax, validation, variable
 * coercion: no `originalError`) and the resolvers' client errors (a `DomainError` below 500) keep their
 * message; anything else (a database error carrying its SQL, a bug) becomes a generic message naming
 * the request id, and the real error is logged.
 */
export function publicGraphqlErrors(
  errors: readonly ReportedError[],
  requestId: string,
  log: FastifyBaseLogger,
): { message: string }[] {
  return errors.map((e) => {
    let cause: unknown = e.originalError;
    // a resolver's error may arrive wrapped in another GraphQL error (located, then re-thrown)
    while (cause && typeof cause === 'object' && 'originalError' in cause && cause.originalError)
      cause = cause.originalError;
    if (cause === undefined || cause === null) return { message: e.message };
    if (cause instanceof DomainError && httpStatusOf(cause) < 500) return { message: cause.message };
    log.error({ err: cause }, 'packages query failed');
    return { message: `Internal server error (request ${requestId})` };
  });
}

/**
 * mercurius's `errorFormatter`: it sees each error with its `originalError` (the default one keeps the
 * message of every error, SQL included). Answers 200 as the GraphQL-over-HTTP rules ask.
 */
export function packagesErrorFormatter(
  execution: { data?: Record<string, unknown> | null; errors: readonly ReportedError[] },
  context: { reply?: FastifyReply },
) {
  const reply = context.reply;
  const errors = reply
    ? publicGraphqlErrors(execution.errors, reply.request.id, reply.log)
    : execution.errors.map(() => ({ message: 'Internal server error' }));
  return { statusCode: 200, response: { data: execution.data ?? null, errors } };
}
