import type { PackageMetadata, StoredFile } from '../sdk/format.ts';
import { isPackagePath } from './index-builder.ts';
import {
  displayVersion,
  RpmFormatError,
  type RpmPackageInfo,
  readRpmPackage,
  rpmFileName,
} from './rpm-header.ts';

/** The packages index entry of a package: `version-release` (with `epoch:`), summary, licence, requirements. */
export function rpmMetadata(info: RpmPackageInfo): PackageMetadata {
  return {
    name: info.name,
    version: displayVersion(info),
    leadFile: true,
    ...(info.summary ? { description: info.summary } : {}),
    ...(info.license ? { licenses: [info.license] } : {}),
    // %description: the long text the console shows as the package's readme
    ...(info.description && info.description !== info.summary ? { readme: info.description } : {}),
    dependencies: info.requires.map((d) => ({
      name: d.name,
      ...(d.flags
        ? {
            range: `${{ LT: '<', GT: '>', EQ: '=', LE: '<=', GE: '>=' }[d.flags]} ${d.epoch && d.epoch !== '0' ? `${d.epoch}:` : ''}${d.ver ?? ''}${d.rel ? `-${d.rel}` : ''}`,
          }
        : {}),
      ...(d.pre ? { scope: 'pre' } : {}),
    })),
  };
}

/**
 * `PackageFormat.extractMetadata` of RPM: a package file (`….rpm` outside `repodata/`) whose header
 * reads and whose name is the one its header gives is a package version; nothing else is.
 */
export async function extractRpmMetadata(file: StoredFile): Promise<PackageMetadata | null> {
  if (!isPackagePath(file.path)) return null;
  try {
    const info = await readRpmPackage(await file.open(), file.size);
    if (file.path.slice(file.path.lastIndexOf('/') + 1) !== rpmFileName(info)) return null;
    return rpmMetadata(info);
  } catch (err) {
    if (err instanceof RpmFormatError) return null;
    throw err;
  }
}
