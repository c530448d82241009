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
  /** Lines gathered here before they go to the stream as one write (when `bufferBytes` > 0). */
  private pending = '';

  /**
   * `bufferBytes` > 0 gathers lines into writes of about that size, written at the latest a second
   * after the line (request.log: a write per request cost a system call per request, issue 24). They
   * are gathered here, not by the stream's `minLength`: SonicBoom measures the byte length of its
   * whole unwritten buffer on every write, a scan of up to `bufferBytes` per request line. A batch
   * is written synchronously: about 64 KB into the page cache every ~600 requests (a third of the
   * cost per byte of 8 KB writes).
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
          this.drain();
        } catch {
          // ended meanwhile
        }
      }, 1000);
      this.flusher.unref();
    }
  }

  write(chunk: string): boolean {
    this.unflushed = true;
    let ok = true;
    if (this.bufferBytes > 0) {
      this.pending += chunk;
      // Counted in characters: log lines are nearly all ASCII, and rotation needs no byte precision.
      this.size += chunk.length;
      if (this.pending.length >= this.bufferBytes) ok = this.drain();
    } else {
      ok = this.stream.write(chunk);
      this.size += Buffer.byteLength(chunk);
    }
    if (this.size >= this.maxBytes) this.rotate();
    return ok;
  }

  /** Writes the gathered lines (the stream of a buffered file writes synchronously). */
  private drain(): boolean {
    if (!this.pending) return true;
    const batch = this.pending;
    this.pending = '';
    return this.stream.write(batch);
  }

  /** Writes what is buffered; used before reading the files (log viewer, support bundle, tests). */
  flushSync(): void {
    try {
      this.drain();
      this.stream.flushSync();
    } catch {
      // nothing buffered
    }
  }

  end(): Promise<void> {
    clearInterval(this.flusher);
    this.drain();
    return new Promise((resolve) => {
      this.stream.once('close', () => resolve());
      this.stream.end();
    });
  }

  private open(): SonicBoom {
    // Opened synchronously so the file exists from the first line on.
    mkdirSync(path.dirname(this.file), { recursive: true });
    // Every file writes synchronously (pino.destination's default): in order, with no write in flight
    // when it rotates or is read. An asynchronous batch still in flight at rotation lost the lines
    // queued behind it, and flushSync() cannot wait for a write in flight, so a reader right after it
    // (log viewer, support bundle, a test naming the line) could miss the newest line (seen in CI).
    // A buffered file (request.log) makes one write per batch; server.log and security.log are quiet.
    return new SonicBoom({ fd: openSync(this.file, 'a'), sync: true });
  }

  private rotate(): void {
    this.drain();
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
