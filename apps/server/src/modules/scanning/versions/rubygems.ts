import { compareDigits } from './natural.ts';

/**
 * RubyGems' order (Gem::Version#<=>): the version is split into runs of digits and of letters (`-` is
 * read as `.pre.`); trailing zeros of the numeric part and of the pre-release part are dropped; a
 * letter segment is a pre-release and sorts before any number; letters compare as text.
 */
type Segment = string | { n: string };

function segments(version: string): Segment[] {
  const v = version.trim().replaceAll('-', '.pre.');
  const parts = v.match(/[0-9]+|[a-z]+/gi) ?? [];
  return parts.map((p) => (/^\d+$/.test(p) ? { n: p.replace(/^0+/, '') || '0' } : p));
}

const isZero = (s: Segment | undefined): boolean => typeof s === 'object' && s.n === '0';

function canonical(version: string): Segment[] {
  const all = segments(version);
  const firstString = all.findIndex((s) => typeof s === 'string');
  const numeric = firstString === -1 ? all : all.slice(0, firstString);
  const strings = firstString === -1 ? [] : all.slice(firstString);
  const trim = (list: Segment[]) => {
    const out = [...list];
    while (out.length > 0 && isZero(out[out.length - 1])) out.pop();
    return out;
  };
  return [...trim(numeric), ...trim(strings)];
}

/** RubyGems' order of two versions. */
export function compareRubyGems(a: string, b: string): number {
  const l = canonical(a);
  const r = canonical(b);
  const n = Math.max(l.length, r.length);
  for (let i = 0; i < n; i++) {
    const x = l[i] ?? { n: '0' };
    const y = r[i] ?? { n: '0' };
    if (typeof x === 'string' && typeof y === 'string') {
      if (x !== y) return x < y ? -1 : 1;
      continue;
    }
    if (typeof x === 'string') return -1;
    if (typeof y === 'string') return 1;
    const c = compareDigits(x.n, y.n);
    if (c !== 0) return c;
  }
  return 0;
}
