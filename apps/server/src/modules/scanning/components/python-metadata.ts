import { licenseFromClassifier, normaliseLicense } from './licenses.ts';

/** A wheel's METADATA or an sdist's PKG-INFO (core metadata, RFC 822 headers) as the scanner reads it. */
export interface PythonMetadata {
  name: string;
  version: string;
  licenses: string[];
  /** `Requires-Dist` pinned with `==` (and no `extra` marker): name → version */
  pinned: Record<string, string>;
}

/** The headers of core metadata: name (lower-case) → values, continuation lines joined. */
function headers(text: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  let last: string[] | undefined;
  for (const line of text.split(/\r?\n/)) {
    if (line === '') break; // the body (the description) follows the first empty line
    if (/^[ \t]/.test(line) && last) {
      last[last.length - 1] += `\n${line.trim()}`;
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const key = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    const values = out.get(key) ?? [];
    out.set(key, values);
    values.push(value);
    last = values;
  }
  return out;
}

/** Core metadata → name, version, licences (License-Expression, else licence classifiers, else a short License), pinned requirements. */
export function parsePythonMetadata(bytes: Buffer): PythonMetadata | null {
  const h = headers(bytes.toString('utf8').replace(/^\uFEFF/, ''));
  const name = h.get('name')?.[0];
  const version = h.get('version')?.[0];
  if (!name || !version) return null;
  let licenses: string[] = [];
  const expression = h.get('license-expression')?.[0];
  if (expression) licenses = [normaliseLicense(expression)].filter((l): l is string => !!l);
  if (licenses.length === 0)
    for (const c of h.get('classifier') ?? []) {
      const l = licenseFromClassifier(c);
      if (l && !licenses.includes(l)) licenses.push(l);
    }
  const license = h.get('license')?.[0];
  // `License` often holds the whole licence text: only a short one-line value names a licence.
  if (licenses.length === 0 && license && !license.includes('\n') && license.length <= 100) {
    const l = normaliseLicense(license);
    if (l) licenses.push(l);
  }
  const pinned: Record<string, string> = {};
  for (const req of h.get('requires-dist') ?? []) {
    const [spec, marker] = req.split(';');
    if (marker && /\bextra\s*==/.test(marker)) continue;
    const m =
      /^([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*\(?\s*==\s*([A-Za-z0-9._+!-]+)\s*\)?\s*$/.exec(
        spec!.trim(),
      );
    if (m && !m[2]!.includes('*')) pinned[m[1]!] = m[2]!;
  }
  return { name, version, licenses, pinned };
}
