import { compareDigits, compareNatural } from './natural.ts';

/**
 * NuGet's order (NuGetVersion with VersionComparer.Default): SemVer 2.0 with up to four numeric parts
 * (a missing part is 0: 1.0 = 1.0.0 = 1.0.0.0), pre-release labels compared part by part — numbers by
 * value before text, text case-insensitively — a version without a label after one with; build
 * metadata after `+` ignored.
 */
interface NuGetVersion {
  parts: string[];
  labels: string[];
}

function parseNuGet(version: string): NuGetVersion | null {
  const m =
    /^\s*[vV]?(\d+(?:\.\d+){0,3})(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z.-]*)?\s*$/.exec(
      version,
    );
  if (!m) return null;
  const parts = m[1]!.split('.');
  while (parts.length < 4) parts.push('0');
  return { parts, labels: m[2] ? m[2].split('.') : [] };
}

function compareLabel(a: string, b: string): number {
  const an = /^\d+$/.test(a);
  const bn = /^\d+$/.test(b);
  if (an && bn) return compareDigits(a, b);
  if (an) return -1;
  if (bn) return 1;
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  return x < y ? -1 : x > y ? 1 : 0;
}

/** NuGet's order of two versions (an unreadable one falls back to the natural order). */
export function compareNuGet(a: string, b: string): number {
  const x = parseNuGet(a);
  const y = parseNuGet(b);
  if (!x || !y) return compareNatural(a.toLowerCase(), b.toLowerCase());
  for (let i = 0; i < 4; i++) {
    const c = compareDigits(x.parts[i]!, y.parts[i]!);
    if (c !== 0) return c;
  }
  if (x.labels.length === 0 || y.labels.length === 0) {
    return x.labels.length === y.labels.length ? 0 : x.labels.length === 0 ? 1 : -1;
  }
  const n = Math.max(x.labels.length, y.labels.length);
  for (let i = 0; i < n; i++) {
    const l = x.labels[i];
    const r = y.labels[i];
    if (l === undefined) return -1;
    if (r === undefined) return 1;
    const c = compareLabel(l, r);
    if (c !== 0) return c;
  }
  return 0;
}
