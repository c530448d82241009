import { zipBomb } from '../../platform/archives/archive-bombs.ts';

export const BOUNDARY = 'granary-swift-boundary';
export const ACCEPT_JSON = 'application/vnd.swift.registry.v1+json';

/** A source archive of `files` (names as given: escapes included, as a hostile upload holds them). */
export const sourceZip = (files: Record<string, string>) =>
  zipBomb(Object.entries(files).map(([name, content]) => ({ name, content })));

/**
 * The body `swift package-registry publish` sends (SE-0391, SwiftPM's RegistryClient): the
 * `source-archive` part, binary, then the `metadata` JSON part, each without a file name.
 */
export function publishBody(archive: Buffer, metadata?: Record<string, unknown>): Buffer {
  const parts: Buffer[] = [
    Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="source-archive"\r\nContent-Type: application/zip\r\nContent-Length: ${archive.length}\r\nContent-Transfer-Encoding: binary\r\n\r\n`,
    ),
    archive,
    Buffer.from('\r\n'),
  ];
  if (metadata) {
    const json = Buffer.from(JSON.stringify(metadata));
    parts.push(
      Buffer.from(
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="metadata"\r\nContent-Type: application/json\r\nContent-Length: ${json.length}\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n`,
      ),
      json,
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(parts);
}

/** The headers SwiftPM publishes with. */
export const publishHeaders = (authorization: string) => ({
  authorization,
  accept: ACCEPT_JSON,
  'content-type': `multipart/form-data;boundary="${BOUNDARY}"`,
  prefer: 'respond-async',
});
