import type { Readable } from 'node:stream';

/** A stream of bytes read whole: a request body, a stored file, an archive entry, an upstream's answer. */
export type ByteSource = AsyncIterable<unknown> & { destroy(): unknown; resume?(): unknown };

export interface BoundedReadOptions {
  /**
   * The length the sender announced (Content-Length): over the limit is refused before a byte is
   * read, the bytes left to flow away unbuffered.
   */
  announced?: string | string[] | number;
  /**
   * What happens to the unread rest when the limit is passed or reading fails: `destroy` (default)
   * stops the source; `drain` (a `Readable` only) lets it flow away unbuffered, so the socket of a
   * request stays open to carry the error answer.
   */
  rest?: 'destroy' | 'drain';
}

/**
 * The one bounded reader (issue 13 §5): reads `source` whole, at most `max` bytes. Past the limit
 * `tooLarge()` is thrown — each caller's error in its client's shape (OCI, npm, an archive limit, an
 * upstream error) — and nothing more is buffered.
 */
export async function readBounded(
  source: ByteSource,
  max: number,
  tooLarge: () => Error,
  opts: BoundedReadOptions = {},
): Promise<Buffer> {
  const announced = Array.isArray(opts.announced) ? undefined : opts.announced;
  if (announced !== undefined && /^\d+$/.test(String(announced)) && Number(announced) > max) {
    source.resume?.();
    throw tooLarge();
  }
  const drain = opts.rest === 'drain';
  const chunks: Buffer[] = [];
  let total = 0;
  let ended = false;
  try {
    // Draining: leaving the loop early must not destroy the stream.
    for await (const chunk of drain ? (source as Readable).iterator({ destroyOnReturn: false }) : source) {
      const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
      total += buf.length;
      if (total > max) throw tooLarge();
      chunks.push(buf);
    }
    ended = true;
  } finally {
    if (!ended) {
      if (drain) source.resume?.();
      else source.destroy();
    }
  }
  return Buffer.concat(chunks, total);
}
