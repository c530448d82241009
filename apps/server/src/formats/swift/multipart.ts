import { SwiftError } from './errors.ts';

/**
 * The multipart/form-data body `swift package-registry publish` sends (SE-0391): named parts
 * (`source-archive`, `source-archive-signature`, `metadata`, `metadata-signature`), binary, with no
 * file names — kept as bytes. The body was read whole within the publish limit; the parts are bounded
 * by it.
 */
export function boundaryOf(contentType: string | undefined): string | null {
  if (!contentType || !/^multipart\/form-data\s*;/i.test(contentType)) return null;
  const m = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  const boundary = m?.[1] ?? m?.[2];
  return boundary && boundary.length <= 200 ? boundary : null;
}

export function parseMultipart(body: Buffer, boundary: string): Map<string, Buffer> {
  const parts = new Map<string, Buffer>();
  const delimiter = Buffer.from(`--${boundary}`);
  let at = body.indexOf(delimiter);
  if (at < 0) throw new SwiftError(400, 'The publish body has no multipart boundary');
  for (;;) {
    at += delimiter.length;
    if (body.subarray(at, at + 2).toString() === '--') return parts;
    const headerEnd = body.indexOf('\r\n\r\n', at);
    if (headerEnd < 0) throw new SwiftError(400, 'A multipart part has no end of headers');
    const headers = body.subarray(at, headerEnd).toString('utf8');
    const name = /content-disposition\s*:\s*form-data\s*;[^\r\n]*?\bname="([^"]*)"/i.exec(headers)?.[1];
    if (name === undefined) throw new SwiftError(400, 'A multipart part has no form-data name');
    const next = body.indexOf(Buffer.from(`\r\n--${boundary}`), headerEnd + 4);
    if (next < 0) throw new SwiftError(400, 'The multipart body ended early');
    if (parts.has(name)) throw new SwiftError(400, `The part '${name}' is sent twice`);
    if (parts.size >= 16) throw new SwiftError(400, 'Too many multipart parts');
    parts.set(name, body.subarray(headerEnd + 4, next));
    at = next + 2;
  }
}
