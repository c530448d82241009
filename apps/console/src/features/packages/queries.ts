import {
  artifactBuildsAnswerSchema,
  dependenciesAnswerSchema,
  dockerLayersAnswerSchema,
  graphqlAnswerSchema,
  HIDDEN_REPOSITORY_TYPES,
  type PackageQuery,
  packageSchema,
  packagesConnectionSchema,
  packageVersionSchema,
  propertiesAnswerSchema,
  readmeAnswerSchema,
  repositoryListItemSchema,
  versionsConnectionSchema,
} from '@granary/contracts';
import { infiniteQueryOptions, queryOptions } from '@tanstack/react-query';
import { z } from 'zod';
import { ApiError, api, restApi } from '../../shared/api/index.ts';

/**
 * spec 001 §7 packages calls: `POST packages|package|versions` with a graph-query body, and the
 * version-details calls (`GET packages/readme|properties|dependencies`). Keys start with 'packages' so
 * logout (which removes every query) clears the package state (spec 001 §2).
 */
export const packageKeys = {
  all: ['packages'] as const,
  list: (filter: PackageListFilter) => ['packages', 'list', filter] as const,
  detail: (packageId: string) => ['packages', 'package', packageId] as const,
  versions: (packageId: string, releasesOnly = false) =>
    ['packages', 'versions', packageId, { releasesOnly }] as const,
  version: (packageId: string, name: string) => ['packages', 'version', packageId, name] as const,
  readme: (repoKey: string, path: string) => ['packages', 'readme', repoKey, path] as const,
  properties: (repoKey: string, path: string) => ['packages', 'properties', repoKey, path] as const,
  dependencies: (repoKey: string, path: string) => ['packages', 'dependencies', repoKey, path] as const,
  builds: (repoKey: string, path: string) => ['packages', 'builds', repoKey, path] as const,
  dockerLayers: (repoKey: string, path: string) => ['packages', 'dockerLayers', repoKey, path] as const,
  repositories: ['packages', 'repositories'] as const,
};

/** The list filter the screen sends (a subset of spec 001 §3 package query). */
export type PackageListFilter = Pick<
  PackageQuery,
  | 'name'
  | 'package_type'
  | 'description'
  | 'tags'
  | 'repos'
  | 'licenses'
  | 'version'
  | 'checksum'
  | 'scope'
  | 'before'
  | 'after'
  | 'sort_by'
  | 'sort_type'
>;

/** The default page (spec 001 §9: GraphQL page size 100). */
export const PACKAGES_PAGE_SIZE = 100;

const PACKAGE_FIELDS = `id name packageType description created modified versionsCount latestVersion
  stats { downloads followers } licenses tags repos { name type }
  vulnerabilities { critical high medium low info unknown skipped } operationalRisk { riskLevel }`;

const VERSION_FIELDS = `name packageId created modified description repos { name type leadFilePath } licenses size
  stats { downloadCount } vulnerabilities { critical high medium low info unknown skipped }
  operationalRisk { riskLevel }`;

async function graph<T extends z.ZodType>(
  call: 'packages' | 'package' | 'versions',
  query: string,
  variables: Record<string, unknown>,
  data: T,
  signal?: AbortSignal,
): Promise<z.output<T>> {
  const answer = await api.post(call, { query, variables }, graphqlAnswerSchema(data), { signal });
  if (answer.errors?.length || !answer.data) {
    const messages = answer.errors?.map((e) => e.message) ?? [];
    throw new ApiError([{ status: 400, code: 'GRAPHQL', message: messages.join('; ') || 'No data' }]);
  }
  return answer.data as z.output<T>;
}

const LIST_QUERY = `query Packages($name: String, $package_type: [String!], $description: String, $tags: [String!],
  $repos: [String!], $licenses: [String!], $version: String, $checksum: String, $scope: String, $before: String,
  $after: String, $sort_by: String, $sort_type: String, $limit: Int, $endCursor: String) {
  packages(name: $name, package_type: $package_type, description: $description, tags: $tags, repos: $repos,
    licenses: $licenses, version: $version, checksum: $checksum, scope: $scope, before: $before, after: $after,
    sort_by: $sort_by, sort_type: $sort_type, limit: $limit, endCursor: $endCursor) {
    edges { cursor node { ${PACKAGE_FIELDS} } } pageInfo { hasNextPage endCursor } } }`;

/** The package list, page by page ("Load more" follows `endCursor`). */
export const packagesListQueryOptions = (filter: PackageListFilter) =>
  infiniteQueryOptions({
    queryKey: packageKeys.list(filter),
    initialPageParam: null as string | null,
    queryFn: ({ pageParam, signal }) =>
      graph(
        'packages',
        LIST_QUERY,
        { ...filter, limit: PACKAGES_PAGE_SIZE, endCursor: pageParam ?? undefined },
        z.object({ packages: packagesConnectionSchema }),
        signal,
      ).then((d) => d.packages),
    getNextPageParam: (last) => (last.pageInfo.hasNextPage ? last.pageInfo.endCursor : null),
  });

