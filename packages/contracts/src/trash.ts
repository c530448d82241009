import { z } from 'zod';

/**
 * The trash can (issue 21, spec 001 §3 actions Search Trash Can, Restore, Delete Permanently, Empty Trash
 * Can). Artifactory's REST: `POST /api/trash/restore/{repoKey}/{path}?to={repoKey}/{path}`,
 * `DELETE /api/trash/clean/{repoKey}/{path}`, `POST /api/trash/empty`, and the entries listed as the
 * folder tree of the pseudo-repository `auto-trashcan` (`GET /api/storage/auto-trashcan/{repoKey}/{path}`).
 */
export const TRASHCAN_REPO_KEY = 'auto-trashcan';

/** Days a deleted file stays in its repository's trash when neither the repository nor the server says. */
export const DEFAULT_TRASH_RETENTION_DAYS = 14;

/** A repository's trash settings (fields of the repository JSON; local repositories). */
export const trashSettingsSchema = z.object({
  /** On by default: deletes go to the trash. Off: a delete is permanent. */
  trashcanEnabled: z.boolean(),
  /** Days an entry is kept before it expires (default: the server's `GRANARY_TRASH_RETENTION_DAYS`, 14). */
  trashcanRetentionDays: z.number().int().min(1).max(3650),
});
export type TrashSettings = z.infer<typeof trashSettingsSchema>;

/** One entry of the trash (`GET /ui/api/v1/ui/trash/search`). */
export const trashItemSchema = z.object({
  repoKey: z.string(),
  path: z.string(),
  name: z.string(),
  size: z.number(),
  sha256: z.string(),
  deletedBy: z.string(),
  deletedAt: z.string(),
  expiresAt: z.string(),
  packageType: z.string(),
  /** What the caller may do with it (the server decides again on each call). */
  canRestore: z.boolean(),
  canDelete: z.boolean(),
});
export type TrashItem = z.infer<typeof trashItemSchema>;

export const trashSearchQuerySchema = z.object({
  /** Part of the file name or path, case-insensitive; `*` and `?` are wildcards. */
  q: z.string().max(500).optional(),
  /** Only these original repositories (comma-separated keys). */
  repos: z.string().max(4000).optional(),
  limit: z.coerce.number().int().min(1).max(1000).optional(),
});
export type TrashSearchQuery = z.infer<typeof trashSearchQuerySchema>;

export const trashSearchAnswerSchema = z.object({
  results: z.array(trashItemSchema),
  /** More entries matched than `limit`. */
  truncated: z.boolean(),
  /** Whether the caller may empty the whole trash (admins). */
  canEmpty: z.boolean(),
});
export type TrashSearchAnswer = z.infer<typeof trashSearchAnswerSchema>;

/** Answer of restore, clean and empty: Artifactory's message list, and how many files. */
export const trashActionAnswerSchema = z.object({
  messages: z.array(z.object({ level: z.string(), message: z.string() })),
  files: z.number(),
});
export type TrashActionAnswer = z.infer<typeof trashActionAnswerSchema>;

/** Bytes and files in one repository's trash (`trashUsage`; the storage summary shows them). */
export interface TrashUsage {
  repoKey: string;
  count: number;
  bytes: number;
}
