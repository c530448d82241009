import type { StorageHistory, StorageSummary } from '@granary/contracts';
import { Card, Col, Empty, Flex, Row, theme } from 'antd';
import { type ScaleLinear, scaleBand, scaleLinear, scalePoint } from 'd3-scale';
import { arc, line, pie } from 'd3-shape';
import { type ReactNode, useId } from 'react';
import { formatBytes } from '../bytes.ts';

/** The repositories drawn one by one in the usage chart; the rest are summed as "others". */
const TOP_REPOSITORIES = 8;

/** Ten categorical colours (Ant Design's chart palette), told apart also by the legend's order. */
const PALETTE = [
  '#1783FF',
  '#00C9C9',
  '#F0884D',
  '#D580FF',
  '#7863FF',
  '#60C42D',
  '#BD8F24',
  '#FF80CA',
  '#2491B3',
  '#17C76F',
];
const colour = (i: number) => PALETTE[i % PALETTE.length]!;

interface Props {
  summary: StorageSummary;
  history: StorageHistory;
}

/** Usage per repository per day: the largest repositories by name, the others together. */
export function usageSeries(history: StorageHistory) {
  const latest = new Map<string, number>();
  for (const s of history.snapshots) latest.set(s.repoKey, s.usedBytes);
  const top = new Set(
    [...latest]
      .sort((a, b) => b[1] - a[1])
      .slice(0, TOP_REPOSITORIES)
      .map(([k]) => k),
  );
  const points = new Map<string, { day: string; repository: string; bytes: number }>();
  for (const s of history.snapshots) {
    const repository = top.has(s.repoKey) ? s.repoKey : 'others';
    const key = `${s.day}\u0000${repository}`;
    const p = points.get(key) ?? { day: s.day, repository, bytes: 0 };
    p.bytes += s.usedBytes;
    points.set(key, p);
  }
  return [...points.values()];
}

/** The change in total use from one day to the next. */
export function growthSeries(history: StorageHistory) {
  const totals = new Map<string, number>();
  for (const s of history.snapshots) totals.set(s.day, (totals.get(s.day) ?? 0) + s.usedBytes);
  const days = [...totals].sort((a, b) => a[0].localeCompare(b[0]));
  return days.slice(1).map(([day, bytes], i) => ({ day, growth: bytes - days[i]![1] }));
}

/** `2026-11-24` → `11-24`: the axis has little room. */
const shortDay = (day: string) => day.slice(5);

/** At most `n` evenly spread items (first and last included), for axis labels. */
function spread<T>(items: T[], n: number): T[] {
  if (items.length <= n) return items;
  const step = (items.length - 1) / (n - 1);
  return Array.from({ length: n }, (_, i) => items[Math.round(i * step)]!);
}

const FONT = 11;

/**
 * A bytes axis with round ticks in binary units (0, 20 KB, 40 KB … rather than 20 KB = 20,000 B): the
 * domain is made nice in the unit of its largest end, then scaled back to bytes.
 */
export function bytesScale(lo: number, hi: number, range: [number, number]) {
  const largest = Math.max(Math.abs(lo), Math.abs(hi), 1);
  const unit = 1024 ** Math.max(0, Math.min(5, Math.floor(Math.log(largest) / Math.log(1024))));
  const inUnits = scaleLinear()
    .domain([lo / unit, hi / unit])
    .nice(4);
  const [a, b] = inUnits.domain() as [number, number];
  const y = scaleLinear()
    .domain([a * unit, b * unit])
    .range(range);
  return { y, ticks: inUnits.ticks(4).map((t) => t * unit) };
}

function useChartColours() {
  const { token } = theme.useToken();
  return { text: token.colorTextSecondary, grid: token.colorBorderSecondary, axis: token.colorBorder };
}

/** A y axis of bytes with grid lines across the plot. */
function BytesAxis({
  y,
  ticks,
  left,
  right,
}: {
  y: ScaleLinear<number, number>;
  ticks: number[];
  left: number;
  right: number;
}) {
  const c = useChartColours();
  return (
    <g>
      {ticks.map((t) => (
        <g key={t}>
          <line x1={left} x2={right} y1={y(t)} y2={y(t)} stroke={c.grid} />
          <text x={left - 6} y={y(t)} dy="0.32em" textAnchor="end" fontSize={FONT} fill={c.text}>
            {formatBytes(t)}
          </text>
        </g>
      ))}
    </g>
  );
}

/**
 * A chart and its data: the drawing is one image with a summary for screen readers, and the same numbers
 * follow in a table (read by screen readers; hidden on screen).
 */
