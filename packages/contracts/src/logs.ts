import { z } from 'zod';

// ---------------------------------------------------------------------------------------------
// Live log viewer — spec 001 §3 "Service status and log viewer" (log config and log data), §7 calls
// `GET /system/logs/config/{logType}` and `GET /system/logs/data/{logType}`.

/** The services whose logs the viewer reads (a `logType` is a service name as service status lists it). */
export const LOG_SERVICES = ['granary'] as const;
export type LogService = (typeof LOG_SERVICES)[number];
/** The service the viewer selects first (spec 001 §3 `selectedProduct` default: the repository service). */
export const DEFAULT_LOG_SERVICE: LogService = 'granary';

/** The most bytes of a log one data call answers. */
export const LOG_READ_MAX_BYTES = 300 * 1024;

/** Header naming the node whose logs the REST twins (`/api/system/logs/…`) read. */
export const LOG_NODE_HEADER = 'x-granary-node-id';
/** Header a node puts on a log request it forwards to another node: that node answers it itself, never forwards again. */
export const LOG_FORWARDED_HEADER = 'x-granary-log-forwarded';

/** spec 001 §3 log config: the node's log files (current ones first) and how often the viewer refreshes. */
export const logConfigSchema = z.object({
  logs: z.array(z.string()),
  refresh_rate_millis: z.number().int(),
});
export type LogConfig = z.infer<typeof logConfigSchema>;

/**
 * spec 001 §3 log data: the content from the asked offset on, the offset to ask next time
 * (`file_size`), the file's last modification and the time of this read (both epoch milliseconds).
 * `file_id` names the file's identity on disk: sent back as `file_id`, it lets the next read follow
 * the file across a rotation (the rest of the rotated file, then the new one from its start).
 */
export const logDataSchema = z.object({
  log_content: z.string(),
  file_size: z.number().int(),
  last_update_modified: z.number(),
  last_update_label: z.number(),
  file_id: z.string(),
});
export type LogData = z.infer<typeof logDataSchema>;

export const logDataQuerySchema = z.object({
  nodeId: z.string().max(200).optional(),
  id: z.string().min(1, 'id: the log file is required').max(200),
  file_size: z.coerce.number().int().min(0).default(0),
  file_id: z.string().max(200).optional(),
});
export const logConfigQuerySchema = z.object({ nodeId: z.string().max(200).optional() });
