const TYPES: Record<string, string> = {
  txt: 'text/plain; charset=utf-8',
  md: 'text/markdown; charset=utf-8',
  html: 'text/html; charset=utf-8',
  htm: 'text/html; charset=utf-8',
  xhtml: 'application/xhtml+xml',
  svg: 'image/svg+xml',
  xml: 'application/xml',
  pom: 'application/xml',
  xsl: 'application/xml',
  json: 'application/json',
  js: 'text/javascript',
  css: 'text/css',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  pdf: 'application/pdf',
  zip: 'application/zip',
  jar: 'application/java-archive',
  war: 'application/java-archive',
  gz: 'application/gzip',
  tgz: 'application/gzip',
  tar: 'application/x-tar',
  whl: 'application/zip',
  sha1: 'text/plain; charset=utf-8',
  sha256: 'text/plain; charset=utf-8',
  md5: 'text/plain; charset=utf-8',
};

/** Content type from a file name's extension; `application/octet-stream` when unknown. */
export function mimeTypeOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return (dot >= 0 && TYPES[name.slice(dot + 1).toLowerCase()]) || 'application/octet-stream';
}

/** Types a browser would render as a page (and run scripts in): served as attachments. */
export function isActiveContent(mimeType: string): boolean {
  const t = mimeType.split(';')[0]!.trim().toLowerCase();
  return (
    t === 'text/html' ||
    t === 'image/svg+xml' ||
    t.endsWith('/xml') ||
    t.endsWith('+xml') ||
    t === 'text/javascript'
  );
}
