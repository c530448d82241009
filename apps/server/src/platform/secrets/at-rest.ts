import { sql } from 'drizzle-orm';
import type { Logger } from 'pino';
import { type Db, queryRows } from '../db/index.ts';
import { masterKeyFile, type Secrets, SecretsError } from './secrets.ts';

/**
 * Secrets at rest (issue 18): which columns hold sealed secrets, the start-up that seals what is still
 * in the clear and checks the master key, and the re-wrap that moves every value under the current
 * master key after a rotation.
 *
 * A module that stores a secret seals it with `platform.secrets.sealSecret` and registers its column
 * once, at import (e.g. beside its pg-core table):
 *
 *   registerSealedColumn({ table: 'git_integrations', key: 'key', column: 'token_sealed' });
 *
 * A JSON column gives `each`, which calls `f` on every secret string inside a value and answers the
 * value with the results in their places. The start-up seal and the rotation job walk every registered
 * column; nothing else is needed.
 */
export interface SealedColumn {
  /** The SQL table name. */
  table: string;
  /** Its primary key column (text or integer), for keyset paging. */
  key: string;
  /** The column holding the sealed text (text), or JSON with secrets inside (jsonb, with `each`). */
  column: string;
  each?: (value: unknown, f: (secret: string) => string) => unknown;
}

const registry = new Map<string, SealedColumn>();

export function registerSealedColumn(column: SealedColumn): void {
  registry.set(`${column.table}.${column.column}`, column);
}

export function sealedColumns(): SealedColumn[] {
  return [...registry.values()];
}

registerSealedColumn({ table: 'master_key_check', key: 'id', column: 'sealed' });

/** The secrets each database is sealed with (bound once by the app, read by the modules' stores). */
const bound = new WeakMap<object, Secrets>();

export function bindSecrets(db: Db, secrets: Secrets): void {
  bound.set(db, secrets);
}

export function secretsFor(db: Db): Secrets {
  const s = bound.get(db);
  if (!s) throw new SecretsError('no master key is bound to this database (buildApp binds it)');
  return s;
}

/** Seals `plaintext` for `db`'s rows; null/undefined/'' stay as they are. */
export function sealFor<T extends string | null | undefined>(db: Db, plaintext: T): T {
  if (!plaintext) return plaintext;
  return secretsFor(db).sealSecret(plaintext) as T;
}

/**
 * Opens a stored value. A value still in the clear (written before its column was sealed, and not yet
 * sealed by the start-up) is answered as is, so a rolling upgrade keeps working.
 */
export function openFor<T extends string | null | undefined>(db: Db, stored: T): T {
  if (!stored) return stored;
  const s = secretsFor(db);
  return (s.isSealed(stored) ? s.openSecret(stored) : stored) as T;
}

const CANARY_ID = 'canary';
const CANARY_TEXT = 'granary master key check';
const PAGE = 200;
/** Serialises the sealing walks across nodes (one transaction at a time holds it). */
const LOCK = sql`select pg_advisory_xact_lock(hashtextextended('granary.secrets-at-rest', 0))`;

export function wrongKeyMessage(home: string, current: string, expected: string): string {
  return (
    `The master key does not match the one this database was encrypted with (key id ${current}, expected ` +
    `${expected}): set GRANARY_MASTER_KEY or restore ${masterKeyFile(home)}`
  );
}

/**
 * At start, before serving: checks the master key against the database's check value (made the first
 * time), then seals every registered value still in the clear. Throws the clear wrong-key message.
 */
export async function prepareSecretsAtRest(
  db: Db,
  secrets: Secrets,
  opts: { home: string; log?: Logger },
): Promise<{ sealed: number }> {
  await checkMasterKey(db, secrets, opts.home);
  const result = await walkSealedValues(db, secrets, 'seal');
  if (result.sealed > 0) opts.log?.info({ sealed: result.sealed }, 'sealed secrets stored in the clear');
  return { sealed: result.sealed };
}

async function checkMasterKey(db: Db, secrets: Secrets, home: string): Promise<void> {
  let [row] = await queryRows<{ sealed: string }>(
    db,
    sql`select sealed from master_key_check where id = ${CANARY_ID}`,
  );
  if (!row) {
    // A database sealed before the check existed: a sealed value under an unknown key tells.
    const foreign = await findForeignKeyId(db, secrets);
    if (foreign) throw new SecretsError(wrongKeyMessage(home, secrets.keyId, foreign));
    await db.execute(
      sql`insert into master_key_check (id, sealed) values (${CANARY_ID}, ${secrets.sealSecret(CANARY_TEXT)})
          on conflict (id) do nothing`,
    );
    [row] = await queryRows<{ sealed: string }>(
      db,
      sql`select sealed from master_key_check where id = ${CANARY_ID}`,
    );
  }
  const keyId = secrets.keyIdOf(row!.sealed) ?? '?';
  let opened: string | undefined;
  try {
    opened = secrets.openSecret(row!.sealed);
  } catch {
    opened = undefined;
  }
  if (opened !== CANARY_TEXT) throw new SecretsError(wrongKeyMessage(home, secrets.keyId, keyId));
}

