/**
 * Counts this node's committed changes to the database: a statement that is not a plain `select`
 * (insert, update, delete, DDL, a transaction's `commit`) moves the count once it has completed.
 * Caches of answers derived from the database (the response cache, platform/http/response-cache.ts)
 * remember the count they were computed at and are void as soon as it moves: any change this node
 * makes, through any code path, invalidates them without that path knowing about them. Another node's
 * changes are not counted here; such caches bound their lifetime for those.
 */
export class DataChanges {
  /** Moves after every completed change; compare, never interpret. */
  value = 0;

  /** A change completed (or may have: a failed statement moves it too, which costs nothing but a miss). */
  changed(): void {
    this.value += 1;
  }

  /** Moves the count after `run` settles when `text` may change data. */
  track<T>(text: unknown, run: () => T): T {
    if (!mayChange(text)) return run();
    const result = run();
    if (result instanceof Promise) return result.finally(() => this.changed()) as T;
    this.changed();
    return result;
  }
}

/** Every statement but a plain `select` (and `show`) may change data; unknown shapes are assumed to. */
export function mayChange(text: unknown): boolean {
  const sql =
    typeof text === 'string'
      ? text
      : typeof text === 'object' && text !== null && typeof (text as { text?: unknown }).text === 'string'
        ? (text as { text: string }).text
        : null;
  if (sql === null) return true;
  let i = 0;
  while (i < sql.length && (sql.charCodeAt(i) <= 32 || sql[i] === '(')) i += 1;
  const word = sql.slice(i, i + 6).toLowerCase();
  return !(word === 'select' || word.startsWith('show'));
}
