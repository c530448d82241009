/**
 * Ant-style path patterns, as permission targets use them: `**` any number of folders, `*` any
 * characters within one path segment, `?` one character. A pattern ending in `/` means the folder
 * and everything below it. Paths are compared without a leading slash.
 */
export function antPatternToRegExp(pattern: string): RegExp {
  let p = pattern.replace(/^\/+/, '');
  if (p.endsWith('/')) p += '**';
  let out = '';
  for (let i = 0; i < p.length; i++) {
    const c = p[i]!;
    if (c === '*' && p[i + 1] === '*') {
      const before = i === 0 || p[i - 1] === '/';
      const after = i + 2 === p.length || p[i + 2] === '/';
      if (before && after) {
        if (i + 2 === p.length) {
          // `dir/**` also matches `dir` itself.
          out = i === 0 ? '.*' : `${out.slice(0, -1)}(?:/.*)?`;
        } else {
          out += '(?:.*/)?';
          i += 1; // also consumes the following '/'
        }
        i += 1;
        continue;
      }
      out += '[^/]*';
      i += 1;
      continue;
    }
    if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else out += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}

const cache = new Map<string, RegExp>();

export function antMatch(pattern: string, path: string): boolean {
  let re = cache.get(pattern);
  if (!re) {
    re = antPatternToRegExp(pattern);
    if (cache.size > 5_000) cache.clear();
    cache.set(pattern, re);
  }
  return re.test(path.replace(/^\/+/, ''));
}
