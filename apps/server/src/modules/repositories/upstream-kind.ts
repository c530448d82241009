import type { UpstreamKind } from '../../formats/sdk/format.ts';

/**
 * Whether an upstream's answer is the kind of file its path asks for (issue 12 §5): an HTML page (a
 * login wall, a soft 404, a captive portal) where a jar, a pom, a tarball or a wheel is expected is
 * never cached. Decided on the first bytes (magic numbers) and the content type, before anything is
 * stored or sent to the client.
 */

/** How many first bytes are held back to decide. */
export const HEAD_BYTES = 512;

/** The upstream's answer is not what the path asks for: nothing was stored. */
export class UpstreamRefusal extends Error {
  override readonly name = 'UpstreamRefusal';
}

const BY_EXTENSION: [RegExp, UpstreamKind][] = [
  [/\.(?:tgz|tar\.gz|gz)$/i, 'gzip'],
  [/\.(?:jar|war|ear|aar|whl|zip|egg|nupkg)$/i, 'zip'],
  [/\.(?:tbz2?|bz2)$/i, 'bzip2'],
  [/\.(?:pom|xml)$/i, 'xml'],
];

/** The kind of file a path's extension names, or null when it names none this check knows. */
export function kindOfPath(path: string): UpstreamKind | null {
  const name = path.split('/').at(-1) ?? '';
  return BY_EXTENSION.find(([re]) => re.test(name))?.[1] ?? null;
}

const WHAT: Record<UpstreamKind, string> = {
  gzip: 'a gzip archive',
  zip: 'a zip archive',
  bzip2: 'a bzip2 archive',
  xml: 'an XML document',
  json: 'a JSON document',
};

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);

/** The text after a UTF-8 byte-order mark and leading white space, lower-cased (the first bytes only). */
function leadingText(head: Buffer): string {
  let start = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
  while (start < head.length && /\s/.test(String.fromCharCode(head[start]!))) start += 1;
  return head
    .subarray(start, start + 64)
    .toString('latin1')
    .toLowerCase();
}

const looksLikeHtml = (text: string) => /^<(?:!doctype\s+html|html[\s>]|head[\s>]|body[\s>])/.test(text);

/**
 * Why `head` (the first bytes of the answer) and its content type are not `kind`, or null when they
 * fit: "an HTML page where a zip archive was expected".
 */
export function kindRefusal(kind: UpstreamKind, head: Buffer, contentType: string | null): string | null {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  const text = leadingText(head);
  const html = HTML_TYPES.has(type) || looksLikeHtml(text);
  let fits: boolean;
  switch (kind) {
    case 'gzip':
      fits = head[0] === 0x1f && head[1] === 0x8b;
      break;
    case 'zip':
      // A local file header, or the end of central directory record of an empty archive.
      fits =
        head[0] === 0x50 && head[1] === 0x4b && (head[2] === 3 || head[2] === 5) && head[3] === head[2] + 1;
      break;
    case 'bzip2':
      fits = head.subarray(0, 3).toString('latin1') === 'BZh';
      break;
    case 'xml':
      fits = text.startsWith('<');
      break;
    case 'json':
      fits = text.startsWith('{') || text.startsWith('[');
      break;
  }
  if (fits && !html) return null;
  const got = html
    ? 'an HTML page'
    : head.length === 0
      ? 'an empty body'
      : `content that is not ${WHAT[kind]}${type ? ` (${type})` : ''}`;
  return `${got} where ${WHAT[kind]} was expected`;
}
