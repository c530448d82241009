import { Column, Line, Pie } from '@ant-design/plots';
import type { StorageHistory, StorageSummary } from '@granary/contracts';
import { Card, Col, Empty, Row } from 'antd';
import { formatBytes } from '../bytes.ts';

/** The repositories drawn one by one in the usage chart; the rest are summed as "others". */
const TOP_REPOSITORIES = 8;

interface Props {
  summary: StorageSummary;
  history: StorageHistory;
}

const bytesAxis = { y: { labelFormatter: (v: number) => formatBytes(v) } };
const bytesTooltip = { items: [{ channel: 'y', valueFormatter: (v: number) => formatBytes(v) }] };

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

/**
 * issue 21: the storage page's charts — use by repository over time, by package type, daily growth. Loaded
 * on its own (React.lazy), so the chart library is fetched only by this page.
 */
export function StorageCharts({ summary, history }: Props) {
  const usage = usageSeries(history);
  const growth = growthSeries(history);
  const byType = summary.packageTypesSummaryList.filter((t) => t.usedSpace > 0);
  return (
    <Row gutter={[16, 16]}>
      <Col xs={24} xl={12}>
        <Card title={<h2 className="card-heading">Usage by repository</h2>} size="small">
          <div role="img" aria-label="Usage by repository over time">
            <Line
              data={usage}
              xField="day"
              yField="bytes"
              colorField="repository"
              height={260}
              axis={bytesAxis}
              tooltip={bytesTooltip}
              point={{ shapeField: 'circle', sizeField: 3 }}
            />
          </div>
        </Card>
      </Col>
      <Col xs={24} md={12} xl={6}>
        <Card title={<h2 className="card-heading">By package type</h2>} size="small">
          {byType.length === 0 ? (
            <Empty description="No files stored yet" />
          ) : (
            <div role="img" aria-label="Usage by package type">
              <Pie
                data={byType}
                angleField="usedSpace"
                colorField="packageType"
                height={260}
                innerRadius={0.6}
                tooltip={{ items: [{ field: 'usedSpace', valueFormatter: (v: number) => formatBytes(v) }] }}
                legend={{ color: { position: 'bottom' } }}
              />
            </div>
          )}
        </Card>
      </Col>
      <Col xs={24} md={12} xl={6}>
        <Card title={<h2 className="card-heading">Daily growth</h2>} size="small">
          {growth.length === 0 ? (
            <Empty description="Growth shows from the second day of snapshots" />
          ) : (
            <div role="img" aria-label="Daily growth of the storage used">
              <Column
                data={growth}
                xField="day"
                yField="growth"
                height={260}
                axis={bytesAxis}
                tooltip={bytesTooltip}
              />
            </div>
          )}
        </Card>
      </Col>
    </Row>
  );
}
