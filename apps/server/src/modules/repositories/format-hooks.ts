import type { FormatRegistry } from '../../formats/registry.ts';
import type { VersionDetails } from '../../formats/sdk/format.ts';
import type { Principal } from '../../platform/http/access-control.ts';
import type { RepositoriesContext } from './context.ts';
import { createRepositoryHandle } from './format-context.ts';
import type { RepoConfig } from './repositories.service.ts';

/**
 * The formats' optional hooks other modules need (issue 13 §3), called without knowing the format:
 * the package type's own format answers, through the registry.
 */

/**
 * The install command of a package of `packageType`, with its version when given; null when its format has
 * none. `where` (the public base URL and the repository key) lets a client that names its registry (docker)
 * pull from this server rather than its default registry.
 */
export function installCommandOf(
  formats: FormatRegistry,
  packageType: string,
  name: string,
  version?: string | null,
  where?: { baseUrl?: string; repoKey?: string },
): string | null {
  return formats.get(packageType)?.installCommand?.({ name, version, ...where }) ?? null;
}

/**
 * What the repository's format reads of the version at `path` for the console (an image's layers),
 * acting as `principal`, who must already have been allowed to read `path`; null when the format has
 * nothing for it.
 */
export async function versionDetailsOf(
  ctx: RepositoriesContext,
  principal: Principal | null,
  repo: RepoConfig,
  path: string,
): Promise<VersionDetails | null> {
  const format = ctx.formats.get(repo.packageType);
  if (!format?.versionDetails) return null;
  return format.versionDetails(createRepositoryHandle(ctx, repo, principal), path);
}
