import path from 'node:path';
import { type Logger, type LoggerOptions, multistream, pino, type StreamEntry } from 'pino';
import { redactText, redactValue } from './redact.ts';
import { RotatingFile } from './rotating-file.ts';

/** The service areas that have a log file of their own under `$GRANARY_HOME/logs`. */
export const LOG_FILES = ['server', 'request', 'security'] as const;
export type LogArea = (typeof LOG_FILES)[number];

/** request.log lines are written in batches of about this size (or after a second). */
const REQUEST_LOG_BUFFER_BYTES = 64 * 1024;

let lastMs = 0;
let lastIso = '';
/** The time as pino's isoTime writes it, formatted once per millisecond (request.log at thousands a second). */
function isoNow(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}

export interface LoggingOptions {
  dir: string;
  level: string;
  stdout: boolean;
  maxBytes: number;
  maxFiles: number;
}

export interface Logging {
  /** server.log (and stdout): start-up, errors, background work */
  server: Logger;
  /** request.log: one line per HTTP request */
  request: Logger;
  /**
   * Writes one request.log line as `request.info(fields)` would (same JSON, strings redacted), without
   * the logger's per-line machinery: it ran for every request and cost a tenth of a ping (issue 24).
   */
  writeRequest(fields: Record<string, string | number | null | undefined>): void;
  /** security.log: sign-ins, failures, lockouts, permission denials */
  security: Logger;
  readonly dir: string;
  flush(): void;
  close(): Promise<void>;
}

function baseOptions(level: string, area: LogArea): LoggerOptions {
  return {
    level,
    base: { area },
    timestamp: pino.stdTimeFunctions.isoTime,
    // Secrets never reach a log line: secret-named keys at any depth, credentials in URLs,
    // query strings and Authorization values inside messages and errors.
    hooks: {
      logMethod(args, method) {
        method.apply(this, args.map((a) => redactValue(a)) as Parameters<typeof method>);
      },
    },
  };
}

export function createLogging(opts: LoggingOptions): Logging {
  const files = new Map<LogArea, RotatingFile>(
    LOG_FILES.map((area) => [
      area,
      new RotatingFile(
        path.join(opts.dir, `${area}.log`),
        opts.maxBytes,
        opts.maxFiles,
        area === 'request' ? REQUEST_LOG_BUFFER_BYTES : 0,
      ),
    ]),
  );
  const make = (area: LogArea) => {
    // One destination (request.log, or no stdout) is written straight: multistream costs per line.
    if (!opts.stdout || area === 'request') return pino(baseOptions(opts.level, area), files.get(area)!);
    const streams: StreamEntry[] = [
      { stream: files.get(area)!, level: 'trace' },
      { stream: process.stdout, level: 'trace' },
    ];
    return pino(baseOptions(opts.level, area), multistream(streams));
  };
  const request = make('request');
  const requestFile = files.get('request')!;
  return {
    server: make('server'),
    request,
    writeRequest(fields) {
      if (!request.isLevelEnabled('info')) return;
      // Built as a string: an object filled key by key and then stringified cost megamorphic stores
      // on every request (issue 24). Keys are the caller's identifiers; string values are redacted.
      let line = `{"level":30,"time":"${isoNow()}","area":"request"`;
      for (const key in fields) {
        const value = fields[key];
        if (value === undefined) continue;
        line += `,"${key}":${typeof value === 'string' ? JSON.stringify(redactText(value)) : value !== null && Number.isFinite(value) ? value : 'null'}`;
      }
      requestFile.write(`${line}}\n`);
    },
    security: make('security'),
    dir: opts.dir,
    flush() {
      for (const f of files.values()) f.flushSync();
    },
    async close() {
      await Promise.all([...files.values()].map((f) => f.end()));
    },
  };
}
