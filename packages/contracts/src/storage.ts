import { z } from 'zod';

/**
 * Storage quotas and the storage summary (issue 21): the console's storage page and the repository
 * form's "Quota" field. Sizes are bytes.
 */

/** ok below 80 % of the quota, warning from 80 %, exceeded at 100 % (uploads refused). */
export const quotaStateSchema = z.enum(['ok', 'warning', 'exceeded']);
export type QuotaState = z.infer<typeof quotaStateSchema>;

/** `GET /ui/api/v1/storage/quotas/repositories/{key}` */
export const repositoryQuotaSchema = z.object({
  repoKey: z.string(),
  /** null: no quota */
  quotaBytes: z.number().int().nullable(),
  usedBytes: z.number().int(),
  state: quotaStateSchema,
  /** The project's quota when the repository belongs to a project that has one. */
  project: z
    .object({
      projectKey: z.string(),
      quotaBytes: z.number().int(),
      usedBytes: z.number().int(),
      state: quotaStateSchema,
    })
    .nullable(),
});
export type RepositoryQuota = z.infer<typeof repositoryQuotaSchema>;

/** `PUT /ui/api/v1/storage/quotas/repositories/{key}`: null removes the quota. */
export const repositoryQuotaUpdateSchema = z.object({
  quotaBytes: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).nullable(),
});
export type RepositoryQuotaUpdate = z.infer<typeof repositoryQuotaUpdateSchema>;

export const usageTotalsSchema = z.object({ count: z.number().int(), size: z.number().int() });
export type UsageTotals = z.infer<typeof usageTotalsSchema>;

/** `GET /ui/api/v1/ui/storagesummary` (Artifactory's shape, extended). */
export const storageSummarySchema = z.object({
  binariesSummary: z.object({
    binariesCount: z.number().int(),
    binariesSize: z.number().int(),
    artifactsCount: z.number().int(),
    artifactsSize: z.number().int(),
    /** The sum of artifact sizes minus the bytes of the distinct blobs they use. */
    deduplicationSaving: z.number().int(),
    optimization: z.string(),
  }),
  repositoriesSummaryList: z.array(
    z.object({
      repoKey: z.string(),
      repoType: z.string(),
      packageType: z.string(),
      projectKey: z.string().nullable(),
      filesCount: z.number().int(),
      usedSpace: z.number().int(),
      percentage: z.number(),
      quotaBytes: z.number().int().nullable(),
      quotaState: quotaStateSchema,
    }),
  ),
  projectsSummaryList: z.array(
    z.object({
      projectKey: z.string(),
      repositoriesCount: z.number().int(),
      filesCount: z.number().int(),
      usedSpace: z.number().int(),
      quotaBytes: z.number().int().nullable(),
      quotaState: quotaStateSchema,
    }),
  ),
  packageTypesSummaryList: z.array(
    z.object({ packageType: z.string(), filesCount: z.number().int(), usedSpace: z.number().int() }),
  ),
  /** Files in the trash cans (null: not counted on this server). */
  trash: usageTotalsSchema.nullable(),
  /** Files moved to the archive store (null: not counted on this server). */
  archive: usageTotalsSchema.nullable(),
  /** Blobs nothing refers to, which the blob GC will delete (null: not counted on this server). */
  reclaimable: z.object({ blobs: z.number().int(), bytes: z.number().int() }).nullable(),
});
export type StorageSummary = z.infer<typeof storageSummarySchema>;

/** `GET /ui/api/v1/ui/storagesummary/history?days=N`: the daily snapshots, oldest first. */
export const storageHistorySchema = z.object({
  days: z.number().int(),
  snapshots: z.array(
    z.object({
      day: z.string(),
      repoKey: z.string(),
      packageType: z.string(),
      projectKey: z.string().nullable(),
      filesCount: z.number().int(),
      usedBytes: z.number().int(),
    }),
  ),
});
export type StorageHistory = z.infer<typeof storageHistorySchema>;
