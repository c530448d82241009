import { parseDistFilename } from './names.ts';

/**
 * The simple repository API documents: PEP 503 HTML and PEP 691 JSON (api-version 1.1, PEP 700),
 * with PEP 592 yanked files, PEP 658/714 metadata files and `data-requires-python`; and the reader
 * of an upstream's HTML pages (remote repositories).
 */

export const API_VERSION = '1.1';
export const JSON_TYPE = 'application/vnd.pypi.simple.v1+json';
export const HTML_TYPE = 'application/vnd.pypi.simple.v1+html';

export interface DistLink {
  filename: string;
  url: string;
  hashes: Record<string, string>;
  requiresPython?: string;
  /** PEP 658: a metadata file is served at `{url}.metadata`, with its hashes when known */
  metadata?: Record<string, string> | true;
  /** PEP 592: the reason, or true when none was given */
  yanked?: string | true;
  size?: number;
  uploadTime?: string;
}

export interface ProjectPage {
  /** normalised name */
  name: string;
  files: DistLink[];
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const hashAttr = (hashes: Record<string, string>) => {
  const [name, value] =
    Object.entries(hashes).find(([k]) => k === 'sha256') ?? Object.entries(hashes)[0] ?? [];
  return name ? `${name}=${value}` : 'true';
};

export function renderProjectHtml(page: ProjectPage): string {
  const links = page.files.map((f) => {
    const [name, value] =
      Object.entries(f.hashes).find(([k]) => k === 'sha256') ?? Object.entries(f.hashes)[0] ?? [];
    const href = name ? `${f.url}#${name}=${value}` : f.url;
    let attrs = `href="${escapeHtml(href)}"`;
    if (f.requiresPython) attrs += ` data-requires-python="${escapeHtml(f.requiresPython)}"`;
    if (f.metadata) {
      const m = escapeHtml(f.metadata === true ? 'true' : hashAttr(f.metadata));
      attrs += ` data-dist-info-metadata="${m}" data-core-metadata="${m}"`;
    }
    if (f.yanked !== undefined) attrs += ` data-yanked="${f.yanked === true ? '' : escapeHtml(f.yanked)}"`;
    return `    <a ${attrs}>${escapeHtml(f.filename)}</a><br/>`;
  });
  return `<!DOCTYPE html>
<html>
  <head>
    <meta name="pypi:repository-version" content="${API_VERSION}">
    <title>Links for ${escapeHtml(page.name)}</title>
  </head>
  <body>
    <h1>Links for ${escapeHtml(page.name)}</h1>
${links.join('\n')}
  </body>
</html>
`;
}

const versionOf = (filename: string) => parseDistFilename(filename)?.version;

export function renderProjectJson(page: ProjectPage): string {
  const versions = [...new Set(page.files.map((f) => versionOf(f.filename)).filter((v): v is string => !!v))];
  return JSON.stringify({
    meta: { 'api-version': API_VERSION },
    name: page.name,
    versions,
    files: page.files.map((f) => ({
      filename: f.filename,
      url: f.url,
      hashes: f.hashes,
      ...(f.requiresPython ? { 'requires-python': f.requiresPython } : {}),
      // PEP 714: only the new key — pip 23.0 fails on the old `dist-info-metadata` key's hash object.
      'core-metadata': f.metadata ?? false,
      'gpg-sig': false,
      yanked: f.yanked ?? false,
      ...(f.size !== undefined ? { size: f.size } : {}),
      ...(f.uploadTime ? { 'upload-time': f.uploadTime } : {}),
    })),
  });
}

/** The root page: every project, linked by its normalised name. */
export function renderRootHtml(names: string[], linkBase: string): string {
  const links = names.map(
    (n) => `    <a href="${escapeHtml(`${linkBase}/simple/${n}/`)}">${escapeHtml(n)}</a><br/>`,
  );
  return `<!DOCTYPE html>
<html>
  <head>
    <meta name="pypi:repository-version" content="${API_VERSION}">
    <title>Simple index</title>
  </head>
  <body>
${links.join('\n')}
  </body>
</html>
`;
}

export function renderRootJson(names: string[]): string {
  return JSON.stringify({ meta: { 'api-version': API_VERSION }, projects: names.map((name) => ({ name })) });
}

/**
 * PEP 691 content negotiation: the best of the JSON and HTML forms the Accept header allows
 * (q-values honoured, `?format=` overrides); HTML when nothing is said. null: nothing acceptable (406).
 */
export function negotiate(accept: string | undefined, format?: string): 'json' | 'html' | null {
  if (format) {
    const f = format.toLowerCase();
    if (f === JSON_TYPE || f === 'application/vnd.pypi.simple.latest+json') return 'json';
    if (f === HTML_TYPE || f === 'application/vnd.pypi.simple.latest+html' || f === 'text/html')
      return 'html';
  }
  if (!accept) return 'html';
  const offers: { type: 'json' | 'html'; q: number; order: number }[] = [];
  accept.split(',').forEach((part, order) => {
    const [media = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const qParam = params.find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    if (!Number.isFinite(q) || q <= 0) return;
    if (media === JSON_TYPE || media === 'application/vnd.pypi.simple.latest+json')
      offers.push({ type: 'json', q, order });
    else if (
      media === HTML_TYPE ||
      media === 'application/vnd.pypi.simple.latest+html' ||
      media === 'text/html' ||
      media === 'text/*' ||
      media === '*/*' ||
      media === 'application/*'
    )
      offers.push({ type: 'html', q: media.includes('*') ? q - 0.0001 : q, order });
  });
  if (offers.length === 0) return null;
  offers.sort((a, b) => b.q - a.q || a.order - b.order);
  return offers[0]!.type;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

export function unescapeHtml(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) => {
    if (e[0] === '#') {
      const code = e[1] === 'x' || e[1] === 'X' ? Number.parseInt(e.slice(2), 16) : Number(e.slice(1));
      return Number.isFinite(code) && code > 0 && code < 0x110000 ? String.fromCodePoint(code) : m;
    }
    return ENTITIES[e.toLowerCase()] ?? m;
  });
}

export interface Anchor {
  href: string;
  text: string;
  attrs: Map<string, string>;
}

/** The `<a>` elements of an HTML page (the simple API's pages are flat lists of anchors). */
export function parseAnchors(html: string): Anchor[] {
  const out: Anchor[] = [];
  const re = /<a\s([^>]*)>([\s\S]*?)<\/a\s*>/gi;
  for (let m = re.exec(html); m; m = re.exec(html)) {
    const attrs = new Map<string, string>();
    const attrRe = /([^\s=/>]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g;
    for (let a = attrRe.exec(m[1]!); a; a = attrRe.exec(m[1]!))
      attrs.set(a[1]!.toLowerCase(), unescapeHtml(a[2] ?? a[3] ?? a[4] ?? ''));
    const href = attrs.get('href');
    if (!href) continue;
    out.push({ href, text: unescapeHtml(m[2]!.replace(/<[^>]*>/g, '')).trim(), attrs });
  }
  return out;
}

const parseHashAttr = (value: string): Record<string, string> | true => {
  const m = /^([a-z0-9_]+)=([0-9a-f]+)$/i.exec(value.trim());
  return m ? { [m[1]!.toLowerCase()]: m[2]!.toLowerCase() } : true;
};

/** An upstream project page as links with absolute URLs (resolved against the page's URL). */
export function parseProjectHtml(html: string, pageUrl: string, name: string): ProjectPage {
  const files: DistLink[] = [];
  for (const a of parseAnchors(html)) {
    let url: URL;
    try {
      url = new URL(a.href, pageUrl);
    } catch {
      continue;
    }
    const hashes: Record<string, string> = {};
    const fragment = /^#([a-z0-9_]+)=([0-9a-f]+)$/i.exec(url.hash);
    if (fragment) hashes[fragment[1]!.toLowerCase()] = fragment[2]!.toLowerCase();
    url.hash = '';
    const filename = a.text || decodeURIComponent(url.pathname.split('/').at(-1) ?? '');
    if (!parseDistFilename(filename)) continue;
    const link: DistLink = { filename, url: url.toString(), hashes };
    const rp = a.attrs.get('data-requires-python');
    if (rp) link.requiresPython = rp;
    const meta = a.attrs.get('data-core-metadata') ?? a.attrs.get('data-dist-info-metadata');
    if (meta !== undefined && meta.toLowerCase() !== 'false') link.metadata = parseHashAttr(meta);
    const yanked = a.attrs.get('data-yanked');
    if (yanked !== undefined) link.yanked = yanked === '' ? true : yanked;
    files.push(link);
  }
  return { name, files };
}

/** Project names of an upstream root page. */
export function parseRootHtml(html: string): string[] {
  return parseAnchors(html)
    .map((a) => a.text)
    .filter(Boolean);
}
