import { EXCLUDED_PACKAGE_TYPES, PACKAGE_TYPE_ALIASES } from '@granary/contracts';
import { cargoFormat } from './cargo/index.ts';
import { debianFormat } from './debian/index.ts';
import { dockerFormat } from './docker/index.ts';
import { genericFormat } from './generic/index.ts';
import { goFormat } from './go/index.ts';
import { gradleFormat, mavenFormat } from './maven/index.ts';
import { npmFormat } from './npm/index.ts';
import { pypiFormat } from './pypi/index.ts';
import { rpmFormat } from './rpm/index.ts';
import type { PackageFormat } from './sdk/format.ts';
import { swiftFormat } from './swift/index.ts';
import { terraformFormat } from './terraform/index.ts';

/** The explicit list of formats this server runs. Add a format here; nothing is discovered. */
const FORMATS: readonly PackageFormat[] = [
  genericFormat,
  dockerFormat,
  npmFormat,
  pypiFormat,
  mavenFormat,
  gradleFormat,
  goFormat,
  cargoFormat,
  terraformFormat,
  swiftFormat,
  debianFormat,
  rpmFormat,
];

export interface FormatRegistry {
  get(idOrAlias: string): PackageFormat | undefined;
  list(): readonly PackageFormat[];
}

/** Builds the registry; a duplicate id or alias fails at boot, naming both formats. */
export function createFormatRegistry(formats: readonly PackageFormat[] = FORMATS): FormatRegistry {
  const byName = new Map<string, PackageFormat>();
  const claim = (name: string, format: PackageFormat) => {
    const key = name.toLowerCase();
    const taken = byName.get(key);
    if (taken)
      throw new Error(`Package format "${format.id}" claims "${name}", already taken by "${taken.id}"`);
    byName.set(key, format);
  };
  for (const format of formats) {
    if ((EXCLUDED_PACKAGE_TYPES as readonly string[]).includes(format.id)) {
      throw new Error(`Package type "${format.id}" is excluded (spec 001 §9)`);
    }
    claim(format.id, format);
    for (const alias of format.aliases) claim(alias, format);
  }
  return {
    get(idOrAlias) {
      const key = idOrAlias.toLowerCase();
      return byName.get(key) ?? byName.get(PACKAGE_TYPE_ALIASES[key] ?? '');
    },
    list: () => formats,
  };
}
