import { z } from 'zod';

// ---------------------------------------------------------------------------------------------
// Nodes, service status, HA status, topology and health detail — spec 001 §3 "Service status and
// log viewer", §4 "Service status", §7 "Service status and logs"; issue 15 "Nodes and service status".

/** The service this server is, as service status lists it (and the log viewer's `logType`). */
export const GRANARY_SERVICE = 'granary';
/**
 * Its service id (spec 001 §3 `service_id`), the same on every node of one installation: the
 * `{serviceId}` of `DELETE /access/api/v1/topology/{serviceId}/{nodeId}`.
 */
export const GRANARY_SERVICE_ID = 'granary';
/** A node silent this long may be removed by an admin (issue 15). */
export const NODE_REMOVABLE_AFTER_MS = 24 * 60 * 60 * 1000;

export const SERVICE_STATES = ['HEALTHY', 'UNHEALTHY'] as const;
export const serviceStateSchema = z.enum(SERVICE_STATES);
export type ServiceState = z.infer<typeof serviceStateSchema>;
/** spec 001 §3 / §4: only HEALTHY services count as available. */
export const HEALTHY_STATE: ServiceState = 'HEALTHY';

/**
 * The parts of a node, each with its own health: the HTTP server, the database, the blob store, the
 * event worker (outbox subscribers and queues) and each recurring background job (`job:<name>`).
 * `critical` parts decide whether the node can serve (its `state`); the others show their own.
 */
export const microServiceSchema = z.object({
  /** `http`, `database`, `blobstore`, `events`, `job:<name>` */
  name: z.string(),
  kind: z.enum(['http', 'database', 'blobstore', 'events', 'job']),
  state: serviceStateSchema,
  critical: z.boolean(),
  message: z.string(),
  /** When the node last checked this part (its heartbeat). */
  last_heartbeat: z.string(),
  /** Seconds this part has run on the node (the process's uptime). */
  uptime: z.number().int(),
  /** What the check measured (latency, lag, failures, free bytes…). */
  detail: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
});
export type MicroService = z.infer<typeof microServiceSchema>;

/** spec 001 §3: a node of a service — status Online/Offline, micro_services, service_id (and state, node_id). */
export const serviceNodeSchema = z.object({
  node_id: z.string(),
  service_id: z.string(),
  status: z.enum(['Online', 'Offline']),
  /** HEALTHY while Online and every critical part is healthy. */
  state: serviceStateSchema,
  host_name: z.string(),
  /** The internal URL other nodes reach this one at (GRANARY_NODE_URL). */
  url: z.string(),
  version: z.string(),
  start_time: z.string(),
  last_heartbeat: z.string(),
  /** Seconds since the node started. */
  uptime: z.number().int(),
  /** The node answering this request. */
  current: z.boolean(),
  micro_services: z.record(z.string(), microServiceSchema),
});
export type ServiceNode = z.infer<typeof serviceNodeSchema>;

/** spec 001 §3: services keyed by type, each with its nodes; a service is HEALTHY while one of its nodes is. */
export const serviceStatusSchema = z.object({
  services: z.record(z.string(), z.object({ state: serviceStateSchema, nodes: z.array(serviceNodeSchema) })),
});
export type ServiceStatus = z.infer<typeof serviceStatusSchema>;

/** spec 001 §3: HA status maps node group to nodes with node_id and status; only 'Online' counts. */
export const haStatusSchema = z.record(
  z.string(),
  z.array(z.object({ node_id: z.string(), status: z.enum(['Online', 'Offline']) })),
);
export type HaStatus = z.infer<typeof haStatusSchema>;

/** The authenticated health detail (`GET /api/v1/system/health/detail`). */
export const healthCheckDetailSchema = z.object({
  state: serviceStateSchema,
  message: z.string(),
  latency_ms: z.number().optional(),
  detail: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])).optional(),
});
export const healthDetailSchema = z.object({
  state: serviceStateSchema,
  node_id: z.string(),
  checked_at: z.string(),
  checks: z.object({
    database_write: healthCheckDetailSchema,
    blobstore_write: healthCheckDetailSchema,
    event_backlog: healthCheckDetailSchema,
    job_lag: healthCheckDetailSchema,
    disk: healthCheckDetailSchema,
  }),
});
export type HealthDetail = z.infer<typeof healthDetailSchema>;

export const NODE_MESSAGES = {
  notFound: (nodeId: string) => `No node ${nodeId} in this installation`,
  unknownService: (serviceId: string) => `No service ${serviceId} in this installation`,
  stillOnline: (nodeId: string) => `Node ${nodeId} is online: stop it before removing it`,
  recentlySeen: (nodeId: string, lastSeen: string) =>
    `Node ${nodeId} was last seen at ${lastSeen}: only a node silent for at least a day can be removed`,
} as const;
