/**
 * Work queued under one key runs one at a time, in the order it came; work under different keys
 * runs side by side. A failure is its own caller's: the next in line runs anyway. This is one
 * process's order only — what several nodes share takes a database lock (`Database.withLock`), which
 * puts this queue in front so that a node waits for its own turn before it asks the database.
 */
export class SerialQueue {
  /** The last piece of work queued under each key (settled, never rejected); gone once it ran. */
  private readonly tails = new Map<string, Promise<void>>();

  /** Runs `fn` after everything queued under `key` before it has finished. */
  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const run = previous.then(fn);
    const tail = run.then(
      () => {},
      () => {},
    );
    this.tails.set(key, tail);
    try {
      return await run;
    } finally {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }

  /** Work is running or waiting under `key`. */
  busy(key: string): boolean {
    return this.tails.has(key);
  }
}
