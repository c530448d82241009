import { InvalidError } from '../../platform/errors.ts';
import { antMatch } from '../access/ant-pattern.ts';
import type { RepositoriesContext } from './context.ts';
import { INVALID_PATH } from './repo-path.ts';

/**
 * A path the repository's format keeps for itself (`PackageFormat.internalPaths`, issue 12 §20: npm's
 * `.npm/` records, PyPI's `.pypi-external/`). The generic APIs neither show nor write such a path;
 * the format reaches it through its own context.
 */
export function isInternalPath(ctx: Pick<RepositoriesContext, 'formats'>, packageType: string, path: string) {
  if (path === '') return false;
  const patterns = ctx.formats.get(packageType)?.internalPaths;
  if (!patterns || patterns.length === 0) return false;
  const lower = path.replace(/^\/+/, '').toLowerCase();
  return patterns.some((pattern) => antMatch(pattern, lower));
}

/** A folder's child as a listing names it, hidden when the format keeps it (a folder: itself and all below). */
export function visibleChild(
  ctx: Pick<RepositoriesContext, 'formats'>,
  packageType: string,
  folder: string,
  name: string,
): boolean {
  return !isInternalPath(ctx, packageType, folder ? `${folder}/${name}` : name);
}

/** The answer to a generic write aimed at a path a format keeps for itself. */
export function reservedPath(packageType: string, path: string): InvalidError {
  return new InvalidError(
    `'${path}' is reserved by the ${packageType} format: use its client to change it`,
    INVALID_PATH,
  );
}
