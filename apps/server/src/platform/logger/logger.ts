import path from 'node:path';
import { type Logger, type LoggerOptions, multistream, pino, type StreamEntry } from 'pino';
import { redactValue } from './redact.ts';
import { RotatingFile } from './rotating-file.ts';

/** The service areas that have a log file of their own under `$GRANARY_HOME/logs`. */
export const LOG_FILES = ['server', 'request', 'security'] as const;
export type LogArea = (typeof LOG_FILES)[number];

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
      new RotatingFile(path.join(opts.dir, `${area}.log`), opts.maxBytes, opts.maxFiles),
    ]),
  );
  const make = (area: LogArea) => {
    const streams: StreamEntry[] = [{ stream: files.get(area)!, level: 'trace' }];
    if (opts.stdout && area !== 'request') streams.push({ stream: process.stdout, level: 'trace' });
    return pino(baseOptions(opts.level, area), multistream(streams));
  };
  return {
    server: make('server'),
    request: make('request'),
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
