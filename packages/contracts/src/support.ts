import { z } from 'zod';

// Support bundles (issue 15; spec 001 §3 "Support bundle", §4, §5, §7, §8, §9). The public API keeps
// Artifactory's paths and JSON (`/api/system/support/bundle…`) so its scripts work unchanged; the
// console calls `ui/userSupport/…`.

/** spec 001 §3: a bundle's status, each shown with its own icon and class. */
export const SUPPORT_BUNDLE_STATUSES = ['success', 'failure', 'in progress'] as const;
export type SupportBundleStatus = (typeof SUPPORT_BUNDLE_STATUSES)[number];

/** spec 001 §3: the services a bundle can be created for (only artifactory runs here). */
export const SUPPORT_BUNDLE_SERVICES = [
  'artifactory',
  'xray',
  'distribution',
  'mission_control',
  'insight',
  'tracker',
] as const;
export type SupportBundleService = (typeof SUPPORT_BUNDLE_SERVICES)[number];

/** Caps on a thread dump: at most this many diagnostic reports, at most this many ms apart. */
export const SUPPORT_THREAD_DUMP_MAX_COUNT = 10;
export const SUPPORT_THREAD_DUMP_MAX_INTERVAL_MS = 60_000;
/** The largest bundle (uncompressed content): the logs are cut to fit, newest lines kept. */
export const SUPPORT_BUNDLE_DEFAULT_MAX_BYTES = 20 * 1024 * 1024;

/** A day (`2024-05-01`) or an ISO date-time, as Artifactory's `start_date` / `end_date` take. */
const bundleDate = z
  .string()
  .trim()
  .refine(
    (v) => /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(v) && !Number.isNaN(Date.parse(v)),
    {
      message: 'expected a date such as 2024-05-01',
    },
  );

/** spec 001 §5: thread dump count and interval are integers (strings of digits are accepted and converted). */
const integerIn = (max: number) => z.coerce.number().int('expected an integer').min(0).max(max);

export const supportBundleParametersSchema = z
  .object({
    configuration: z.boolean().default(true),
    system: z.boolean().default(true),
    logs: z
      .object({
        include: z.boolean().default(true),
        start_date: bundleDate.nullish(),
        end_date: bundleDate.nullish(),
      })
      .default({ include: true })
      .refine((l) => !l.start_date || !l.end_date || Date.parse(l.start_date) <= Date.parse(l.end_date), {
        message: 'start_date must not be after end_date',
        path: ['start_date'],
      }),
    thread_dump: z
      .object({
        count: integerIn(SUPPORT_THREAD_DUMP_MAX_COUNT).default(0),
        interval: integerIn(SUPPORT_THREAD_DUMP_MAX_INTERVAL_MS).default(0),
      })
      .default({ count: 0, interval: 0 }),
  })
  .default({
    configuration: true,
    system: true,
    logs: { include: true },
    thread_dump: { count: 0, interval: 0 },
  });
export type SupportBundleParameters = z.output<typeof supportBundleParametersSchema>;

/** `POST /api/system/support/bundle` and the console's `generateBundle`. */
export const supportBundleRequestSchema = z.object({
  name: z.string().trim().min(1, 'This field is mandatory').max(200),
  description: z.string().max(2000).nullish(),
  parameters: supportBundleParametersSchema,
});
export type SupportBundleRequest = z.input<typeof supportBundleRequestSchema>;

/** One bundle as the console lists it (spec 001 §3 fields). */
export const supportBundleSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  create_date: z.string(),
  status: z.enum(SUPPORT_BUNDLE_STATUSES),
  parameters: z.unknown(),
  /** Bytes of the zip once generated. */
  size: z.number().nullable(),
  /** The node that generated it and holds its zip. */
  node_id: z.string().nullable(),
});
export type SupportBundle = z.infer<typeof supportBundleSchema>;
