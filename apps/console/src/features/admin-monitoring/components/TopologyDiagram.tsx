import type { MicroService, ServiceNode } from '@granary/contracts';
import { useId } from 'react';

const HEALTHY = '#1f5f3a';
const UNHEALTHY = '#a8071a';
const GREY = '#737373';

const NODE_W = 260;
const GAP = 48;
const HEADER_H = 58;
const ROW_H = 20;
const PAD = 12;
const SHARED_W = 240;
const SHARED_H = 64;
const LINK_SPACE = 90;
const TOP = 16;

const DATABASE_KIND: Record<string, string> = {
  postgres: 'PostgreSQL server',
  pglite: 'Embedded PostgreSQL (PGlite)',
};
const BLOBSTORE_KIND: Record<string, string> = {
  s3: 'S3-compatible object storage',
  filesystem: 'Filesystem ($GRANARY_HOME/blobs)',
};

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** What a node's part looks like in the drawing: healthy parts green, failing red, an offline node's grey. */
function partColour(node: ServiceNode, part: MicroService | undefined): string {
  if (node.status !== 'Online') return GREY;
  return part?.state === 'HEALTHY' ? HEALTHY : UNHEALTHY;
}

/**
 * The topology of this installation, drawn (issue 15 `/admin/mission_control/topology`): each node as a box with
 * its status and the health of every part, and lines to the database and the blob store all nodes share — a
 * line's colour is the health of that node's connection to it (grey and dashed for an offline node).
 */
export function TopologyDiagram({ nodes }: { nodes: ServiceNode[] }) {
  const titleId = useId();
  const descId = useId();
  const rows = Math.max(1, ...nodes.map((n) => Object.keys(n.micro_services).length));
  const nodeH = HEADER_H + rows * ROW_H + PAD * 2;
  const width = Math.max(nodes.length * (NODE_W + GAP) + GAP, 2 * SHARED_W + 3 * GAP);
  const sharedY = TOP + nodeH + LINK_SPACE;
  const height = sharedY + SHARED_H + TOP;
  const nodeX = (i: number) => (width - (nodes.length * (NODE_W + GAP) - GAP)) / 2 + i * (NODE_W + GAP);
  const dbX = width / 2 - GAP / 2 - SHARED_W;
  const blobX = width / 2 + GAP / 2;

  const kindOf = (name: 'database' | 'blobstore') =>
    String(nodes.map((n) => n.micro_services[name]?.detail.kind).find((k) => typeof k === 'string') ?? '');
  const databaseKind = kindOf('database');
  const blobKind = kindOf('blobstore');
  const summary = nodes
    .map((n) => {
      const failing = Object.values(n.micro_services).filter((p) => p.state !== 'HEALTHY');
      return `${n.node_id} (${n.host_name}) ${n.status}, ${failing.length === 0 ? 'all services healthy' : `failing: ${failing.map((p) => p.name).join(', ')}`}`;
    })
    .join('; ');

  return (
    <svg
      role="img"
      aria-labelledby={`${titleId} ${descId}`}
      width={width}
      height={height}
      viewBox={`0 0 ${width} ${height}`}
      style={{ maxWidth: '100%', height: 'auto', fontFamily: 'inherit' }}
      data-testid="topology-diagram"
    >
      <title id={titleId}>
        Topology: {nodes.length} node{nodes.length === 1 ? '' : 's'} sharing one database and one blob store
      </title>
      <desc id={descId}>{summary}</desc>

      {nodes.map((n, i) => {
        const x = nodeX(i) + NODE_W / 2;
        const y = TOP + nodeH;
        const offline = n.status !== 'Online';
        const line = (to: number, part: 'database' | 'blobstore') => (
          <line
            key={part}
            x1={x}
            y1={y}
            x2={to + SHARED_W / 2}
            y2={sharedY}
            stroke={partColour(n, n.micro_services[part])}
            strokeWidth={2.5}
            strokeDasharray={offline ? '6 5' : undefined}
            data-link={`${n.node_id}-${part}`}
          />
        );
        return (
          <g key={`links-${n.node_id}`}>
            {line(dbX, 'database')}
            {line(blobX, 'blobstore')}
          </g>
        );
      })}

      {nodes.map((n, i) => {
        const x = nodeX(i);
        const online = n.status === 'Online';
        const band = online ? (n.state === 'HEALTHY' ? HEALTHY : UNHEALTHY) : GREY;
        const parts = Object.values(n.micro_services);
        return (
          <g key={n.node_id} data-node={n.node_id}>
            <rect
              x={x}
              y={TOP}
              width={NODE_W}
              height={nodeH}
              rx={8}
              fill="#ffffff"
              stroke={band}
              strokeWidth={2}
            />
            <rect x={x} y={TOP} width={NODE_W} height={HEADER_H} rx={8} fill={band} />
            <rect x={x} y={TOP + HEADER_H - 8} width={NODE_W} height={8} fill={band} />
            <text x={x + PAD} y={TOP + 22} fill="#ffffff" fontSize={14} fontWeight={600}>
              {clip(n.node_id, 25)}
            </text>
            <text x={x + PAD} y={TOP + 44} fill="#ffffff" fontSize={12}>
              {clip(`${n.host_name || n.url} · ${n.status}${n.current ? ' · this node' : ''}`, 38)}
            </text>
            {parts.length === 0 && (
              <text x={x + PAD} y={TOP + HEADER_H + PAD + 14} fontSize={12} fill="#434343">
                No services reported yet
              </text>
            )}
            {parts.map((p, j) => {
              const y = TOP + HEADER_H + PAD + j * ROW_H + 14;
              const colour = partColour(n, p);
              return (
                <g key={p.name}>
                  <circle cx={x + PAD + 5} cy={y - 4} r={5} fill={colour} />
                  <text x={x + PAD + 16} y={y} fontSize={12} fill="#1f1f1f">
                    {clip(p.name, 26)}
                  </text>
                  <text
                    x={x + NODE_W - PAD}
                    y={y}
                    fontSize={12}
                    fill={colour}
                    textAnchor="end"
                    fontWeight={600}
                  >
                    {online ? (p.state === 'HEALTHY' ? 'OK' : 'FAILING') : 'offline'}
                  </text>
                </g>
              );
            })}
          </g>
        );
      })}

      {(
        [
          [dbX, 'Database', DATABASE_KIND[databaseKind] ?? 'Shared by every node'],
          [blobX, 'Blob store', BLOBSTORE_KIND[blobKind] ?? 'Shared by every node'],
        ] as const
      ).map(([x, label, kind]) => (
        <g key={label} data-shared={label}>
          <rect
            x={x}
            y={sharedY}
            width={SHARED_W}
            height={SHARED_H}
            rx={8}
            fill="#f0f5ff"
            stroke="#1d39c4"
            strokeWidth={2}
          />
          <text
            x={x + SHARED_W / 2}
            y={sharedY + 26}
            textAnchor="middle"
            fontSize={14}
            fontWeight={600}
            fill="#10239e"
          >
            {label}
          </text>
          <text x={x + SHARED_W / 2} y={sharedY + 46} textAnchor="middle" fontSize={12} fill="#1f1f1f">
            {kind}
          </text>
        </g>
      ))}
    </svg>
  );
}
