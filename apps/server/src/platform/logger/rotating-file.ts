import { existsSync, mkdirSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import SonicBoom from 'sonic-boom';

/**
 * A log file rotated by size: `server.log` is always the current file; when it passes
 * `maxBytes` it becomes `server.1.log`, older ones shift up and the oldest past `maxFiles` is removed.
 */
export class RotatingFile {
  private stream: SonicBoom;
  private size: number;
  private unflushed = false;
  private readonly flusher: NodeJS.Timeout | undefined;

  /**
   * `bufferBytes` > 0 gathers lines into writes of about that size, written at the latest a second
   * after the line (request.log: a write per request cost a system call per request, issue 24).
   */
  constructor(
    readonly file: string,
    private readonly maxBytes: number,
    private readonly maxFiles: number,
    private readonly bufferBytes = 0,
  ) {
    this.size = existsSync(file) ? statSync(file).size : 0;
    this.stream = this.open();
    if (bufferBytes > 0) {
      this.flusher = setInterval(() => {
        if (!this.unflushed) return;
        this.unflushed = false;
        try {
          this.stream.flush();
        } catch {
          // ended meanwhile
        }
      }, 1000);
      this.flusher.unref();
    }
  }

  write(chunk: string): boolean {
    this.unflushed = true;
    const ok = this.stream.write(chunk);
    this.size += Buffer.byteLength(chunk);
    if (this.size >= this.maxBytes) this.rotate();
    return ok;
  }

  /** Writes what is buffered; used before reading the files (log viewer, support bundle, tests). */
  flushSync(): void {
    try {
      this.stream.flushSync();
    } catch {
      // nothing buffered, or a write in flight that lands on its own
    }
  }

  end(): Promise<void> {
    clearInterval(this.flusher);
    return new Promise((resolve) => {
      this.stream.once('close', () => resolve());
      this.stream.end();
    });
  }

  private open(): SonicBoom {
    // Opened synchronously so the file exists from the first line on; writes stay asynchronous.
    mkdirSync(path.dirname(this.file), { recursive: true });
    return new SonicBoom({ fd: openSync(this.file, 'a'), sync: false, minLength: this.bufferBytes });
  }

  private rotate(): void {
    const old = this.stream;
    // The old descriptor keeps pointing at the renamed file, so its buffered lines land there.
    old.end();
    const numbered = (n: number) => this.file.replace(/(\.log)?$/, `.${n}$1`);
    rmSync(numbered(this.maxFiles), { force: true });
    for (let n = this.maxFiles - 1; n >= 1; n--) {
      if (existsSync(numbered(n))) renameSync(numbered(n), numbered(n + 1));
    }
    if (this.maxFiles >= 1) renameSync(this.file, numbered(1));
    this.size = 0;
    this.stream = this.open();
  }
}
