import { normaliseLicense } from '../scanning/components/licenses.ts';
import { parsePom } from '../scanning/components/maven-pom.ts';

/** One dependency a manifest pins: OSV's ecosystem name, the package, its exact version, a licence when told. */
export interface ManifestComponent {
  manifest: string;
  ecosystem: 'npm' | 'PyPI' | 'Maven' | 'Go';
  name: string;
  version: string;
  license: string | null;
}

/** Whether a repository's root file is a dependency manifest this scan reads (issue 18). */
export function isManifest(path: string): boolean {
  const base = path.split('/').pop() ?? path;
  return (
    base === 'package-lock.json' ||
    /^requirements.*\.txt$/i.test(base) ||
    base === 'pyproject.toml' ||
    base === 'pom.xml' ||
    base === 'go.sum'
  );
}

/** The pinned dependencies of one manifest; an unreadable one yields none. */
export function parseManifest(path: string, text: string): ManifestComponent[] {
  const base = path.split('/').pop() ?? path;
  const out: ManifestComponent[] = [];
  const add = (
    ecosystem: ManifestComponent['ecosystem'],
    name: string,
    version: string,
    license?: unknown,
  ) => {
    if (!name || !version) return;
    out.push({
      manifest: path,
      ecosystem,
      name,
      version,
      license: typeof license === 'string' ? normaliseLicense(license) : null,
    });
  };
  if (base === 'package-lock.json') {
    let lock: {
      packages?: Record<string, { version?: string; license?: unknown; name?: string; link?: boolean }>;
      dependencies?: Record<string, { version?: string }>;
    };
    try {
      lock = JSON.parse(text);
    } catch {
      return [];
    }
    if (lock.packages) {
      // lockfile v2/v3: "node_modules/a/node_modules/@s/b" → the last node_modules segment names it.
      for (const [key, p] of Object.entries(lock.packages)) {
        if (!key || p.link || !p.version) continue;
        const name = p.name ?? key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length);
        add('npm', name, p.version, p.license);
      }
    } else {
      const walk = (deps: Record<string, { version?: string; dependencies?: never }> | undefined) => {
        for (const [name, d] of Object.entries(deps ?? {})) {
          if (d.version && /^\d/.test(d.version)) add('npm', name, d.version);
          walk(d.dependencies);
        }
      };
      walk(lock.dependencies);
    }
  } else if (/^requirements.*\.txt$/i.test(base)) {
    for (const raw of text.split(/\r?\n/)) {
      const line = raw.replace(/\s#.*$/, '').trim();
      const m = /^([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?\s*===?\s*([A-Za-z0-9.!+_-]+)/.exec(line);
      if (m) add('PyPI', m[1]!, m[2]!);
    }
  } else if (base === 'pyproject.toml') {
    // PEP 621 `dependencies = ["a==1.0", …]` and Poetry's `a = "1.0"` pins (exact versions only).
    for (const m of text.matchAll(
      /["']([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?\s*===?\s*([A-Za-z0-9.!+_-]+)/g,
    ))
      add('PyPI', m[1]!, m[2]!);
    for (const m of text.matchAll(/^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*=\s*["'](\d[A-Za-z0-9.!+_-]*)["']/gm))
      if (m[1] !== 'version' && m[1] !== 'python') add('PyPI', m[1]!, m[2]!);
  } else if (base === 'pom.xml') {
    for (const d of parsePom(Buffer.from(text))?.dependencies ?? [])
      add('Maven', `${d.groupId}:${d.artifactId}`, d.version);
  } else if (base === 'go.sum') {
    for (const line of text.split(/\r?\n/)) {
      const [mod, ver] = line.trim().split(/\s+/);
      if (!mod || !ver) continue;
      add('Go', mod, ver.replace(/\/go\.mod$/, '').replace(/^v/, ''));
    }
  }
  const seen = new Set<string>();
  return out.filter((c) => {
    const k = `${c.ecosystem}\u0000${c.name}\u0000${c.version}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
