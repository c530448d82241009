import type { Stats } from 'node:fs';
import { type FileHandle, open, readdir } from 'node:fs/promises';
import path from 'node:path';
import {
  LOG_DEFAULT_REFRESH_MS,
  LOG_READ_MAX_BYTES,
  LOG_SERVICES,
  type LogConfig,
  type LogData,
} from '@granary/contracts';
import { InvalidError, NotFoundError } from '../../platform/errors.ts';
import { LOG_FILES, type Logging } from '../../platform/logger/index.ts';

/** A log file's name as the logger writes it: `server.log`, and its rotations `server.1.log`, `server.2.log`, … */
const LOG_NAME = /^([a-z][a-z0-9_-]{0,63})(?:\.(\d{1,4}))?\.log$/;

/** A log file's identity on disk: it stays with the file when it is renamed by a rotation. */
function identityOf(st: Stats): string {
  return `${st.ino.toString(36)}-${Math.round(st.birthtimeMs).toString(36)}`;
}

function sortKey(name: string): [number, string, number] {
  const m = LOG_NAME.exec(name)!;
  const known = (LOG_FILES as readonly string[]).indexOf(m[1]!);
  return [known < 0 ? LOG_FILES.length : known, m[1]!, m[2] ? Number(m[2]) : 0];
}

/**
 * This node's log files under `$GRANARY_HOME/logs`, for the live log viewer (spec 001 §2, §7): the
 * list, and a read from an offset on. A file is found by looking its id up in the directory's listing,
 * so nothing from a request is ever joined to a path.
 */
export class LogFiles {
  constructor(
    private readonly logging: Pick<Logging, 'dir' | 'flush'>,
    private readonly now: () => number = Date.now,
    readonly refreshRateMillis: number = LOG_DEFAULT_REFRESH_MS,
  ) {}

  /** The service's log files, current ones first (server, request, security, then others), each followed by its rotations. */
  async list(): Promise<string[]> {
    const names = await readdir(this.logging.dir).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return [] as string[];
      throw err;
    });
    return names
      .filter((n) => LOG_NAME.test(n))
      .sort((a, b) => {
        const [ka, kb] = [sortKey(a), sortKey(b)];
        return ka[0] - kb[0] || ka[1].localeCompare(kb[1]) || ka[2] - kb[2];
      });
  }

  async config(): Promise<LogConfig> {
    return { logs: await this.list(), refresh_rate_millis: this.refreshRateMillis };
  }

  /**
   * The content of log `id` from byte `offset` on: at most `LOG_READ_MAX_BYTES`, ending at a line's end
   * when more follows. A fresh view (`offset` 0) starts at the last `LOG_READ_MAX_BYTES` of a long file.
   * Across rotation: when `fileId` names a file that has since been rotated, the rest of that file comes
   * first and then the new file from its start; without it, a file now smaller than `offset` restarts at 0.
   */
  async read(id: string, offset: number, fileId?: string): Promise<LogData> {
    const names = await this.list();
    const name = names.find((n) => n === id);
    if (!name) {
      if (/[/\\]|\.\./.test(id))
        throw new InvalidError(`'${id}' is not a log file name: give a name from the list`);
      throw new NotFoundError(`No log file '${id}' on this node`);
    }
    this.logging.flush();
    const current = await this.readFrom(name, offset, fileId, names);
    return { ...current, last_update_label: this.now() };
  }

  private async readFrom(
    name: string,
    offset: number,
    fileId: string | undefined,
    names: string[],
  ): Promise<Omit<LogData, 'last_update_label'>> {
    const base = LOG_NAME.exec(name)![1];
    // The file and, when it is a current one, its rotations: oldest first, the file itself last.
    const chain = [
      ...names.filter((n) => n !== name && LOG_NAME.exec(n)![1] === base && sortKey(n)[2] > sortKey(name)[2]),
    ].sort((a, b) => sortKey(b)[2] - sortKey(a)[2]);
    chain.push(name);
    let from = chain.length - 1;
    const opened = new Map<number, { file: FileHandle; st: Stats }>();
    const openAt = async (i: number) => {
      if (!opened.has(i)) {
        const file = await open(path.join(this.logging.dir, chain[i]!), 'r').catch(
          (err: NodeJS.ErrnoException) => {
            if (err.code === 'ENOENT') return null;
            throw err;
          },
        );
        if (!file) return null;
        opened.set(i, { file, st: await file.stat() });
      }
      return opened.get(i)!;
    };
    try {
      const self = await openAt(from);
      if (!self) throw new NotFoundError(`Log file '${name}' was removed`);
      if (fileId && fileId !== identityOf(self.st)) {
        // The file the viewer was reading was rotated: go on from where it stopped in it, through
        // the rotations that followed, to the file itself.
        let found = -1;
        for (let i = 0; i < chain.length - 1 && found < 0; i++) {
          const f = await openAt(i);
          if (f && identityOf(f.st) === fileId && offset <= f.st.size) found = i;
        }
        if (found >= 0) from = found;
        else offset = 0;
      } else if (offset > self.st.size) {
        offset = 0;
      }
      let text = '';
      let budget = LOG_READ_MAX_BYTES;
      for (let i = from; ; i++) {
        const f = await openAt(i);
        if (!f) continue;
        const start = i === from ? offset : 0;
        // A fresh view of the file itself starts at its tail.
        const chunk = await readChunk(f.file, f.st.size, start, budget, i === from && start === 0 && !fileId);
        text += chunk.text;
        budget -= chunk.end - start;
        if (chunk.end < f.st.size || i === chain.length - 1) {
          return {
            log_content: text,
            file_size: chunk.end,
            last_update_modified: f.st.mtimeMs,
            file_id: identityOf(f.st),
          };
        }
      }
    } finally {
      await Promise.all([...opened.values()].map((f) => f.file.close()));
    }
  }
}

/**
 * Bytes `[start, size)` of an open file, at most `max`; when more follows, cut after the last newline
 * (if any), so the next read starts on a line. `tail`: start at the last `max` bytes instead, on a line.
 */
async function readChunk(
  file: FileHandle,
  size: number,
  start: number,
  max: number,
  tail: boolean,
): Promise<{ text: string; end: number }> {
  if (max <= 0 || start >= size) return { text: '', end: Math.min(start, size) };
  let from = start;
  if (tail && size - start > max) from = size - max;
  const length = Math.min(size - from, max);
  const buf = Buffer.alloc(length);
  const { bytesRead } = await file.read(buf, 0, length, from);
  let bytes = buf.subarray(0, bytesRead);
  if (tail && from > start) {
    const nl = bytes.indexOf(0x0a);
    if (nl >= 0) {
      bytes = bytes.subarray(nl + 1);
      from += nl + 1;
    }
  }
  if (from + bytes.length < size) {
    const nl = bytes.lastIndexOf(0x0a);
    if (nl >= 0) bytes = bytes.subarray(0, nl + 1);
  }
  return { text: bytes.toString('utf8'), end: from + bytes.length };
}

/** The log service named by a request's `logType`: only this server's (`granary`) has logs. */
export function checkLogService(logType: string): void {
  if (!(LOG_SERVICES as readonly string[]).includes(logType)) {
    throw new NotFoundError(`No service '${logType}': logs are kept for ${LOG_SERVICES.join(', ')}`);
  }
}
