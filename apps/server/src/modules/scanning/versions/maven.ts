import { compareDigits } from './natural.ts';

/**
 * Maven's version order (maven-artifact's ComparableVersion, as in Maven 3.8/3.9 before combination
 * items): a version is a list of items — numbers, qualifiers, and sub-lists opened by `-` or by a
 * switch between digits and letters. Known qualifiers order alpha < beta < milestone < rc <
 * snapshot < (release) < sp; unknown ones sort after them, alphabetically; numbers sort after every
 * qualifier. Trailing zeros and release qualifiers of each list are dropped (1.0 = 1 = 1-ga).
 */
type Item = { kind: 'int'; value: string } | { kind: 'str'; value: string } | { kind: 'list'; items: Item[] };

const QUALIFIERS = ['alpha', 'beta', 'milestone', 'rc', 'snapshot', '', 'sp'];
const RELEASE_INDEX = String(QUALIFIERS.indexOf(''));
const ALIASES: Record<string, string> = { ga: '', final: '', release: '', cr: 'rc' };

function stringItem(value: string, followedByDigit: boolean): Item {
  let v = value;
  if (followedByDigit && v.length === 1)
    v = v === 'a' ? 'alpha' : v === 'b' ? 'beta' : v === 'm' ? 'milestone' : v;
  return { kind: 'str', value: ALIASES[v] ?? v };
}

function comparableQualifier(q: string): string {
  const i = QUALIFIERS.indexOf(q);
  return i === -1 ? `${QUALIFIERS.length}-${q}` : String(i);
}

const cmpStr = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function isNull(item: Item): boolean {
  if (item.kind === 'int') return item.value === '0';
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

function parseItem(isDigit: boolean, buf: string): Item {
  return isDigit ? { kind: 'int', value: buf.replace(/^0+/, '') || '0' } : stringItem(buf, false);
}

/** Parses a Maven version into ComparableVersion's item list. */
export function parseMaven(version: string): Item {
  const v = version.toLowerCase();
  const root: Item & { kind: 'list' } = { kind: 'list', items: [] };
  let list = root;
  const stack = [root];
  let isDigit = false;
  let start = 0;
  const open = () => {
    const next: Item & { kind: 'list' } = { kind: 'list', items: [] };
    list.items.push(next);
    list = next;
    stack.push(next);
  };
  for (let i = 0; i < v.length; i++) {
    const c = v[i]!;
    if (c === '.') {
      list.items.push(i === start ? { kind: 'int', value: '0' } : parseItem(isDigit, v.slice(start, i)));
      start = i + 1;
    } else if (c === '-') {
      list.items.push(i === start ? { kind: 'int', value: '0' } : parseItem(isDigit, v.slice(start, i)));
      start = i + 1;
      open();
    } else if (c >= '0' && c <= '9') {
      if (!isDigit && i > start) {
        list.items.push(stringItem(v.slice(start, i), true));
        start = i;
        open();
      }
      isDigit = true;
    } else {
      if (isDigit && i > start) {
        list.items.push(parseItem(true, v.slice(start, i)));
        start = i;
        open();
      }
      isDigit = false;
    }
  }
  if (v.length > start) list.items.push(parseItem(isDigit, v.slice(start)));
  while (stack.length > 0) normalize(stack.pop()!.items);
  return root;
}

function compareItem(a: Item, b: Item | null): number {
  if (a.kind === 'int') {
    if (b === null) return a.value === '0' ? 0 : 1;
    if (b.kind === 'int') return compareDigits(a.value, b.value);
    return 1; // a number is newer than a qualifier or a sub-list
  }
  if (a.kind === 'str') {
    if (b === null) return cmpStr(comparableQualifier(a.value), RELEASE_INDEX);
    if (b.kind === 'str') return cmpStr(comparableQualifier(a.value), comparableQualifier(b.value));
    return -1;
  }
  if (b === null) {
    for (const item of a.items) {
      const r = compareItem(item, null);
      if (r !== 0) return r;
    }
    return 0;
  }
  if (b.kind === 'int') return -1;
  if (b.kind === 'str') return 1;
  const n = Math.max(a.items.length, b.items.length);
  for (let i = 0; i < n; i++) {
    const l = a.items[i] ?? null;
    const r = b.items[i] ?? null;
    const result = l === null ? (r === null ? 0 : -compareItem(r, l)) : compareItem(l, r);
    if (result !== 0) return result;
  }
  return 0;
}

/** Maven's order: negative, zero or positive as `a` sorts before, with or after `b`. */
export function compareMaven(a: string, b: string): number {
  return Math.sign(compareItem(parseMaven(a.trim()), parseMaven(b.trim())));
}
