/**
 * A last-resort order for versions no ecosystem rule can read: runs of digits compare as numbers,
 * other runs as text, a missing part sorts first. Total and stable, so a range still evaluates.
 */
export function compareNatural(a: string, b: string): number {
  const pa = a.match(/\d+|[^\d.\-_+]+/g) ?? [];
  const pb = b.match(/\d+|[^\d.\-_+]+/g) ?? [];
  const n = Math.max(pa.length, pb.length);
  for (let i = 0; i < n; i++) {
    const x = pa[i];
    const y = pb[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    const dx = /^\d/.test(x);
    const dy = /^\d/.test(y);
    if (dx && dy) {
      const c = compareDigits(x, y);
      if (c !== 0) return c;
    } else if (dx !== dy) {
      return dx ? 1 : -1;
    } else if (x !== y) {
      return x < y ? -1 : 1;
    }
  }
  return 0;
}

/** Compares two runs of decimal digits by value, whatever their length (no precision loss). */
export function compareDigits(x: string, y: string): number {
  const a = x.replace(/^0+/, '');
  const b = y.replace(/^0+/, '');
  if (a.length !== b.length) return a.length < b.length ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

export const sign = (n: number): number => (n < 0 ? -1 : n > 0 ? 1 : 0);
