/**
 * A small reader of the TOML `cargo package` writes into a `.crate` (its normalised Cargo.toml):
 * tables, arrays of tables, dotted and quoted keys, the four kinds of strings, arrays, inline tables,
 * booleans, numbers and dates (kept as text). Not a general TOML validator: it reads what Cargo writes
 * and throws `TomlError` on anything it cannot read.
 */

export class TomlError extends Error {}

type Table = Record<string, unknown>;

const isTable = (v: unknown): v is Table => !!v && typeof v === 'object' && !Array.isArray(v);

const ESCAPES: Record<string, string> = {
  b: '\b',
  t: '\t',
  n: '\n',
  f: '\f',
  r: '\r',
  e: '\x1b',
  '"': '"',
  '\\': '\\',
};

class Reader {
  pos = 0;
  constructor(readonly s: string) {}

  fail(what: string): never {
    const line = this.s.slice(0, this.pos).split('\n').length;
    throw new TomlError(`Cargo.toml line ${line}: ${what}`);
  }

  /** Skips spaces and tabs (and, with `lines`, newlines and comments). */
  skip(lines = false) {
    for (;;) {
      const c = this.s[this.pos];
      if (c === ' ' || c === '\t' || (lines && (c === '\n' || c === '\r'))) this.pos++;
      else if (c === '#') while (this.pos < this.s.length && this.s[this.pos] !== '\n') this.pos++;
      else return;
    }
  }

  endOfLine() {
    this.skip();
    const c = this.s[this.pos];
    if (c === undefined) return;
    if (c === '\n') {
      this.pos++;
      return;
    }
    if (c === '\r' && this.s[this.pos + 1] === '\n') {
      this.pos += 2;
      return;
    }
    this.fail('expected the end of the line');
  }

  key(): string[] {
    const parts: string[] = [];
    for (;;) {
      this.skip();
      const c = this.s[this.pos];
      if (c === '"' || c === "'") parts.push(this.string());
      else {
        const m = /^[A-Za-z0-9_-]+/.exec(this.s.slice(this.pos, this.pos + 256));
        if (!m) this.fail('expected a key');
        parts.push(m[0]);
        this.pos += m[0].length;
      }
      this.skip();
      if (this.s[this.pos] !== '.') return parts;
      this.pos++;
    }
  }

  string(): string {
    const s = this.s;
    if (s.startsWith('"""', this.pos) || s.startsWith("'''", this.pos)) {
      const quote = s.slice(this.pos, this.pos + 3);
      this.pos += 3;
      if (s[this.pos] === '\n') this.pos++;
      else if (s.startsWith('\r\n', this.pos)) this.pos += 2;
      let out = '';
      for (;;) {
        if (this.pos >= s.length) this.fail('unterminated string');
        if (s.startsWith(quote, this.pos)) {
          // Up to two quotes right before the closing three belong to the string.
          let n = 3;
          while (n < 5 && s[this.pos + n] === quote[0]) n++;
          this.pos += n;
          return out + quote[0]!.repeat(n - 3);
        }
        const c = s[this.pos]!;
        if (quote === '"""' && c === '\\') {
          // A line-ending backslash trims the following whitespace.
          const rest = /^\\[ \t]*\r?\n[\s]*/.exec(s.slice(this.pos, this.pos + 4096));
          if (rest) {
            this.pos += rest[0].length;
            continue;
          }
          out += this.escape();
        } else {
          out += c;
          this.pos++;
        }
      }
    }
    const quote = s[this.pos];
    this.pos++;
    let out = '';
    for (;;) {
      const c = s[this.pos];
      if (c === undefined || c === '\n') this.fail('unterminated string');
      if (c === quote) {
        this.pos++;
        return out;
      }
      if (quote === '"' && c === '\\') out += this.escape();
      else {
        out += c;
        this.pos++;
      }
    }
  }

