import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  GRANARY_SERVICE,
  GRANARY_SERVICE_ID,
  type HaStatus,
  HEALTHY_STATE,
  type MicroService,
  microServiceSchema,
  NODE_HEARTBEAT_INTERVAL_MS,
  NODE_MESSAGES,
  NODE_OFFLINE_AFTER_MS,
  NODE_REMOVABLE_AFTER_MS,
  type NodeStatus,
  OFFLINE_NODE_STATUS,
  ONLINE_NODE_STATUS,
  type ServiceNode,
  type ServiceStatus,
} from '@granary/contracts';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { Db } from '../../platform/db/index.ts';
import { ConflictError, NotFoundError } from '../../platform/errors.ts';
import type { Jobs } from '../../platform/jobs/index.ts';
import type { ServiceHealth } from './service-health.ts';
import { deleteSilentNode, listNodes, touchNode, upsertNode } from './system.queries.ts';

/** This node's id: kept in `$GRANARY_HOME/node-id`, so a restarted node keeps its row. */
export function readNodeId(home: string): string {
  const file = path.join(home, 'node-id');
  if (existsSync(file)) {
    const id = readFileSync(file, 'utf8').trim();
    if (id) return id;
  }
  const id = `node-${randomUUID()}`;
  writeFileSync(file, `${id}\n`, { mode: 0o644 });
  return id;
}

export interface SelfNode {
  id: string;
  hostName: string;
  /** The internal URL other nodes reach this one at (GRANARY_NODE_URL). */
  url: string;
  version: string;
  revision: string;
}

const storedServices = z.array(microServiceSchema).catch([]);

/**
 * The nodes sharing this database (issue 15). This node registers at start (id, host name, internal
 * URL, version, start time) and beats every 5 s (a `node` job of platform/jobs), writing the health of
 * its own parts with each beat; a node silent for 15 s is Offline (judged by the database's clock, the
 * same for every node), and one silent for a day can be removed by an admin.
 */
export class NodeRegistry {
  readonly startedAt: Date;
  private health: ServiceHealth | undefined;

  constructor(
    private readonly db: Db,
    readonly self: SelfNode,
    private readonly log: Logger,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.startedAt = now();
  }

  /** Registers this node and schedules its heartbeat; `health` gives the parts' health written with each beat. */
  async start(jobs: Jobs, health?: ServiceHealth, intervalMs = NODE_HEARTBEAT_INTERVAL_MS): Promise<void> {
    this.health = health;
    await this.register(health ? await health.collect().catch(() => []) : []);
    jobs.recurring({
      name: 'system.node-heartbeat',
      scope: 'node',
      intervalMs,
      run: () =>
        this.beat().catch((err) => {
          this.log.warn({ err }, 'node heartbeat failed');
          throw err;
        }),
    });
  }

  private register(services: unknown): Promise<void> {
    return upsertNode(this.db, {
      ...this.self,
      startedAt: this.startedAt,
      lastHeartbeatAt: this.now(),
      services,
    });
  }

  /** One heartbeat: the parts' health is checked, then written with the beat (a removed row is written again). */
  async beat(): Promise<void> {
    const services = this.health ? await this.health.collect({ probeBlobs: true }) : undefined;
    if (!(await touchNode(this.db, this.self.id, services))) await this.register(services ?? []);
  }

  async list(): Promise<NodeStatus[]> {
    return (await this.nodes()).map((n) => ({
      node_id: n.id,
      host_name: n.hostName,
      url: n.url,
      status: n.status,
      version: n.version,
      revision: n.revision,
      start_time: n.startedAt.toISOString(),
      last_heartbeat: n.lastHeartbeatAt.toISOString(),
      uptime_seconds: n.uptime,
      current: n.id === this.self.id,
    }));
  }

  /** spec 001 §3 HA status: node group → nodes with node_id and status. */
  async haStatus(): Promise<HaStatus> {
    return {
      [GRANARY_SERVICE]: (await this.nodes()).map((n) => ({ node_id: n.id, status: n.status })),
    };
  }

  /**
   * spec 001 §3 service status: services keyed by type with their nodes; a node is HEALTHY while it
   * is Online and each of its critical parts (HTTP, database, blob store) is; the parts of an Offline
   * node read UNHEALTHY (their last known health stays in the message).
   */
  async serviceStatus(): Promise<ServiceStatus> {
    const nodes: ServiceNode[] = (await this.nodes()).map((n) => {
      const online = n.status === ONLINE_NODE_STATUS;
      const parts = storedServices.parse(n.services).map(
        (p): MicroService =>
          online
            ? p
            : {
                ...p,
                state: 'UNHEALTHY',
                message: `Node offline since ${n.lastHeartbeatAt.toISOString()} (last known: ${p.message})`,
              },
      );
      const healthy =
        online && parts.length > 0 && parts.every((p) => !p.critical || p.state === HEALTHY_STATE);
      return {
        node_id: n.id,
        service_id: GRANARY_SERVICE_ID,
        status: n.status,
        state: healthy ? 'HEALTHY' : 'UNHEALTHY',
        host_name: n.hostName,
        url: n.url,
        version: n.version,
        start_time: n.startedAt.toISOString(),
        last_heartbeat: n.lastHeartbeatAt.toISOString(),
        uptime: n.uptime,
        current: n.id === this.self.id,
        micro_services: Object.fromEntries(parts.map((p) => [p.name, p])),
      };
    });
    return {
      services: {
        [GRANARY_SERVICE]: {
          state: nodes.some((n) => n.state === HEALTHY_STATE) ? 'HEALTHY' : 'UNHEALTHY',
          nodes,
        },
      },
    };
  }

  /**
   * `DELETE /access/api/v1/topology/{serviceId}/{nodeId}`: removes a node silent for at least a day
   * (its row: it drops out of every status); an online or recently seen node is refused (409).
   */
  async remove(serviceId: string, nodeId: string): Promise<void> {
    if (serviceId !== GRANARY_SERVICE_ID) throw new NotFoundError(NODE_MESSAGES.unknownService(serviceId));
    const node = (await this.nodes()).find((n) => n.id === nodeId);
    if (!node) throw new NotFoundError(NODE_MESSAGES.notFound(nodeId));
    if (node.status === ONLINE_NODE_STATUS || node.id === this.self.id)
      throw new ConflictError(NODE_MESSAGES.stillOnline(nodeId));
    if (!(await deleteSilentNode(this.db, nodeId, NODE_REMOVABLE_AFTER_MS)))
      throw new ConflictError(NODE_MESSAGES.recentlySeen(nodeId, node.lastHeartbeatAt.toISOString()));
  }

  private async nodes() {
    const { now, nodes } = await listNodes(this.db);
    return nodes.map((n) => ({
      ...n,
      hostName: n.hostName ?? '',
      status:
        now.getTime() - n.lastHeartbeatAt.getTime() > NODE_OFFLINE_AFTER_MS
          ? (OFFLINE_NODE_STATUS as typeof OFFLINE_NODE_STATUS)
          : (ONLINE_NODE_STATUS as typeof ONLINE_NODE_STATUS),
      uptime: Math.max(0, Math.floor((now.getTime() - n.startedAt.getTime()) / 1000)),
    }));
  }
}