export const packageQueryOptions = (packageId: string) =>
  queryOptions({
    queryKey: packageKeys.detail(packageId),
    queryFn: ({ signal }) =>
      graph(
        'package',
        `query Package($packageId: String!) { package(packageId: $packageId) { ${PACKAGE_FIELDS} installCommand } }`,
        { packageId },
        z.object({ package: packageSchema.nullable() }),
        signal,
      ).then((d) => d.package),
  });

/** A package's versions, newest first; `releasesOnly`: spec 001 §5 "Only semver release versions" (`ignorePreRelease`). */
export const versionsQueryOptions = (packageId: string, releasesOnly = false) =>
  infiniteQueryOptions({
    queryKey: packageKeys.versions(packageId, releasesOnly),
    initialPageParam: null as string | null,
    queryFn: ({ pageParam, signal }) =>
      graph(
        'versions',
        `query Versions($packageId: String!, $limit: Int, $endCursor: String, $ignorePreRelease: Boolean) {
          versions(packageId: $packageId, sort_by: "name", sort_type: "desc", limit: $limit, endCursor: $endCursor,
            ignorePreRelease: $ignorePreRelease) {
          edges { cursor node { ${VERSION_FIELDS} } } pageInfo { hasNextPage endCursor } } }`,
        {
          packageId,
          limit: PACKAGES_PAGE_SIZE,
          endCursor: pageParam ?? undefined,
          ignorePreRelease: releasesOnly,
        },
        z.object({ versions: versionsConnectionSchema }),
        signal,
      ).then((d) => d.versions),
    getNextPageParam: (last) => (last.pageInfo.hasNextPage ? last.pageInfo.endCursor : null),
  });

/** One version with its files (checksums), dependencies and install command. */
export const versionQueryOptions = (packageId: string, name: string) =>
  queryOptions({
    queryKey: packageKeys.version(packageId, name),
    queryFn: ({ signal }) =>
      graph(
        'versions',
        `query Version($packageId: String!, $name: String!) { version(packageId: $packageId, name: $name) {
          ${VERSION_FIELDS} files { name lead size md5 sha1 sha256 mimeType }
          dependencies { name range scope } installCommand } }`,
        { packageId, name },
        z.object({ version: packageVersionSchema.nullable() }),
        signal,
      ).then((d) => d.version),
  });

const fileQuery = (repoKey: string, path: string) => ({ repoKey, path });

export const readmeQueryOptions = (repoKey: string, path: string) =>
  queryOptions({
    queryKey: packageKeys.readme(repoKey, path),
    queryFn: ({ signal }) =>
      api
        .get('packages/readme', readmeAnswerSchema, { query: fileQuery(repoKey, path), signal })
        .then((a) => a.readme),
  });

export const propertiesQueryOptions = (repoKey: string, path: string) =>
  queryOptions({
    queryKey: packageKeys.properties(repoKey, path),
    queryFn: ({ signal }) =>
      api
        .get('packages/properties', propertiesAnswerSchema, { query: fileQuery(repoKey, path), signal })
        .then((a) => a.properties),
  });

export const dependenciesQueryOptions = (repoKey: string, path: string) =>
  queryOptions({
    queryKey: packageKeys.dependencies(repoKey, path),
    queryFn: ({ signal }) =>
      api
        .get('packages/dependencies', dependenciesAnswerSchema, { query: fileQuery(repoKey, path), signal })
        .then((a) => a.dependencies),
  });

/** spec 001 §7 `GET builds (path, repoKey)` (issue 19): the builds that produced or used a version's file. */
export const buildsQueryOptions = (repoKey: string, path: string) =>
  queryOptions({
    queryKey: packageKeys.builds(repoKey, path),
    queryFn: ({ signal }) =>
      api
        .get('builds', artifactBuildsAnswerSchema, { query: fileQuery(repoKey, path), signal })
        .then((a) => a.builds),
  });

/** spec 001 §7 `POST docker layers (path, repoKey, view)`: an image tag's layers, their commands and sizes. */
export const dockerLayersQueryOptions = (repoKey: string, path: string) =>
  queryOptions({
    queryKey: packageKeys.dockerLayers(repoKey, path),
    queryFn: ({ signal }) =>
      api.post('packages/dockerLayers', { repoKey, path, view: 'layers' }, dockerLayersAnswerSchema, {
        signal,
      }),
  });

/**
 * The repositories filter's choices: the readable repositories (local, remote and virtual; a virtual one
 * stands for its members), hidden types left out (spec 001 §3 "Hidden repo types excluded from listing").
 */
export const filterRepositoriesQueryOptions = () =>
  queryOptions({
    queryKey: packageKeys.repositories,
    queryFn: async ({ signal }) => {
      const all = await restApi.get('repositories', z.array(repositoryListItemSchema), { signal });
      const hidden: readonly string[] = HIDDEN_REPOSITORY_TYPES;
      return all.filter((r) => !hidden.includes(r.packageType.toLowerCase()));
    },
    staleTime: 30_000,
  });