async function findForeignKeyId(db: Db, secrets: Secrets): Promise<string | undefined> {
  for (const c of sealedColumns()) {
    if (c.each) continue;
    const rows = await queryRows<{ v: string }>(
      db,
      sql`select split_part(${sql.identifier(c.column)}, '.', 2) as v from ${sql.identifier(c.table)}
          where ${sql.identifier(c.column)} like 'gs1.%' group by 1`,
    ).catch(() => []);
    const foreign = rows.find((r) => !secrets.keyIds.includes(r.v));
    if (foreign) return foreign.v;
  }
  return undefined;
}

export interface SealedValuesStatus {
  /** The current master key's id. */
  keyId: string;
  /** Sealed values per master key id. */
  byKey: Record<string, number>;
  /** Values still in the clear (sealed at the next start or rotation run). */
  plaintext: number;
  /** Values under a key other than the current one (re-wrapped by the rotation job). */
  remaining: number;
}

/**
 * One walk over every registered column, a page at a time, each page in its own transaction under
 * the cluster-wide lock: `seal` seals values in the clear; `rewrap` also moves sealed values under the
 * current key. A value that cannot be opened (altered, or under a key not in the keyring) is counted
 * in `failed` and left as it is.
 */
export async function walkSealedValues(
  db: Db,
  secrets: Secrets,
  mode: 'seal' | 'rewrap',
  signal?: AbortSignal,
): Promise<{ sealed: number; rewrapped: number; failed: number }> {
  const out = { sealed: 0, rewrapped: 0, failed: 0 };
  const fix = (value: string): string => {
    if (!secrets.isSealed(value)) {
      out.sealed += 1;
      return secrets.sealSecret(value);
    }
    if (mode === 'seal' || secrets.keyIdOf(value) === secrets.keyId) return value;
    try {
      const next = secrets.rewrap(value);
      out.rewrapped += 1;
      return next;
    } catch {
      out.failed += 1;
      return value;
    }
  };
  for (const c of sealedColumns()) {
    const table = sql.identifier(c.table);
    const key = sql.identifier(c.key);
    const column = sql.identifier(c.column);
    let after: unknown;
    for (;;) {
      if (signal?.aborted) return out;
      const last = await db.transaction(async (tx) => {
        await tx.execute(LOCK);
        const page = await queryRows<{ k: unknown; v: unknown }>(
          tx as unknown as Db,
          sql`select ${key} as k, ${column} as v from ${table}
              where ${column} is not null ${after === undefined ? sql`` : sql`and ${key} > ${after}`}
              order by ${key} limit ${PAGE} for update`,
        );
        for (const { k, v } of page) {
          if (c.each) {
            const before = JSON.stringify(v);
            const next = c.each(v, (s) => (s ? fix(s) : s));
            if (JSON.stringify(next) !== before)
              await tx.execute(
                sql`update ${table} set ${column} = ${JSON.stringify(next)}::jsonb where ${key} = ${k}`,
              );
          } else if (typeof v === 'string' && v !== '') {
            const next = fix(v);
            if (next !== v)
              await tx.execute(sql`update ${table} set ${column} = ${next} where ${key} = ${k}`);
          }
        }
        return page.length === PAGE ? page[page.length - 1]!.k : undefined;
      });
      if (last === undefined) break;
      after = last;
    }
  }
  return out;
}

/** How many registered values are under which master key, and how many remain to seal or re-wrap. */
export async function sealedValuesStatus(db: Db, secrets: Secrets): Promise<SealedValuesStatus> {
  const status: SealedValuesStatus = { keyId: secrets.keyId, byKey: {}, plaintext: 0, remaining: 0 };
  const count = (value: string) => {
    const id = secrets.keyIdOf(value);
    if (!id) status.plaintext += 1;
    else {
      status.byKey[id] = (status.byKey[id] ?? 0) + 1;
      if (id !== secrets.keyId) status.remaining += 1;
    }
    return value;
  };
  for (const c of sealedColumns()) {
    const rows = await queryRows<{ v: unknown }>(
      db,
      sql`select ${sql.identifier(c.column)} as v from ${sql.identifier(c.table)}
          where ${sql.identifier(c.column)} is not null`,
    );
    for (const { v } of rows) {
      if (c.each) c.each(v, (s) => (s ? count(s) : s));
      else if (typeof v === 'string' && v !== '') count(v);
    }
  }
  return status;
}

/** The recurring cluster job that re-wraps every value not under the current master key. */
export const REWRAP_JOB = 'secrets.rewrap';
