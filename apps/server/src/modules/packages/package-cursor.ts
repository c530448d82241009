import { sortDirection } from '@granary/contracts';
import { type SQL, sql } from 'drizzle-orm';
import { z } from 'zod';
import { InvalidError } from '../../platform/errors.ts';
import { choiceOf } from './package-filters.ts';
import { PACKAGE_KEY } from './packages.queries.ts';

/** A sort value as the database writes it as text: a timestamp (`2024-05-01 10:00:00.123456+00`), a count. */
const TIMESTAMP_TEXT = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}(:?\d{2})?)?$/;
const BIGINT_TEXT = /^-?\d{1,18}$/;
const CURSOR_TEXT_MAX = 4096;
const cursorText = z.string().max(CURSOR_TEXT_MAX);

/**
 * A page's last package: its sort value (`s`, aggregate sorts only), its name search group (`r`, a ranked name
 * search in name order: 0 prefix matches, 1 the others) and its key (lower-cased name, name, type).
 */
const packagesCursor = z.object({
  s: z.union([cursorText, z.number()]).optional(),
  r: z.union([z.literal(0), z.literal(1)]).optional(),
  l: cursorText,
  n: cursorText,
  t: cursorText,
});
export type PackagesCursor = z.infer<typeof packagesCursor>;
const versionsCursor = z.object({ v: cursorText });

export const encodeCursor = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A cursor this reader wrote, checked against its shape: anything else is the client's error, never a query's. */
function decodeCursor<T>(cursor: string | null | undefined, shape: z.ZodType<T>): T | null {
  if (!cursor) return null;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    value = undefined;
  }
  const parsed = shape.safeParse(value);
  if (!parsed.success) throw new InvalidError('endCursor is not a cursor of this query');
  return parsed.data;
}

/** An aggregate a package list is sorted by (over a package's rows in every repository searched). */
export interface SortAggregate {
  expr: SQL;
  /** the type its value is cast back to from a cursor */
  cast: SQL;
  /** what that value must look like */
  value: RegExp;
}

const SORTS: Record<string, SortAggregate | null> = {
  name: null,
  created: { expr: sql`min(p.created_at)`, cast: sql`timestamptz`, value: TIMESTAMP_TEXT },
  modified: { expr: sql`max(p.modified_at)`, cast: sql`timestamptz`, value: TIMESTAMP_TEXT },
  downloads: { expr: sql`sum(p.downloads)::bigint`, cast: sql`bigint`, value: BIGINT_TEXT },
  versionsCount: { expr: sql`sum(p.versions_count)::bigint`, cast: sql`bigint`, value: BIGINT_TEXT },
};

/**
 * How `packages(...)` pages: its sort (null: name order, straight off the name index; else an
 * aggregate), its direction, and the cursor it continues after (checked: its sort value goes back
 * into the query as its column's type).
 */
export function packagesPaging(f: {
  sort_by?: string | null;
  sort_type?: string | null;
  endCursor?: string | null;
}) {
  const sort = choiceOf('sort_by', SORTS, f.sort_by ?? 'name');
  const ascending = sortDirection(f.sort_type) === 'ASC';
  const cursor = decodeCursor(f.endCursor, packagesCursor);
  if (cursor && sort && !sort.value.test(String(cursor.s ?? '')))
    throw new InvalidError('endCursor is not a cursor of this query');
  return { sort, ascending, cursor };
}

/**
 * The keyset condition for the rows after `after`: a `where` clause in name order, a `having`
 * clause on the aggregate otherwise.
 */
export function packagesAfter(
  after: PackagesCursor | null,
  sort: SortAggregate | null,
  ascending: boolean,
): { where?: SQL; having?: SQL } {
  if (!after) return {};
  const cmp = ascending ? sql`>` : sql`<`;
  if (!sort) return { where: sql`(${PACKAGE_KEY}) ${cmp} (${after.l}, ${after.n}, ${after.t})` };
  return {
    having: sql`(${sort.expr}, ${PACKAGE_KEY}) ${cmp} (${after.s}::${sort.cast}, ${after.l}, ${after.n}, ${after.t})`,
  };
}

/** The position after a `versions(...)` cursor in the sorted list (past the end when its version is gone). */
export function versionsStart(list: { name: string }[], endCursor: string | null | undefined): number {
  const cursor = decodeCursor(endCursor, versionsCursor);
  if (!cursor) return 0;
  const at = list.findIndex((v) => v.name === cursor.v);
  return at >= 0 ? at + 1 : list.length;
}
