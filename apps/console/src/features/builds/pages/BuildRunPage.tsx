import { DownloadOutlined } from '@ant-design/icons';
import type { BuildRunDetails } from '@granary/contracts';
import { useQuery } from '@tanstack/react-query';
import {
  Breadcrumb,
  Button,
  Descriptions,
  Empty,
  Flex,
  Select,
  Space,
  Spin,
  Table,
  Tabs,
  Tag,
  Timeline,
  Typography,
} from 'antd';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { ErrorAlert } from '../../../shared/components/ErrorAlert.tsx';
import {
  formatDuration,
  latestStatus,
  RUN_TAB_LABELS,
  RUN_TABS,
  requestedByText,
  runTabOf,
  vulnerabilityBadges,
} from '../buildRules.ts';
import { CiLinkNotice } from '../components/CiLinkNotice.tsx';
import { PromoteBuildDialog } from '../components/PromoteBuildDialog.tsx';
import {
  buildDiffQueryOptions,
  buildHistoryQueryOptions,
  buildRunQueryOptions,
  provenanceUrl,
} from '../queries.ts';

type Module = BuildRunDetails['modules'][number];
const SEVERITY_COLOUR = {
  critical: 'magenta',
  high: 'red',
  medium: 'orange',
  low: 'gold',
  unknown: 'default',
};

function StoredAt({ link }: { link: { repoKey: string; path: string } | null }) {
  if (!link) return <Typography.Text type="secondary">not stored here</Typography.Text>;
  return (
    <Link to={`/repos/tree/General/${encodeURIComponent(link.repoKey)}/${link.path}`}>
      {link.repoKey}/{link.path}
    </Link>
  );
}

function Modules({ modules }: { modules: Module[] }) {
  if (modules.length === 0) return <Empty description="This run published no modules" />;
  return (
    <Flex vertical gap="large">
      {modules.map((m) => (
        <section key={m.id} aria-label={`Module ${m.id}`}>
          <Typography.Title level={3} style={{ fontSize: 16 }}>
            {m.id} {m.type && <Tag>{m.type}</Tag>}
          </Typography.Title>
          <Table
            rowKey={(a) => `${a.name}:${a.sha256 ?? a.sha1 ?? ''}`}
            size="small"
            pagination={false}
            dataSource={m.artifacts}
            locale={{ emptyText: 'No artifacts' }}
            columns={[
              { title: 'Artifact', dataIndex: 'name', key: 'name' },
              { title: 'Type', key: 'type', render: (_, a) => a.type ?? '' },
              { title: 'Stored at', key: 'link', render: (_, a) => <StoredAt link={a.link} /> },
              {
                title: 'SHA-256',
                key: 'sha256',
                render: (_, a) => (
                  <Typography.Text code>{(a.sha256 ?? a.sha1 ?? '').slice(0, 12)}</Typography.Text>
                ),
              },
            ]}
          />
        </section>
      ))}
    </Flex>
  );
}

/** A cell whose long unbroken text (Maven coordinates, paths) may wrap anywhere. */
const wraps = () => ({ style: { overflowWrap: 'anywhere' as const } });

function Dependencies({ modules }: { modules: Module[] }) {
  const rows = modules.flatMap((m) => m.dependencies.map((d) => ({ ...d, module: m.id })));
  return (
    <Table
      rowKey={(d) => `${d.module}:${d.id}`}
      size="small"
      // No sideways scrolling: the long coordinates wrap (`wraps`), so every column (Stored at last) stays in view.
      dataSource={rows}
      pagination={{ pageSize: 50, hideOnSinglePage: true }}
      locale={{ emptyText: <Empty description="This run recorded no dependencies" /> }}
      columns={[
        { title: 'Dependency', dataIndex: 'id', key: 'id', onCell: wraps },
        ...(modules.length > 1 ? [{ title: 'Module', dataIndex: 'module' as const, key: 'module' }] : []),
        { title: 'Scopes', key: 'scopes', render: (_, d) => d.scopes.join(', ') },
        {
          title: 'Requested by',
          key: 'requestedBy',
          onCell: wraps,
          render: (_, d) => {
            const chains = requestedByText(d.requestedBy);
            return chains.length === 0 ? (
              <Typography.Text type="secondary">direct</Typography.Text>
            ) : (
              chains.map((c) => <div key={c}>{c}</div>)
            );
          },
        },
        {
          title: 'Vulnerabilities',
          key: 'vulnerabilities',
          render: (_, d) => {
            const badges = vulnerabilityBadges(d.vulnerabilities);
            if (badges === null) return <Typography.Text type="secondary">not scanned</Typography.Text>;
            if (badges.length === 0) return <Tag color="green">none</Tag>;
            return badges.map(([severity, n]) => (
              <Tag key={severity} color={SEVERITY_COLOUR[severity]}>
                {n} {severity}
              </Tag>
            ));
          },
        },
        { title: 'Stored at', key: 'link', onCell: wraps, render: (_, d) => <StoredAt link={d.link} /> },
      ]}
    />
  );
}

