import { eq, sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { securitySettings } from '../../modules/access/access.schema.ts';
import { createTestDatabase, testEngine } from '../../testing/index.ts';
import { mayChange } from './data-changes.ts';
import type { Database } from './database.ts';

const opened: Database[] = [];
afterEach(async () => {
  for (const d of opened.splice(0)) await d.close();
});

describe(`issue 24: the database counts this node's completed changes (${testEngine})`, () => {
  it('issue 24 response cache: reads leave the count alone; an insert, an update, a delete and a committed transaction each move it once they completed', async () => {
    const database = await createTestDatabase();
    opened.push(database);
    const { db, changes } = database;
    const at = () => changes.value;

    const start = at();
    await db.select().from(securitySettings);
    await db.execute(sql`select 1`);
    expect(at()).toBe(start);

    const insert = db.insert(securitySettings).values({ key: 'probe', value: { n: 1 } });
    const beforeInsert = at();
    await insert;
    expect(at()).toBeGreaterThan(beforeInsert);

    let seen = at();
    await db
      .update(securitySettings)
      .set({ value: { n: 2 } })
      .where(eq(securitySettings.key, 'probe'));
    expect(at()).toBeGreaterThan(seen);

    // Inside a transaction other connections see nothing before the commit: the count has moved
    // once the transaction has settled, whatever it moved on the way.
    seen = at();
    let during = 0;
    await db.transaction(async (tx) => {
      await tx
        .update(securitySettings)
        .set({ value: { n: 3 } })
        .where(eq(securitySettings.key, 'probe'));
      during = at();
    });
    expect(at()).toBeGreaterThan(during);
    expect(at()).toBeGreaterThan(seen);

    seen = at();
    await db.delete(securitySettings).where(eq(securitySettings.key, 'probe'));
    expect(at()).toBeGreaterThan(seen);
  });

  it('issue 24 response cache: only a plain select or show is taken for a read', () => {
    for (const read of [
      'select 1',
      '  SELECT * from x',
      '(select 1) union (select 2)',
      'show server_version',
    ])
      expect(mayChange(read), read).toBe(false);
    for (const write of [
      'insert into x values (1)',
      'update x set a = 1',
      'delete from x',
      'with gone as (delete from x returning *) select * from gone',
      'commit',
      'create index i on x (a)',
    ])
      expect(mayChange(write), write).toBe(true);
    expect(mayChange({ text: 'select 1', values: [] })).toBe(false);
    expect(mayChange({ text: 'update x set a = 1' })).toBe(true);
    expect(mayChange(undefined)).toBe(true);
  });
});
