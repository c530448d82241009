/**
 * Debian control data (deb822, Debian Policy §5.1): paragraphs of `Field: value` lines, a value
 * continued on lines that start with a space or a tab. The field order of a paragraph is kept, so a
 * package's control paragraph is written into `Packages` as its maintainer wrote it.
 */

export type Paragraph = [field: string, value: string][];

/** The paragraphs of a control text; a line that is neither a field nor a continuation is an error. */
export function parseParagraphs(text: string): Paragraph[] {
  const out: Paragraph[] = [];
  let current: Paragraph = [];
  const flush = () => {
    if (current.length) out.push(current);
    current = [];
  };
  for (const raw of text.replace(/\r\n/g, '\n').split('\n')) {
    if (raw.trim() === '') {
      flush();
      continue;
    }
    if (raw.startsWith('#')) continue;
    if (raw.startsWith(' ') || raw.startsWith('\t')) {
      const last = current.at(-1);
      if (!last) throw new Error(`a continuation line before any field: "${raw.trim()}"`);
      last[1] = `${last[1]}\n${raw}`;
      continue;
    }
    const colon = raw.indexOf(':');
    if (colon <= 0 || !/^[!-9;-~][!-9;-~]*$/.test(raw.slice(0, colon)))
      throw new Error(`not a control field: "${raw.slice(0, 80)}"`);
    current.push([raw.slice(0, colon), raw.slice(colon + 1).trim()]);
  }
  flush();
  return out;
}

/** A field's value (field names are case-insensitive), or undefined. */
export function field(p: Paragraph, name: string): string | undefined {
  const lower = name.toLowerCase();
  return p.find(([k]) => k.toLowerCase() === lower)?.[1];
}

/** The paragraph as text, one field a line (continuations kept), ending in a newline. */
export function renderParagraph(p: Paragraph): string {
  return p.map(([k, v]) => `${k}: ${v}\n`).join('');
}

/** The paragraph without the fields named (case-insensitive), e.g. a control file's own Filename. */
export function without(p: Paragraph, names: readonly string[]): Paragraph {
  const drop = new Set(names.map((n) => n.toLowerCase()));
  return p.filter(([k]) => !drop.has(k.toLowerCase()));
}

/** Package names (Debian Policy §5.6.1): lower case letters, digits, `+ - .`, two or more, a letter or digit first. */
export const isPackageName = (name: string) => /^[a-z0-9][a-z0-9+.-]+$/.test(name);

/** Versions (Debian Policy §5.6.12): `[epoch:]upstream[-revision]`, no white space. */
export const isVersion = (v: string) => /^(\d+:)?[0-9][A-Za-z0-9.+~:-]*$/.test(v) && v.length <= 256;

/** Architectures as dpkg names them (`amd64`, `all`, `linux-any`, `arm64`…). */
export const isArchitecture = (a: string) => /^[a-z0-9][a-z0-9-]*$/.test(a);

/** Distribution and component names as they appear in `dists/` paths (`bookworm`, `stable-updates`, `main`, `non-free`). */
export const isSuiteName = (s: string) => /^[A-Za-z0-9][A-Za-z0-9._+-]*$/.test(s) && s.length <= 100;

/**
 * The relations of a `Depends` value (`a (>= 1), b | c`), as the packages index lists them:
 * each alternative group is one dependency named after its first package.
 */
export function parseDepends(value: string | undefined): { name: string; range?: string }[] {
  if (!value) return [];
  const out: { name: string; range?: string }[] = [];
  for (const group of value.replace(/\s+/g, ' ').split(',')) {
    const first = group.split('|')[0]?.trim();
    if (!first) continue;
    const m = /^([a-z0-9][a-z0-9+.-]*)(?::[a-z0-9-]+)?\s*(?:\(([^)]*)\))?/.exec(first);
    if (!m) continue;
    const range = m[2]?.replace(/\s+/g, ' ').trim();
    out.push(range ? { name: m[1]!, range } : { name: m[1]! });
  }
  return out;
}
