import { z } from 'zod';

/**
 * Policies, watches, violations and ignore rules (issue 16): the shapes beside `scanning.ts` that the
 * console's `/xray/ui/…` calls and Xray's violations REST call use.
 */

/** `POST /xray/ui/ignore`: ignore a violation always (its issue in its component) or once (that violation only). */
export const ignoreViolationRequestSchema = z.object({
  violationId: z.string().min(1),
  /** `all`: an ignore rule for the violation's issue and component; `once`: that violation id (`ignore_once`) */
  mode: z.enum(['all', 'once']).default('all'),
  /** the justification (Xray's `notes`), required */
  notes: z.string().trim().min(1, 'A justification is required'),
  /** ISO date-time, required */
  expiration_date: z.string().min(1, 'An expiry date is required'),
});
export type IgnoreViolationRequest = z.input<typeof ignoreViolationRequestSchema>;
export const ignoreViolationAnswerSchema = z.object({ id: z.string(), info: z.string() });

/** `GET /xray/ui/watchesByIssue/{issueId}`: the watches with violations of that issue. */
export const watchesByIssueSchema = z.object({ watches: z.array(z.string()) });

/** Xray's `POST /xray/api/v1/violations` request. */
export const xrayViolationsRequestSchema = z.object({
  filters: z
    .object({
      watch_name: z.string().optional(),
      violation_type: z.string().optional(),
      min_severity: z.string().optional(),
      include_ignored: z.boolean().optional(),
      resources: z
        .object({
          artifacts: z.array(z.object({ repo: z.string(), path: z.string() })).optional(),
        })
        .optional(),
    })
    .default({}),
  pagination: z
    .object({
      order_by: z.enum(['created', 'severity', 'issue_id', 'watch_name']).default('created'),
      direction: z.enum(['asc', 'desc']).default('asc'),
      limit: z.number().int().min(1).max(5000).default(25),
      offset: z.number().int().min(0).default(0),
    })
    .default({ order_by: 'created', direction: 'asc', limit: 25, offset: 0 }),
});

/** Xray's violation as `POST /xray/api/v1/violations` answers it. */
export const xrayViolationSchema = z.object({
  violation_id: z.string(),
  description: z.string(),
  severity: z.string(),
  type: z.enum(['Security', 'License']),
  infected_components: z.array(z.string()),
  created: z.string(),
  watch_name: z.string(),
  issue_id: z.string(),
  cves: z.array(z.string()),
  impacted_artifacts: z.array(z.string()),
  policies: z.array(z.object({ policy: z.string(), rule: z.string() })),
  ignored: z.boolean(),
  blocking: z.boolean(),
});
export const xrayViolationsAnswerSchema = z.object({
  total_violations: z.number().int(),
  violations: z.array(xrayViolationSchema),
});
