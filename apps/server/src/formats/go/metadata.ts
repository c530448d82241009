import { readAtMost } from '../../platform/archives/bounded-archive.ts';
import type { PackageMetadata, StoredFile } from '../sdk/format.ts';
import { parseGoMod } from './gomod.ts';
import { isCanonicalVersion, parseGoPath } from './module.ts';
import { GO_LIMITS, type ModuleZip, ModuleZipError, readModuleZip } from './module-zip.ts';

/** The licence a LICENSE file's text names (the common ones), or null when it is not recognised. */
export function licenseOf(text: string): string | null {
  const t = text.slice(0, 4096).replace(/\s+/g, ' ');
  if (/Apache License,? Version 2\.0/i.test(t)) return 'Apache-2.0';
  if (/Mozilla Public License,? (Version|v\.?) ?2\.0/i.test(t)) return 'MPL-2.0';
  if (/GNU LESSER GENERAL PUBLIC LICENSE/i.test(t)) return /Version 3/i.test(t) ? 'LGPL-3.0' : 'LGPL-2.1';
  if (/GNU AFFERO GENERAL PUBLIC LICENSE/i.test(t)) return 'AGPL-3.0';
  if (/GNU GENERAL PUBLIC LICENSE/i.test(t)) return /Version 3/i.test(t) ? 'GPL-3.0' : 'GPL-2.0';
  if (/Permission is hereby granted, free of charge/i.test(t)) return 'MIT';
  if (/Permission to use, copy, modify, and\/or distribute this software/i.test(t)) return 'ISC';
  if (/Redistribution and use in source and binary forms/i.test(t))
    return /Neither the name|names of its contributors/i.test(t) ? 'BSD-3-Clause' : 'BSD-2-Clause';
  if (/This is free and unencumbered software released into the public domain/i.test(t)) return 'Unlicense';
  return null;
}

/** The packages index entry of a module version, from its zip's go.mod, LICENSE and README. */
export function moduleMetadata(module: string, version: string, zip: ModuleZip): PackageMetadata {
  const mod = zip.goMod ? parseGoMod(zip.goMod.toString('utf8')) : null;
  const license = zip.license ? licenseOf(zip.license.toString('utf8')) : null;
  const readme = zip.readme?.toString('utf8');
  return {
    name: module,
    version,
    leadFile: true,
    ...(license ? { licenses: [license] } : {}),
    dependencies: (mod?.requires ?? []).map((r) => ({
      name: r.path,
      range: r.version,
      ...(r.indirect ? { scope: 'indirect' } : {}),
    })),
    ...(readme ? { readme } : {}),
  };
}

/**
 * `PackageFormat.extractMetadata` of Go (spec 001 §9: a version's lead file is its `.zip`, not its
 * `.mod`): a module zip stored at `{module}/@v/{version}.zip` is a package version; nothing else is.
 */
export async function extractGoMetadata(file: StoredFile): Promise<PackageMetadata | null> {
  let parsed: ReturnType<typeof parseGoPath>;
  try {
    parsed = parseGoPath(file.path);
  } catch {
    return null;
  }
  if (parsed?.kind !== 'file' || parsed.ext !== 'zip' || !isCanonicalVersion(parsed.version)) return null;
  if (file.size > GO_LIMITS.zipBytes) return null;
  try {
    const bytes = await readAtMost(await file.open(), GO_LIMITS.zipBytes, 'the module zip');
    return moduleMetadata(
      parsed.module,
      parsed.version,
      await readModuleZip(bytes, parsed.module, parsed.version),
    );
  } catch (err) {
    if (err instanceof ModuleZipError || (err as Error).name === 'ArchiveError') return null;
    if (err instanceof Error && /larger than/.test(err.message)) return null;
    throw err;
  }
}
