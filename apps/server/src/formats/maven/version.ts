/**
 * Maven's version order (the algorithm of Maven's ComparableVersion): numbers compare as numbers,
 * qualifiers in the order alpha < beta < milestone < rc < snapshot < (release) < sp, anything else after
 * those alphabetically; `-` opens a sub-list, trailing zeros and empty qualifiers are ignored
 * (`1.0` = `1`, `1-ga` = `1`).
 */

type Item = { kind: 'int'; value: bigint } | { kind: 'str'; value: string } | { kind: 'list'; items: Item[] };

const QUALIFIERS = ['alpha', 'beta', 'milestone', 'rc', 'snapshot', '', 'sp'];
const ALIASES: Record<string, string> = { ga: '', final: '', release: '', cr: 'rc' };
const RELEASE_INDEX = String(QUALIFIERS.indexOf(''));

function comparableQualifier(q: string): string {
  const i = QUALIFIERS.indexOf(q);
  return i === -1 ? `${QUALIFIERS.length}-${q}` : String(i);
}

function stringItem(value: string, followedByDigit: boolean): Item {
  let v = value;
  if (followedByDigit && v.length === 1)
    v = ({ a: 'alpha', b: 'beta', m: 'milestone' } as Record<string, string>)[v] ?? v;
  return { kind: 'str', value: ALIASES[v] ?? v };
}

const parseItem = (digit: boolean, s: string): Item =>
  digit ? { kind: 'int', value: BigInt(s) } : stringItem(s, false);

function isNull(item: Item): boolean {
  if (item.kind === 'int') return item.value === 0n;
  if (item.kind === 'str') return comparableQualifier(item.value) === RELEASE_INDEX;
  return item.items.length === 0;
}

function normalize(list: Item[]): void {
  for (let i = list.length - 1; i >= 0; i--) {
    const last = list[i]!;
    if (isNull(last)) list.splice(i, 1);
    else if (last.kind !== 'list') break;
  }
}

function parse(version: string): Item[] {
  const v = version.toLowerCase();
  const root: Item[] = [];
  let list = root;
  const stack: Item[][] = [root];
  let digit = false;
  let start = 0;
  const open = () => {
    const next: Item[] = [];
    list.push({ kind: 'list', items: next });
    list = next;
    stack.push(next);
  };
  for (let i = 0; i < v.length; i++) {
    const c = v[i]!;
    if (c === '.') {
      list.push(i === start ? { kind: 'int', value: 0n } : parseItem(digit, v.slice(start, i)));
      start = i + 1;
    } else if (c === '-') {
      list.push(i === start ? { kind: 'int', value: 0n } : parseItem(digit, v.slice(start, i)));
      start = i + 1;
      open();
    } else if (c >= '0' && c <= '9') {
      if (!digit && i > start) {
        list.push(stringItem(v.slice(start, i), true));
        start = i;
        open();
      }
      digit = true;
    } else {
      if (digit && i > start) {
        list.push(parseItem(true, v.slice(start, i)));
        start = i;
        open();
      }
      digit = false;
    }
  }
  if (v.length > start) list.push(parseItem(digit, v.slice(start)));
  while (stack.length > 0) normalize(stack.pop()!);
  return root;
}

function compareItem(a: Item, b: Item | null): number {
  if (a.kind === 'int') {
    if (b === null) return a.value === 0n ? 0 : 1;
    if (b.kind === 'int') return a.value === b.value ? 0 : a.value < b.value ? -1 : 1;
    return 1;
  }
  if (a.kind === 'str') {
    const qa = comparableQualifier(a.value);
    if (b === null) return qa < RELEASE_INDEX ? -1 : qa > RELEASE_INDEX ? 1 : 0;
    if (b.kind === 'int' || b.kind === 'list') return -1;
    const qb = comparableQualifier(b.value);
    return qa < qb ? -1 : qa > qb ? 1 : 0;
  }
  if (b === null) return a.items.length === 0 ? 0 : compareItem(a.items[0]!, null);
  if (b.kind === 'int') return -1;
  if (b.kind === 'str') return 1;
  return compareLists(a.items, b.items);
}

function compareLists(a: Item[], b: Item[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const l = a[i] ?? null;
    const r = b[i] ?? null;
    const result = l === null ? (r === null ? 0 : -compareItem(r, l)) : compareItem(l, r);
    if (result !== 0) return result;
  }
  return 0;
}

const parsed = new Map<string, Item[]>();

/** Negative when `a` sorts before `b` in Maven's order, 0 when equal, positive after. */
export function compareMavenVersions(a: string, b: string): number {
  const get = (v: string) => {
    let items = parsed.get(v);
    if (!items) {
      if (parsed.size > 10_000) parsed.clear();
      items = parse(v);
      parsed.set(v, items);
    }
    return items;
  };
  return compareLists(get(a), get(b));
}
