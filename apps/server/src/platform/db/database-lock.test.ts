import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestDatabasePair, testEngine } from '../../testing/index.ts';
import { type Database, queryRows } from './database.ts';

/** A promise and the function that settles it. */
function gate(): { open: () => void; opened: Promise<void> } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

/**
 * Until `count` holders wait for a lock: on PostgreSQL, sessions waiting in `pg_advisory_lock`; on
 * PGlite (one process, the queue is the lock), a moment for the waiters to have run had they not waited.
 */
async function waiting(database: Database, count: number): Promise<void> {
  if (testEngine === 'pglite') {
    await new Promise((resolve) => setTimeout(resolve, 100));
    return;
  }
  for (let tries = 0; tries < 200; tries++) {
    const [row] = await queryRows<{ n: number }>(
      database.db,
      sql`select count(*)::int as n from pg_locks where locktype = 'advisory' and not granted`,
    );
    if ((row?.n ?? 0) >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`fewer than ${count} sessions wait for an advisory lock`);
}

describe(`issue 13 §2: Database.withLock (${testEngine})`, () => {
  let pair: Database[] = [];
  afterEach(async () => {
    for (const database of pair) await database.close();
    pair = [];
  });

  it('issue 13 §2: one holder of a name across two nodes: the second node waits for the first, then runs', async () => {
    pair = await createTestDatabasePair();
    const [a, b] = pair as [Database, Database];
    const events: string[] = [];
    const held = gate();
    const release = gate();
    const first = a.withLock('npm:left-pad', async () => {
      events.push('a:start');
      held.open();
      await release.opened;
      events.push('a:end');
      return 'a';
    });
    await held.opened;
    const second = b.withLock('npm:left-pad', async () => {
      events.push('b:start');
      return 'b';
    });
    await waiting(a, 1);
    expect(events).toEqual(['a:start']);
    release.open();
    expect(await Promise.all([first, second])).toEqual(['a', 'b']);
    expect(events).toEqual(['a:start', 'a:end', 'b:start']);
  });

  it('issue 13 §2: other names are not held up, on either node', async () => {
    pair = await createTestDatabasePair();
    const [a, b] = pair as [Database, Database];
    const release = gate();
    const held = gate();
    const long = a.withLock('maven-metadata:org/acme/lib', async () => {
      held.open();
      await release.opened;
    });
    await held.opened;
    expect(await b.withLock('maven-metadata:org/acme/other', async () => 'other')).toBe('other');
    expect(await a.withLock('maven-metadata:org/acme/third', async () => 'third')).toBe('third');
    release.open();
    await long;
  });

  it('issue 13 §2: a holder that throws releases the lock; its caller gets the error and the next holder runs', async () => {
    pair = await createTestDatabasePair();
    const [a, b] = pair as [Database, Database];
    await expect(
      a.withLock('oci-tag:app:latest', async () => {
        throw new Error('regeneration failed');
      }),
    ).rejects.toThrow('regeneration failed');
    expect(await b.withLock('oci-tag:app:latest', async () => 'next')).toBe('next');
    expect(await a.withLock('oci-tag:app:latest', async () => 'again')).toBe('again');
  });

  it("issue 13 §2: waiting for locks never takes the connections queries need (more waiters than the node's pool)", async () => {
    pair = await createTestDatabasePair();
    const [a, b] = pair as [Database, Database];
    const release = gate();
    const names = Array.from({ length: 6 }, (_, i) => `busy-${i}`);
    let held = 0;
    const allHeld = gate();
    const holders = names.map((name) =>
      a.withLock(name, async () => {
        held += 1;
        if (held === names.length) allHeld.open();
        await release.opened;
      }),
    );
    await allHeld.opened;
    const order: string[] = [];
    // Six waiters on the second node, more than its pool of four connections (tests' pool size).
    const waiters = names.map((name) => b.withLock(name, async () => order.push(name)));
    await waiting(a, names.length);
    const [row] = await queryRows<{ one: number }>(b.db, sql`select 1 as one`);
    expect(row?.one).toBe(1);
    expect(order).toEqual([]);
    release.open();
    await Promise.all([...holders, ...waiters]);
    expect([...order].sort()).toEqual([...names].sort());
  });
});
