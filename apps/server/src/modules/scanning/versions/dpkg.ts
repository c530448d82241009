import { sign } from './natural.ts';

/**
 * dpkg's version order (Debian Policy §5.6.12; dpkg's `verrevcmp`): `[epoch:]upstream[-revision]`,
 * the epoch compared as a number, then upstream and revision alternately by non-digit runs (letters
 * first, then other characters; `~` before anything, even the end) and digit runs by value.
 */
export interface DpkgVersion {
  epoch: number;
  upstream: string;
  revision: string;
}

export function parseDpkg(version: string): DpkgVersion {
  let v = version.trim();
  let epoch = 0;
  const colon = v.indexOf(':');
  if (colon > 0 && /^\d+$/.test(v.slice(0, colon))) {
    epoch = Number(v.slice(0, colon));
    v = v.slice(colon + 1);
  }
  const dash = v.lastIndexOf('-');
  return dash >= 0
    ? { epoch, upstream: v.slice(0, dash), revision: v.slice(dash + 1) }
    : { epoch, upstream: v, revision: '' };
}

const isDigit = (c: number): boolean => c >= 48 && c <= 57;
const isAlpha = (c: number): boolean => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);

/** The weight of one character in a non-digit run (`NaN` past the end is 0). */
function order(c: number): number {
  if (Number.isNaN(c) || isDigit(c)) return 0;
  if (isAlpha(c)) return c;
  if (c === 126 /* ~ */) return -1;
  return c + 256;
}

/** dpkg's `verrevcmp` of one part (upstream or revision). */
export function verrevcmp(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    let firstDiff = 0;
    while ((i < a.length && !isDigit(a.charCodeAt(i))) || (j < b.length && !isDigit(b.charCodeAt(j)))) {
      const ac = order(a.charCodeAt(i));
      const bc = order(b.charCodeAt(j));
      if (ac !== bc) return ac - bc;
      i++;
      j++;
    }
    while (a.charCodeAt(i) === 48) i++;
    while (b.charCodeAt(j) === 48) j++;
    while (isDigit(a.charCodeAt(i)) && isDigit(b.charCodeAt(j))) {
      if (!firstDiff) firstDiff = a.charCodeAt(i) - b.charCodeAt(j);
      i++;
      j++;
    }
    if (isDigit(a.charCodeAt(i))) return 1;
    if (isDigit(b.charCodeAt(j))) return -1;
    if (firstDiff) return firstDiff;
  }
  return 0;
}

/** dpkg's order of two whole versions. */
export function compareDpkg(a: string, b: string): number {
  const x = parseDpkg(a);
  const y = parseDpkg(b);
  if (x.epoch !== y.epoch) return x.epoch < y.epoch ? -1 : 1;
  const r = verrevcmp(x.upstream, y.upstream);
  if (r !== 0) return sign(r);
  return sign(verrevcmp(x.revision, y.revision));
}
