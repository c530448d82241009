import semver from 'semver';
import type { Component } from '../model.ts';
import { normaliseLicenses } from './licenses.ts';
import { component } from './purls.ts';

/** A `package.json` as the scanner reads it. */
export interface NpmManifest {
  name: string;
  version: string;
  licenses: string[];
  /** `dependencies` and `optionalDependencies`: name → range */
  dependencies: Record<string, string>;
}

const licenseText = (v: unknown): string | null =>
  typeof v === 'string'
    ? v
    : v && typeof v === 'object' && typeof (v as { type?: unknown }).type === 'string'
      ? (v as { type: string }).type
      : null;

/** A package.json's name, version, licences (`license`, or the old `licenses` array) and dependencies; null when it is no package's. */
export function parsePackageJson(bytes: Buffer): NpmManifest | null {
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(bytes.toString('utf8').replace(/^\uFEFF/, ''));
  } catch {
    return null;
  }
  if (!doc || typeof doc !== 'object') return null;
  const { name, version } = doc;
  if (typeof name !== 'string' || typeof version !== 'string' || !name || !version) return null;
  const raw: (string | null)[] = [licenseText(doc.license)];
  if (Array.isArray(doc.licenses)) {
    const all = doc.licenses.map(licenseText).filter((l): l is string => !!l);
    // The old array lists alternatives: one expression `A OR B`.
    raw.push(all.length > 1 ? `(${all.join(' OR ')})` : (all[0] ?? null));
  }
  const dependencies: Record<string, string> = {};
  for (const field of ['dependencies', 'optionalDependencies'])
    for (const [k, v] of Object.entries((doc[field] ?? {}) as Record<string, unknown>))
      if (typeof v === 'string') dependencies[k] = v;
  return { name, version, licenses: normaliseLicenses(raw), dependencies };
}

/** The component of a package.json found at `location`. */
export const npmComponent = (m: NpmManifest, location: string): Component =>
  component('npm', m.name, m.version, { licenses: m.licenses, location });

/** A declared range that names one version exactly (`1.2.3`, `=1.2.3`, `v1.2.3`): that version. */
export function exactVersion(range: string): string | null {
  const v = range.trim().replace(/^=\s*/, '');
  return semver.valid(v);
}
