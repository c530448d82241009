/** What a go.mod says that the repository needs: its `module` path and its `require` directives. */
export interface GoMod {
  module: string | null;
  requires: { path: string; version: string; indirect: boolean }[];
}

const unquote = (s: string) => (/^".*"$|^`.*`$/.test(s) ? s.slice(1, -1) : s);

/** Reads the `module` and `require` directives of a go.mod (line and block forms, comments ignored). */
export function parseGoMod(text: string): GoMod {
  const out: GoMod = { module: null, requires: [] };
  let block: string | null = null;
  for (const raw of text.split(/\r?\n/)) {
    const comment = raw.indexOf('//');
    const indirect = comment >= 0 && /^\/\/\s*indirect\b/.test(raw.slice(comment).trim());
    const line = (comment >= 0 ? raw.slice(0, comment) : raw).trim();
    if (!line) continue;
    if (block) {
      if (line === ')') {
        block = null;
        continue;
      }
      if (block === 'require') {
        const [path, version] = line.split(/\s+/);
        if (path && version) out.requires.push({ path: unquote(path), version, indirect });
      }
      continue;
    }
    const m = /^(\w+)\s*(.*)$/.exec(line);
    if (!m) continue;
    const [, verb, args = ''] = m;
    if (args === '(') {
      block = verb!;
      continue;
    }
    if (verb === 'module') out.module = unquote(args.trim());
    else if (verb === 'require') {
      const [path, version] = args.split(/\s+/);
      if (path && version) out.requires.push({ path: unquote(path), version, indirect });
    }
  }
  return out;
}
