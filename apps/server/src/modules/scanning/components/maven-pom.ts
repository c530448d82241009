import { child, children, parseXml, text, type XmlElement } from '../../../formats/maven/xml.ts';
import { normaliseLicense } from './licenses.ts';

/** A jar's `META-INF/maven/{g}/{a}/pom.properties`: its GAV. */
export function parsePomProperties(
  bytes: Buffer,
): { groupId: string; artifactId: string; version: string } | null {
  const props: Record<string, string> = {};
  for (const line of bytes.toString('utf8').split(/\r?\n/)) {
    const t = line.trim();
    if (!t || t.startsWith('#') || t.startsWith('!')) continue;
    const m = /^([^=:\s]+)\s*[=:]\s*(.*)$/.exec(t);
    if (m) props[m[1]!] = m[2]!.trim();
  }
  const { groupId, artifactId, version } = props;
  return groupId && artifactId && version ? { groupId, artifactId, version } : null;
}

/** Licence URLs that say which licence a POM means when its `<name>` does not. */
const LICENSE_URLS: [RegExp, string][] = [
  [/apache\.org\/licenses\/LICENSE-2\.0/i, 'Apache-2.0'],
  [/opensource\.org\/licenses\/MIT/i, 'MIT'],
  [/eclipse\.org\/legal\/epl-2\.0/i, 'EPL-2.0'],
  [/eclipse\.org\/legal\/epl-v10/i, 'EPL-1.0'],
  [/opensource\.org\/licenses\/BSD-3-Clause/i, 'BSD-3-Clause'],
];

export interface Pom {
  groupId: string;
  artifactId: string;
  version: string;
  licenses: string[];
  /** declared dependencies (not test-scoped) whose version is a literal or a resolved property */
  dependencies: { groupId: string; artifactId: string; version: string }[];
}

/** `${…}` references resolved from the POM's own coordinates and `<properties>`; null when one is unknown. */
function resolver(props: Map<string, string>) {
  return (value: string | undefined): string | null => {
    if (!value) return null;
    let out = value;
    for (let depth = 0; depth < 5 && out.includes('${'); depth++)
      out = out.replace(/\$\{([^}]+)\}/g, (whole, key: string) => props.get(key) ?? whole);
    return out.includes('${') ? null : out;
  };
}

/** A POM's licences (`<licenses><license><name|url>`), normalised. */
export function pomLicenses(project: XmlElement | undefined): string[] {
  const out: string[] = [];
  for (const l of children(child(project, 'licenses'), 'license')) {
    const name = text(l, 'name');
    const url = text(l, 'url');
    const byUrl = url ? LICENSE_URLS.find(([re]) => re.test(url))?.[1] : undefined;
    const n = name ? normaliseLicense(name) : (byUrl ?? (url ? normaliseLicense(url) : null));
    if (n && !out.includes(n)) out.push(n);
  }
  return out;
}

/**
 * A POM: its GAV (groupId and version inherited from `<parent>`), licences and declared
 * dependencies. `${project.version}` and the POM's own properties are resolved; a version that is a
 * range or names an unknown property is left out.
 */
export function parsePom(bytes: Buffer): Pom | null {
  let project: XmlElement;
  try {
    project = parseXml(bytes);
  } catch {
    return null;
  }
  if (project.name !== 'project') return null;
  const parent = child(project, 'parent');
  const props = new Map<string, string>();
  const rawGroup = text(project, 'groupId') ?? text(parent, 'groupId');
  const rawVersion = text(project, 'version') ?? text(parent, 'version');
  const artifactId = text(project, 'artifactId');
  for (const p of child(project, 'properties')?.children ?? [])
    if (typeof p !== 'string') props.set(p.name, text(p) ?? '');
  const parentVersion = text(parent, 'version');
  const parentGroup = text(parent, 'groupId');
  if (parentVersion) props.set('project.parent.version', parentVersion).set('parent.version', parentVersion);
  if (parentGroup) props.set('project.parent.groupId', parentGroup).set('parent.groupId', parentGroup);
  const resolve = resolver(props);
  const groupId = resolve(rawGroup);
  const version = resolve(rawVersion);
  if (!groupId || !artifactId || !version) return null;
  for (const prefix of ['project.', 'pom.', '']) {
    props.set(`${prefix}version`, version);
    props.set(`${prefix}groupId`, groupId);
    props.set(`${prefix}artifactId`, artifactId);
  }
  const dependencies: Pom['dependencies'] = [];
  for (const d of children(child(project, 'dependencies'), 'dependency')) {
    if (text(d, 'scope') === 'test') continue;
    const g = resolve(text(d, 'groupId'));
    const a = resolve(text(d, 'artifactId'));
    const v = resolve(text(d, 'version'));
    // A range (`[1.0,2.0)`) is no version; a missing one comes from dependencyManagement elsewhere.
    if (!g || !a || !v || /[[\](),]/.test(v)) continue;
    dependencies.push({ groupId: g, artifactId: a, version: v });
  }
  return { groupId, artifactId, version, licenses: pomLicenses(project), dependencies };
}