function ChartFigure({
  label,
  summary,
  table,
  children,
}: {
  label: string;
  summary: string;
  table: { caption: string; head: string[]; rows: ReactNode[][] };
  children: ReactNode;
}) {
  const id = useId();
  return (
    <figure style={{ margin: 0 }}>
      <div role="img" aria-label={label} aria-describedby={id}>
        {children}
      </div>
      <figcaption id={id} className="sr-only">
        {summary}
      </figcaption>
      <table className="sr-only">
        <caption>{table.caption}</caption>
        <thead>
          <tr>
            {table.head.map((h) => (
              <th key={h} scope="col">
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {table.rows.map((r, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: rows of a static table
            <tr key={i}>
              {r.map((cell, j) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: cells of a static row
                <td key={j}>{cell}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}

/** A legend under a chart: a swatch per series. */
function Legend({ items }: { items: { name: string; colour: string; note?: string }[] }) {
  const c = useChartColours();
  return (
    <Flex wrap gap="small" style={{ fontSize: 12, color: c.text, marginTop: 4 }} aria-hidden="true">
      {items.map((it) => (
        <span key={it.name} style={{ whiteSpace: 'nowrap' }}>
          <span
            style={{
              display: 'inline-block',
              width: 10,
              height: 10,
              borderRadius: 2,
              background: it.colour,
              marginRight: 4,
              verticalAlign: 'middle',
            }}
          />
          {it.name}
          {it.note ? ` ${it.note}` : ''}
        </span>
      ))}
    </Flex>
  );
}

const W = 560;
const H = 240;
const M = { top: 10, right: 16, bottom: 24, left: 60 };

/** Use by repository over time: one line per repository. */
export function UsageChart({ history }: { history: StorageHistory }) {
  const c = useChartColours();
  const usage = usageSeries(history);
  const days = [...new Set(usage.map((p) => p.day))].sort();
  const names = [...new Set(usage.map((p) => p.repository))];
  const byName = new Map(names.map((n) => [n, usage.filter((p) => p.repository === n)]));
  const x = scalePoint<string>()
    .domain(days)
    .range([M.left, W - M.right])
    .padding(days.length === 1 ? 0.5 : 0);
  const { y, ticks } = bytesScale(0, Math.max(1, ...usage.map((p) => p.bytes)), [H - M.bottom, M.top]);
  const path = line<{ day: string; bytes: number }>()
    .x((p) => x(p.day) ?? 0)
    .y((p) => y(p.bytes));
  const latest = days.at(-1);
  const summary =
    days.length === 0
      ? 'No snapshots yet'
      : `${names.length} series over ${days.length} day${days.length === 1 ? '' : 's'} (${days[0]} to ${latest}); on ${latest}: ${names
          .map((n) => `${n} ${formatBytes(byName.get(n)!.find((p) => p.day === latest)?.bytes ?? 0)}`)
          .join(', ')}`;
  return (
    <ChartFigure
      label="Usage by repository over time"
      summary={summary}
      table={{
        caption: 'Usage by repository per day',
        head: ['Day', 'Repository', 'Used'],
        rows: usage.map((p) => [p.day, p.repository, formatBytes(p.bytes)]),
      }}
    >
      <svg viewBox={`0 0 ${W} ${H}`} width="100%" style={{ display: 'block' }} aria-hidden="true">
        <BytesAxis y={y} ticks={ticks} left={M.left} right={W - M.right} />
        <line x1={M.left} x2={W - M.right} y1={H - M.bottom} y2={H - M.bottom} stroke={c.axis} />
        {spread(days, 6).map((d) => (
          <text key={d} x={x(d)} y={H - M.bottom + 16} textAnchor="middle" fontSize={FONT} fill={c.text}>
            {shortDay(d)}
          </text>
        ))}
        {names.map((n, i) => {
          const points = byName.get(n)!;
          return (
            <g key={n} stroke={colour(i)} fill={colour(i)}>
              <path d={path(points) ?? ''} fill="none" strokeWidth={2} />
              {points.map((p) => (
                <circle key={p.day} cx={x(p.day)} cy={y(p.bytes)} r={3}>
                  <title>{`${n}, ${p.day}: ${formatBytes(p.bytes)}`}</title>
                </circle>
              ))}
            </g>
          );
        })}
      </svg>
      <Legend items={names.map((n, i) => ({ name: n, colour: colour(i) }))} />
    </ChartFigure>
  );
}

/** Use by package type: a doughnut. */
export function TypesChart({ types }: { types: StorageSummary['packageTypesSummaryList'] }) {
  const size = 200;
  const r = size / 2;
  const total = types.reduce((s, t) => s + t.usedSpace, 0);
  const slices = pie<(typeof types)[number]>()
    .value((t) => t.usedSpace)
    .sort(null)(types);
  const shape = arc<(typeof slices)[number]>()
    .innerRadius(r * 0.6)
    .outerRadius(r - 2)
    .padAngle(types.length > 1 ? 0.01 : 0);
  const percent = (v: number) => `${Math.round((v / total) * 100)} %`;
  return (
    <ChartFigure
      label="Usage by package type"
      summary={types
        .map((t) => `${t.packageType} ${formatBytes(t.usedSpace)} (${percent(t.usedSpace)})`)
        .join(', ')}
      table={{
        caption: 'Usage by package type',
        head: ['Package type', 'Files', 'Used', 'Share'],
        rows: types.map((t) => [t.packageType, t.filesCount, formatBytes(t.usedSpace), percent(t.usedSpace)]),
      }}
    >
      <svg
        viewBox={`0 0 ${size} ${size}`}
        width="100%"
        style={{ display: 'block', maxHeight: 200 }}
        aria-hidden="true"
      >
        <g transform={`translate(${r},${r})`}>
          {slices.map((s, i) => (
            <path key={s.data.packageType} d={shape(s) ?? ''} fill={colour(i)}>
              <title>{`${s.data.packageType}: ${formatBytes(s.data.usedSpace)} (${percent(s.data.usedSpace)})`}</title>
            </path>
          ))}
          <text textAnchor="middle" dy="0.32em" fontSize={14} fill="currentColor">
            {formatBytes(total)}
          </text>
        </g>
      </svg>
      <Legend
        items={types.map((t, i) => ({ name: t.packageType, colour: colour(i), note: percent(t.usedSpace) }))}
      />
    </ChartFigure>
  );
}

/** The change of the total from one day to the next: a column per day (below the line when it shrank). */
export function GrowthChart({ growth }: { growth: { day: string; growth: number }[] }) {
  const c = useChartColours();
  const { token } = theme.useToken();
  const w = 300;
  const m = { ...M, left: 56, right: 8 };
  const x = scaleBand<string>()
    .domain(growth.map((g) => g.day))
    .range([m.left, w - m.right])
    .padding(0.25);
  const values = growth.map((g) => g.growth);
  const { y, ticks } = bytesScale(Math.min(0, ...values), Math.max(1, ...values), [H - m.bottom, m.top]);
  const last = growth.at(-1);
  return (
    <ChartFigure
      label="Daily growth of the storage used"
      summary={last ? `On ${last.day}: ${last.growth >= 0 ? '+' : ''}${formatBytes(last.growth)}` : ''}
      table={{
        caption: 'Daily growth of the storage used',
        head: ['Day', 'Change'],
        rows: growth.map((g) => [g.day, `${g.growth >= 0 ? '+' : ''}${formatBytes(g.growth)}`]),
      }}
    >
      <svg viewBox={`0 0 ${w} ${H}`} width="100%" style={{ display: 'block' }} aria-hidden="true">
        <BytesAxis y={y} ticks={ticks} left={m.left} right={w - m.right} />
        {growth.map((g) => (
          <rect
            key={g.day}
            x={x(g.day)}
            width={x.bandwidth()}
            y={Math.min(y(g.growth), y(0))}
            height={Math.max(1, Math.abs(y(g.growth) - y(0)))}
            fill={g.growth >= 0 ? token.colorPrimary : token.colorSuccess}
          >
            <title>{`${g.day}: ${g.growth >= 0 ? '+' : ''}${formatBytes(g.growth)}`}</title>
          </rect>
        ))}
        <line x1={m.left} x2={w - m.right} y1={y(0)} y2={y(0)} stroke={c.axis} />
        {spread(
          growth.map((g) => g.day),
          4,
        ).map((d) => (
          <text
            key={d}
            x={(x(d) ?? 0) + x.bandwidth() / 2}
            y={H - m.bottom + 16}
            textAnchor="middle"
            fontSize={FONT}
            fill={c.text}
          >
            {shortDay(d)}
          </text>
        ))}
      </svg>
    </ChartFigure>
  );
}

/**
 * issue 21: the storage page's charts — use by repository over time, by package type, daily growth. Drawn
 * as SVG with d3-scale and d3-shape (a few KB; the former chart library was a 480 KB gzip chunk), still
 * loaded on its own (React.lazy) with this page only. Each chart has a summary and its data as a table.
 */
export function StorageCharts({ summary, history }: Props) {
  const growth = growthSeries(history);
  const byType = summary.packageTypesSummaryList.filter((t) => t.usedSpace > 0);
  return (
    <Row gutter={[16, 16]}>
      <Col xs={24} xl={12}>
        <Card title={<h2 className="card-heading">Usage by repository</h2>} size="small">
          <UsageChart history={history} />
        </Card>
      </Col>
      <Col xs={24} md={12} xl={6}>
        <Card title={<h2 className="card-heading">By package type</h2>} size="small">
          {byType.length === 0 ? <Empty description="No files stored yet" /> : <TypesChart types={byType} />}
        </Card>
      </Col>
      <Col xs={24} md={12} xl={6}>
        <Card title={<h2 className="card-heading">Daily growth</h2>} size="small">
          {growth.length === 0 ? (
            <Empty description="Growth shows from the second day of snapshots" />
          ) : (
            <GrowthChart growth={growth} />
          )}
        </Card>
      </Col>
    </Row>
  );
}