  escape(): string {
    const c = this.s[this.pos + 1];
    if (c && ESCAPES[c] !== undefined) {
      this.pos += 2;
      return ESCAPES[c]!;
    }
    const len = c === 'u' ? 4 : c === 'U' ? 8 : 0;
    const hex = this.s.slice(this.pos + 2, this.pos + 2 + len);
    if (!len || !/^[0-9A-Fa-f]+$/.test(hex) || hex.length !== len) this.fail('bad escape in a string');
    this.pos += 2 + len;
    const cp = Number.parseInt(hex, 16);
    if (cp > 0x10ffff) this.fail('bad escape in a string');
    return String.fromCodePoint(cp);
  }

  value(depth: number): unknown {
    if (depth > 32) this.fail('nested too deeply');
    this.skip();
    const c = this.s[this.pos];
    if (c === '"' || c === "'") return this.string();
    if (c === '[') {
      this.pos++;
      const arr: unknown[] = [];
      for (;;) {
        this.skip(true);
        if (this.s[this.pos] === ']') {
          this.pos++;
          return arr;
        }
        arr.push(this.value(depth + 1));
        this.skip(true);
        if (this.s[this.pos] === ',') this.pos++;
        else if (this.s[this.pos] !== ']') this.fail('expected , or ] in an array');
      }
    }
    if (c === '{') {
      this.pos++;
      const t: Table = {};
      this.skip();
      if (this.s[this.pos] === '}') {
        this.pos++;
        return t;
      }
      for (;;) {
        const k = this.key();
        if (this.s[this.pos] !== '=') this.fail('expected = in an inline table');
        this.pos++;
        assign(t, k, this.value(depth + 1), this);
        this.skip();
        if (this.s[this.pos] === ',') this.pos++;
        else if (this.s[this.pos] === '}') {
          this.pos++;
          return t;
        } else this.fail('expected , or } in an inline table');
      }
    }
    const m = /^[A-Za-z0-9_:.+-]+(?:[ T][0-9:.+\-Z]+)?/.exec(this.s.slice(this.pos, this.pos + 128));
    if (!m) this.fail('expected a value');
    this.pos += m[0].length;
    if (m[0] === 'true') return true;
    if (m[0] === 'false') return false;
    const n = Number(m[0].replaceAll('_', ''));
    return Number.isFinite(n) && /^[+-]?[0-9_]+(\.[0-9_]+)?([eE][+-]?\d+)?$/.test(m[0]) ? n : m[0];
  }
}

function assign(table: Table, key: string[], value: unknown, r: Reader) {
  let t = table;
  for (const part of key.slice(0, -1)) {
    const next = t[part] ?? {};
    if (!isTable(next)) r.fail(`'${key.join('.')}' is not a table`);
    t[part] = next;
    t = next;
  }
  const last = key.at(-1)!;
  if (last in t) r.fail(`'${key.join('.')}' is defined twice`);
  t[last] = value;
}

/** Parses a Cargo.toml; throws TomlError naming the line it cannot read. */
export function parseToml(text: string): Table {
  const r = new Reader(text);
  const root: Table = {};
  let current = root;
  for (;;) {
    r.skip(true);
    if (r.pos >= text.length) return root;
    if (text[r.pos] === '[') {
      const many = text[r.pos + 1] === '[';
      r.pos += many ? 2 : 1;
      const key = r.key();
      if (!text.startsWith(many ? ']]' : ']', r.pos)) r.fail('expected ] after a table name');
      r.pos += many ? 2 : 1;
      let t = root;
      for (const [i, part] of key.entries()) {
        const last = i === key.length - 1;
        let next = t[part];
        if (last && many) {
          if (next === undefined) next = t[part] = [];
          if (!Array.isArray(next)) r.fail(`'${key.join('.')}' is not an array of tables`);
          const entry: Table = {};
          (next as unknown[]).push(entry);
          next = entry;
        } else {
          if (next === undefined) next = t[part] = {};
          if (Array.isArray(next)) next = next.at(-1);
          if (!isTable(next)) r.fail(`'${key.join('.')}' is not a table`);
        }
        t = next as Table;
      }
      current = t;
      r.endOfLine();
      continue;
    }
    const key = r.key();
    if (text[r.pos] !== '=') r.fail('expected =');
    r.pos++;
    assign(current, key, r.value(0), r);
    r.endOfLine();
  }
}