function KeyValues({ entries, empty }: { entries: [string, string][]; empty: string }) {
  return (
    <Table
      rowKey={([k]) => k}
      size="small"
      pagination={{ pageSize: 50, hideOnSinglePage: true }}
      dataSource={entries}
      locale={{ emptyText: <Empty description={empty} /> }}
      columns={[
        { title: 'Key', key: 'k', render: (_, [k]) => <Typography.Text code>{k}</Typography.Text> },
        { title: 'Value', key: 'v', render: (_, [, v]) => v },
      ]}
    />
  );
}

function Diff({ name, number }: { name: string; number: string }) {
  const history = useQuery(buildHistoryQueryOptions(name));
  const others = (history.data?.runs ?? []).filter((r) => r.number !== number);
  const [other, setOther] = useState<string | null>(null);
  const diff = useQuery({ ...buildDiffQueryOptions(name, number, other ?? ''), enabled: other !== null });
  const part = (
    title: string,
    p: { new: unknown[]; updated: unknown[]; removed: unknown[]; unchanged: unknown[] },
  ) => ({
    title,
    rows: (['new', 'updated', 'removed', 'unchanged'] as const).flatMap((kind) =>
      (p[kind] as Record<string, unknown>[]).map((item) => ({
        kind,
        label: String(item.name ?? item.id ?? item.key ?? ''),
        value:
          item.value === undefined
            ? ''
            : `${String(item.diffValue ?? '')}${item.diffValue ? ' → ' : ''}${String(item.value)}`,
      })),
    ),
  });
  const colour = { new: 'green', updated: 'orange', removed: 'red', unchanged: 'default' } as const;
  return (
    <Flex vertical gap="middle">
      <Space>
        <label htmlFor="diff-other">Compare with run</label>
        <Select
          id="diff-other"
          style={{ minWidth: 160 }}
          placeholder="Choose a run"
          value={other ?? undefined}
          onChange={setOther}
          options={others.map((r) => ({ value: r.number, label: `#${r.number}` }))}
          notFoundContent="No other run"
        />
      </Space>
      {diff.error && <ErrorAlert error={diff.error} />}
      {diff.isFetching && <Spin />}
      {diff.data &&
        [
          part('Artifacts', diff.data.artifacts),
          part('Dependencies', diff.data.dependencies),
          part('Environment', diff.data.properties),
        ].map((section) => (
          <section key={section.title} aria-label={`${section.title} diff`}>
            <Typography.Title level={3} style={{ fontSize: 16 }}>
              {section.title}
            </Typography.Title>
            <Table
              rowKey={(r) => `${r.kind}:${r.label}`}
              size="small"
              pagination={false}
              dataSource={section.rows.filter((r) => r.kind !== 'unchanged')}
              locale={{ emptyText: 'No change' }}
              columns={[
                {
                  title: 'Change',
                  key: 'kind',
                  render: (_, r) => <Tag color={colour[r.kind]}>{r.kind}</Tag>,
                },
                { title: 'Item', dataIndex: 'label', key: 'label' },
                { title: 'Value', dataIndex: 'value', key: 'value' },
              ]}
            />
          </section>
        ))}
    </Flex>
  );
}

/**
 * Issue 19 run details: published modules and their artifacts, dependencies (requestedBy, vulnerability counts),
 * environment, issues, VCS, diff against another run, release history (promotion statuses); the promotion dialog
 * and the provenance download.
 */
