/**
 * Gradle module metadata (`{artifactId}-{version}.module`, issue 23): the JSON document Gradle 6+
 * publishes beside the POM, describing the component's variants (their attributes, dependencies and
 * files). Gradle reads it in preference to the POM when the POM carries the marker comment
 * `do_not_remove: published-with-gradle-metadata`. A deploy is checked like a POM: a well-formed
 * document of format 1.x whose component is the one its path names; anything else is refused and
 * nothing is stored. The POM stays the file that stands for the version in the packages index (it
 * carries the description and licences the module file has no place for).
 */

export const MAX_MODULE_BYTES = 8 * 1024 * 1024;

export class GradleModuleError extends Error {}

export interface GradleModule {
  formatVersion: string;
  component: { group: string; module: string; version: string };
  variants: {
    name: string;
    dependencies: { group: string; module: string }[];
    files: { name: string; url: string }[];
  }[];
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);

export function parseGradleModule(bytes: Buffer): GradleModule {
  let doc: unknown;
  try {
    doc = JSON.parse(bytes.toString('utf8'));
  } catch (err) {
    throw new GradleModuleError(`not JSON (${(err as Error).message})`);
  }
  if (!isObject(doc)) throw new GradleModuleError('not a Gradle module document (a JSON object)');
  const formatVersion = text(doc.formatVersion);
  if (!formatVersion) throw new GradleModuleError('formatVersion is missing');
  if (!/^1\.\d+$/.test(formatVersion))
    throw new GradleModuleError(`formatVersion ${formatVersion} is not supported (1.x is)`);
  const c = doc.component;
  const component = isObject(c)
    ? { group: text(c.group), module: text(c.module), version: text(c.version) }
    : null;
  if (!component?.group || !component.module || !component.version)
    throw new GradleModuleError('component must name its group, module and version');
  const rawVariants = doc.variants ?? [];
  if (!Array.isArray(rawVariants)) throw new GradleModuleError('variants must be a list');
  const variants = rawVariants.map((v, i) => {
    if (!isObject(v) || !text(v.name)) throw new GradleModuleError(`variants[${i}] has no name`);
    const list = (key: string) => {
      const value = v[key] ?? [];
      if (!Array.isArray(value)) throw new GradleModuleError(`variants[${i}].${key} must be a list`);
      return value.filter(isObject);
    };
    return {
      name: v.name as string,
      dependencies: list('dependencies').map((d) => ({
        group: String(d.group ?? ''),
        module: String(d.module ?? ''),
      })),
      files: list('files').map((f, j) => {
        const name = text(f.name);
        const url = text(f.url);
        // A file's url is relative to the module file; one that climbs out of the repository or names
        // another host is refused (Gradle would fetch it from there).
        if (!name || !url || /^[a-z][a-z0-9+.-]*:|^[/\\]/i.test(url) || url.split(/[/\\]/).includes('..'))
          throw new GradleModuleError(`variants[${i}].files[${j}] must name a file beside the module file`);
        return { name, url };
      }),
    };
  });
  return {
    formatVersion,
    component: component as GradleModule['component'],
    variants,
  };
}
