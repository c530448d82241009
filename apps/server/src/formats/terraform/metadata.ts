import { ArchiveError, readAtMost } from '../../platform/archives/bounded-archive.ts';
import type { PackageMetadata, StoredFile } from '../sdk/format.ts';
import { MAX_ARCHIVE_BYTES, type ModuleArchive, moduleDependencies, readModuleArchive } from './archive.ts';
import { type ModuleAddress, moduleId, parseModulePath, parseProviderPath } from './names.ts';

/** The README's first paragraph of prose (headings, badges and HTML skipped), as the description. */
export function readmeSummary(readme: string | undefined): string | undefined {
  if (!readme) return undefined;
  for (const para of readme.split(/\n\s*\n/)) {
    const text = para.trim();
    if (!text || /^(#|!\[|\[!\[|<|```|---|===)/.test(text)) continue;
    return text.replace(/\s+/g, ' ').slice(0, 500);
  }
  return undefined;
}

/** The packages index entry of a module version (`{namespace}/{name}/{provider}`). */
export function moduleMetadata(m: ModuleAddress, version: string, archive: ModuleArchive): PackageMetadata {
  const description = readmeSummary(archive.readme);
  return {
    name: moduleId(m),
    version,
    leadFile: true,
    ...(description ? { description } : {}),
    dependencies: moduleDependencies(archive.rootTf),
    ...(archive.readme ? { readme: archive.readme } : {}),
  };
}

/**
 * `PackageFormat.extractMetadata` of Terraform: a module archive at `{ns}/{name}/{provider}/{version}.zip`
 * is a version of the module `{ns}/{name}/{provider}`; a provider package at
 * `{ns}/{type}/{version}/terraform-provider-…zip` one of the provider `{ns}/{type}`. Nothing else is.
 */
export async function extractTerraformMetadata(file: StoredFile): Promise<PackageMetadata | null> {
  const provider = parseProviderPath(file.path);
  if (provider)
    return { name: `${provider.namespace}/${provider.type}`, version: provider.version, leadFile: true };
  const module = parseModulePath(file.path);
  if (!module || file.size > MAX_ARCHIVE_BYTES) return null;
  try {
    const bytes = await readAtMost(await file.open(), MAX_ARCHIVE_BYTES, 'the module archive');
    return moduleMetadata(module, module.version, await readModuleArchive(bytes, module.kind));
  } catch (err) {
    if (err instanceof ArchiveError) return null;
    if (err instanceof Error && /larger than/.test(err.message)) return null;
    throw err;
  }
}
