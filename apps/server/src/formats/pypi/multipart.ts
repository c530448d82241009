import type { Readable } from 'node:stream';

/**
 * A streaming multipart/form-data reader for the legacy upload API (what twine sends): form fields
 * are collected as text, the one file part as bytes. Bounded everywhere: header block, field size,
 * all fields together, part count, and the file.
 */

export class MultipartError extends Error {
  constructor(
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

export interface MultipartLimits {
  fileBytes: number;
  fieldBytes: number;
  totalFieldBytes: number;
  parts: number;
  headerBytes: number;
}

export const DEFAULT_LIMITS: MultipartLimits = {
  fileBytes: 100 * 1024 * 1024,
  fieldBytes: 4 * 1024 * 1024,
  totalFieldBytes: 8 * 1024 * 1024,
  parts: 1000,
  headerBytes: 16 * 1024,
};

export interface MultipartForm {
  fields: Map<string, string[]>;
  file?: { field: string; filename: string; content: Buffer };
}

/** The boundary of a multipart/form-data content type, or null. */
export function boundaryOf(contentType: string | undefined): string | null {
  if (!contentType || !/^multipart\/form-data\s*;/i.test(contentType)) return null;
  const m = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  const boundary = m?.[1] ?? m?.[2];
  return boundary && boundary.length <= 200 ? boundary : null;
}

function dispositionOf(headers: string): { name: string; filename?: string } {
  const line = headers.split('\r\n').find((l) => /^content-disposition\s*:/i.test(l));
  if (!line || !/:\s*form-data\b/i.test(line))
    throw new MultipartError('A form part has no form-data Content-Disposition');
  const param = (key: string) => {
    const m =
      new RegExp(`;\\s*${key}="((?:[^"\\\\]|\\\\.)*)"`, 'i').exec(line) ??
      new RegExp(`;\\s*${key}=([^;\\s]+)`, 'i').exec(line);
    return m?.[1]?.replace(/\\(.)/g, '$1');
  };
  const name = param('name');
  if (name === undefined) throw new MultipartError('A form part has no name');
  const filename = param('filename');
  return { name, ...(filename !== undefined ? { filename } : {}) };
}

export async function readMultipart(
  body: Readable,
  boundary: string,
  limits: MultipartLimits = DEFAULT_LIMITS,
): Promise<MultipartForm> {
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  const fields = new Map<string, string[]>();
  let file: MultipartForm['file'];
  // The body starts with `--boundary`: a leading CRLF makes every delimiter alike.
  let buf: Buffer = Buffer.from('\r\n');
  type State = 'preamble' | 'after-delimiter' | 'headers' | 'body' | 'done';
  let state = 'preamble' as State;
  let part: { name: string; filename?: string; chunks: Buffer[]; size: number } | undefined;
  let parts = 0;
  let fieldBytes = 0;

  const take = (data: Buffer) => {
    if (!part || data.length === 0) return;
    part.size += data.length;
    if (part.filename !== undefined) {
      if (part.size > limits.fileBytes)
        throw new MultipartError(`The file is larger than ${limits.fileBytes} bytes`, 413);
    } else {
      fieldBytes += data.length;
      if (part.size > limits.fieldBytes)
        throw new MultipartError(`Form field '${part.name}' is too large`, 413);
      if (fieldBytes > limits.totalFieldBytes) throw new MultipartError('The form fields are too large', 413);
    }
    part.chunks.push(data);
  };
  const finishPart = () => {
    if (!part) return;
    const content = Buffer.concat(part.chunks);
    if (part.filename !== undefined) {
      if (file) throw new MultipartError('Only one file may be uploaded at a time');
      file = { field: part.name, filename: part.filename, content };
    } else {
      const values = fields.get(part.name) ?? [];
      values.push(content.toString('utf8'));
      fields.set(part.name, values);
    }
    part = undefined;
  };

  const step = (): boolean => {
    switch (state) {
      case 'preamble': {
        const at = buf.indexOf(delimiter);
        if (at < 0) {
          if (buf.length > limits.headerBytes) throw new MultipartError('No multipart boundary found');
          return false;
        }
        buf = buf.subarray(at + delimiter.length);
        state = 'after-delimiter';
        return true;
      }
      case 'after-delimiter': {
        if (buf.length < 2) return false;
        if (buf[0] === 0x2d && buf[1] === 0x2d) {
          state = 'done';
          return false;
        }
        // Transport padding (spaces, tabs) may follow a delimiter before its CRLF.
        const eol = buf.indexOf('\r\n');
        if (eol < 0) {
          if (buf.length > 256) throw new MultipartError('Malformed multipart delimiter');
          return false;
        }
        buf = buf.subarray(eol + 2);
        state = 'headers';
        return true;
      }
      case 'headers': {
        const end = buf.indexOf('\r\n\r\n');
        const blank = buf.subarray(0, 2).toString() === '\r\n';
        if (end < 0 && !blank) {
          if (buf.length > limits.headerBytes) throw new MultipartError('A form part header is too large');
          return false;
        }
        const headerEnd = blank ? 0 : end;
        const headers = buf.subarray(0, headerEnd).toString('utf8');
        buf = buf.subarray(headerEnd + (blank ? 2 : 4));
        parts += 1;
        if (parts > limits.parts) throw new MultipartError('Too many form parts');
        part = { ...dispositionOf(headers), chunks: [], size: 0 };
        state = 'body';
        return true;
      }
      case 'body': {
        const at = buf.indexOf(delimiter);
        if (at >= 0) {
          take(buf.subarray(0, at));
          finishPart();
          buf = buf.subarray(at + delimiter.length);
          state = 'after-delimiter';
          return true;
        }
        // Keep a tail that may hold the start of the delimiter.
        const keep = Math.min(buf.length, delimiter.length - 1);
        take(buf.subarray(0, buf.length - keep));
        buf = Buffer.from(buf.subarray(buf.length - keep));
        return false;
      }
      default:
        return false;
    }
  };

  for await (const chunk of body) {
    if (state === 'done') continue;
    buf = buf.length === 0 ? (chunk as Buffer) : Buffer.concat([buf, chunk as Buffer]);
    while (step()) {
      /* advance */
    }
  }
  if (state !== 'done') throw new MultipartError('The multipart body ended early');
  return { fields, ...(file ? { file } : {}) };
}
