import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestDatabasePair, testDatabaseUrl, testEngine } from '../../testing/index.ts';
import type { Database } from './index.ts';

async function until(check: () => boolean, ms = 5_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  return check();
}

describe(`issue 12 §19: LISTEN/NOTIFY between nodes (${testEngine})`, () => {
  let pair: Database[] = [];
  afterEach(async () => {
    for (const d of pair) await d.close();
    pair = [];
  });

  it('issue 12 §19: a message one node sends reaches every node listening, until it stops listening', async () => {
    pair = await createTestDatabasePair();
    const [a, b] = pair as [Database, Database];
    const heardA: string[] = [];
    const heardB: string[] = [];
    await a.channel.listen('granary_probe', (p) => heardA.push(p));
    const stopB = await b.channel.listen('granary_probe', (p) => heardB.push(p));
    await a.channel.notify('granary_probe', 'one');
    expect(await until(() => heardA.length === 1 && heardB.length === 1)).toBe(true);
    expect([heardA, heardB]).toEqual([['one'], ['one']]);
    await stopB();
    await b.channel.notify('granary_probe', 'two');
    expect(await until(() => heardA.length === 2)).toBe(true);
    await new Promise((r) => setTimeout(r, 100));
    expect([heardA, heardB]).toEqual([['one', 'two'], ['one']]);
    await expect(a.channel.listen('x; drop table users', () => {})).rejects.toThrow(/channel name/);
  });
});

// Only on a server: PGlite has no connection to lose.
if (testDatabaseUrl)
  describe('issue 12 §19: LISTEN/NOTIFY on a PostgreSQL server', () => {
    it('issue 12 §19: when the listening connection drops, the node reconnects, hears that it may have missed messages, and hears the next ones', async () => {
      const [a, b] = await createTestDatabasePair();
      // The server's node job `db.listen-reconnect` calls reconnect() on its tick; the test plays the tick.
      const tick = setInterval(() => void b.channel.reconnect(), 50);
      try {
        const heard: string[] = [];
        let gaps = 0;
        await b.channel.listen(
          'granary_probe',
          (p) => heard.push(p),
          () => gaps++,
        );
        await a.db.execute(
          sql`select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'granary-listen' and datname = current_database()`,
        );
        expect(await until(() => gaps === 1)).toBe(true);
        await a.channel.notify('granary_probe', 'after');
        expect(await until(() => heard.includes('after'))).toBe(true);
      } finally {
        clearInterval(tick);
        await a.close();
        await b.close();
      }
    });
  });
