import type { SearchType } from './searchTypes.ts';

/** spec 001 §3 recent search: type, query string, search model, context, id. */
export interface RecentSearch {
  id: string;
  type: SearchType;
  queryString: string;
  searchModel?: unknown;
  context?: string | null;
}

/** How many recent searches are kept per user. */
export const RECENT_SEARCHES_MAX = 10;

/** Kept per username, or anonymous, in browser storage (spec 001 §3). */
export const recentSearchesKey = (username: string | null | undefined) =>
  `granary.recentSearches.${username || 'anonymous'}`;

/** spec 001 §4: most recent first, duplicates by text and type removed, capped, empty ignored. */
export function addRecentSearch(list: readonly RecentSearch[], entry: RecentSearch): RecentSearch[] {
  const text = entry.queryString.trim();
  if (text === '') return [...list];
  const rest = list.filter((r) => !(r.queryString.trim() === text && r.type === entry.type));
  return [{ ...entry, queryString: text }, ...rest].slice(0, RECENT_SEARCHES_MAX);
}

export function readRecentSearches(storage: Storage, username: string | null | undefined): RecentSearch[] {
  try {
    const raw = storage.getItem(recentSearchesKey(username));
    const parsed: unknown = raw ? JSON.parse(raw) : [];
    return Array.isArray(parsed)
      ? parsed.filter(
          (r): r is RecentSearch =>
            typeof r === 'object' &&
            r !== null &&
            typeof r.queryString === 'string' &&
            typeof r.type === 'string',
        )
      : [];
  } catch {
    return [];
  }
}

export function storeRecentSearch(
  storage: Storage,
  username: string | null | undefined,
  entry: RecentSearch,
): RecentSearch[] {
  const next = addRecentSearch(readRecentSearches(storage, username), entry);
  try {
    storage.setItem(recentSearchesKey(username), JSON.stringify(next));
  } catch {
    // Storage full or refused: the search still runs.
  }
  return next;
}