export function BuildRunPage() {
  const { buildName = '', buildNumber = '', tab } = useParams();
  const navigate = useNavigate();
  const details = useQuery(buildRunQueryOptions(buildName, buildNumber));
  const [promoting, setPromoting] = useState(false);
  const active = runTabOf(tab);
  const d = details.data;
  const base = `/builds/${encodeURIComponent(buildName)}/${encodeURIComponent(buildNumber)}`;
  const content = (t: (typeof RUN_TABS)[number]) => {
    if (!d) return null;
    switch (t) {
      case 'modules':
        return <Modules modules={d.modules} />;
      case 'dependencies':
        return <Dependencies modules={d.modules} />;
      case 'environment':
        return <KeyValues entries={Object.entries(d.environment)} empty="No environment recorded" />;
      case 'issues':
        return (
          <Table
            rowKey={(i) => i.key ?? i.url ?? ''}
            size="small"
            pagination={false}
            dataSource={d.issues?.affectedIssues ?? []}
            locale={{ emptyText: <Empty description="No issues recorded" /> }}
            columns={[
              {
                title: 'Issue',
                key: 'key',
                render: (_, i) => (i.url ? <a href={i.url}>{i.key}</a> : i.key),
              },
              { title: 'Summary', key: 'summary', render: (_, i) => i.summary ?? '' },
            ]}
          />
        );
      case 'vcs':
        return d.vcs.length === 0 ? (
          <Empty description="No VCS information recorded" />
        ) : (
          <Flex vertical gap="middle">
            {d.vcs.map((v) => (
              <Descriptions
                key={`${v.url}:${v.revision}`}
                bordered
                size="small"
                column={1}
                items={[
                  { key: 'url', label: 'URL', children: v.url ?? '' },
                  { key: 'branch', label: 'Branch', children: v.branch ?? '' },
                  { key: 'revision', label: 'Revision', children: v.revision ?? '' },
                  { key: 'message', label: 'Message', children: v.message ?? '' },
                ]}
              />
            ))}
          </Flex>
        );
      case 'diff':
        return <Diff name={buildName} number={buildNumber} />;
      case 'history':
        return d.statuses.length === 0 ? (
          <Empty description="This run was never promoted" />
        ) : (
          <Timeline
            items={[...d.statuses].reverse().map((s) => ({
              key: `${s.timestamp}:${s.status}`,
              children: (
                <>
                  <Tag color="blue">{s.status}</Tag>
                  {s.repository && <> to {s.repository}</>} — {new Date(s.timestamp).toLocaleString()}
                  {s.user && <> by {s.user}</>}
                  {s.comment && <div>{s.comment}</div>}
                </>
              ),
            }))}
          />
        );
    }
  };
  return (
    <Flex vertical gap="middle">
      <Breadcrumb
        items={[
          { title: <Link to="/builds">Builds</Link> },
          { title: <Link to={`/builds/${encodeURIComponent(buildName)}`}>{buildName}</Link> },
          { title: `#${buildNumber}` },
        ]}
      />
      <Flex justify="space-between" align="center" wrap gap="middle">
        <Typography.Title level={1} style={{ margin: 0 }}>
          {buildName} #{buildNumber}
        </Typography.Title>
        <Space>
          <Button
            icon={<DownloadOutlined aria-hidden />}
            href={provenanceUrl(buildName, buildNumber, d?.provenanceUri)}
            download={`${buildName}-${buildNumber}.provenance.json`}
          >
            Provenance
          </Button>
          <Button type="primary" onClick={() => setPromoting(true)} disabled={!d}>
            Promote
          </Button>
        </Space>
      </Flex>
      <CiLinkNotice />
      {details.error && <ErrorAlert error={details.error} />}
      {details.isPending && <Spin />}
      {d && (
        <Descriptions
          size="small"
          bordered
          column={{ xs: 1, md: 3 }}
          items={[
            { key: 'started', label: 'Started', children: new Date(d.run.startedAt).toLocaleString() },
            { key: 'duration', label: 'Duration', children: formatDuration(d.run.durationMillis) },
            { key: 'agent', label: 'Agent', children: d.run.agent ?? '' },
            {
              key: 'status',
              label: 'Status',
              children: latestStatus(d.statuses) ?? d.run.status ?? 'No status',
            },
            { key: 'by', label: 'Uploaded by', children: d.run.uploadedBy },
            {
              key: 'ci',
              label: 'CI run',
              children: d.run.url ? <a href={d.run.url}>{d.run.url}</a> : '',
            },
          ]}
        />
      )}
      {d && (
        <Tabs
          activeKey={active}
          onChange={(key) => navigate(`${base}/${key}`)}
          items={RUN_TABS.map((t) => ({ key: t, label: RUN_TAB_LABELS[t], children: content(t) }))}
        />
      )}
      {promoting && (
        <PromoteBuildDialog name={buildName} number={buildNumber} onClose={() => setPromoting(false)} />
      )}
    </Flex>
  );
}
