import { compareDigits } from './natural.ts';

/**
 * apk's version order (Alpine; apk-tools' `version.c`):
 * `digits{.digits}[letter]{_suffix[digits]}[~hash][-rN]`. Numbers compare by value, except that a
 * component after a dot with a leading zero compares as text (1.01 < 1.1); one letter sorts after
 * none; `_alpha`, `_beta`, `_pre`, `_rc` sort before the release and `_cvs`, `_svn`, `_git`, `_hg`,
 * `_p` after; `-rN` is the package revision. Where a version stops being valid, the comparison stops
 * there and the part that comes next decides, as apk does.
 */
const T = {
  InitialDigit: 0,
  Digit: 1,
  Letter: 2,
  Suffix: 3,
  SuffixNo: 4,
  CommitHash: 5,
  RevisionNo: 6,
  End: 7,
  Invalid: 8,
} as const;
type Token = (typeof T)[keyof typeof T];

const SUFFIXES = ['alpha', 'beta', 'pre', 'rc', '', 'cvs', 'svn', 'git', 'hg', 'p'];
const SUFFIX_NONE = SUFFIXES.indexOf('');

interface State {
  s: string;
  p: number;
  token: Token;
  value: string;
  suffix: number;
}

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';

function parseDigits(t: State): void {
  const start = t.p;
  while (isDigit(t.s[t.p])) t.p++;
  t.value = t.s.slice(start, t.p);
  if (t.value.length === 0) t.token = T.Invalid;
}

function first(s: string): State {
  const t: State = { s, p: 0, token: T.InitialDigit, value: '', suffix: -1 };
  parseDigits(t);
  return t;
}

function span(t: State, re: RegExp): string {
  const start = t.p;
  while (t.p < t.s.length && re.test(t.s[t.p]!)) t.p++;
  return t.s.slice(start, t.p);
}

function invalid(t: State): void {
  t.token = T.Invalid;
}

function next(t: State): void {
  if (t.p >= t.s.length) {
    t.token = T.End;
    return;
  }
  const c = t.s[t.p]!;
  if (c >= 'a' && c <= 'z') {
    if (t.token > T.Digit) {
      invalid(t);
      return;
    }
    t.value = c;
    t.token = T.Letter;
    t.p++;
  } else if (c === '.' || isDigit(c)) {
    if (c === '.') {
      if (t.token > T.Digit) {
        invalid(t);
        return;
      }
      t.p++;
    }
    if (t.token === T.InitialDigit || t.token === T.Digit) t.token = T.Digit;
    else if (t.token === T.Suffix) t.token = T.SuffixNo;
    else {
      invalid(t);
      return;
    }
    parseDigits(t);
  } else if (c === '_') {
    if (t.token > T.SuffixNo) {
      invalid(t);
      return;
    }
    t.p++;
    t.value = span(t, /[a-z]/);
    t.suffix = t.value === '' ? -1 : SUFFIXES.indexOf(t.value);
    if (t.suffix < 0 || t.suffix === SUFFIX_NONE) {
      invalid(t);
      return;
    }
    t.token = T.Suffix;
  } else if (c === '~') {
    if (t.token >= T.CommitHash) {
      invalid(t);
      return;
    }
    t.p++;
    t.value = span(t, /[0-9a-f]/);
    if (t.value === '') {
      invalid(t);
      return;
    }
    t.token = T.CommitHash;
  } else if (c === '-') {
    if (t.token >= T.RevisionNo || t.s[t.p + 1] !== 'r') {
      invalid(t);
      return;
    }
    t.p += 2;
    t.token = T.RevisionNo;
    parseDigits(t);
  } else {
    t.token = T.Invalid;
  }
}

const sortText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function tokenCmp(a: State, b: State): number {
  switch (a.token) {
    case T.Digit:
      if (a.value[0] === '0' || b.value[0] === '0') return sortText(a.value, b.value);
      return compareDigits(a.value, b.value);
    case T.InitialDigit:
    case T.SuffixNo:
    case T.RevisionNo:
      return compareDigits(a.value, b.value);
    case T.Letter:
      return sortText(a.value, b.value);
    case T.Suffix:
      return a.suffix < b.suffix ? -1 : a.suffix > b.suffix ? 1 : 0;
    default:
      return sortText(a.value, b.value);
  }
}

/** Whether apk reads `version` as valid. */
export function isValidApk(version: string): boolean {
  const t = first(version);
  while (t.token < T.End) next(t);
  return t.token === T.End;
}

/** apk's order of two versions. */
export function compareApk(a: string, b: string): number {
  const ta = first(a.trim());
  const tb = first(b.trim());
  while (ta.token === tb.token && ta.token < T.End) {
    const r = tokenCmp(ta, tb);
    if (r !== 0) return r;
    next(ta);
    next(tb);
  }
  if (ta.token === tb.token) return 0;
  if (ta.token === T.Suffix && ta.suffix < SUFFIX_NONE) return -1;
  if (tb.token === T.Suffix && tb.suffix < SUFFIX_NONE) return 1;
  if (ta.token > tb.token) return -1;
  if (tb.token > ta.token) return 1;
  return 0;
}
