import { UploadOutlined } from '@ant-design/icons';
import type { AdvisoryImportResult } from '@granary/contracts';
import { useQuery } from '@tanstack/react-query';
import { Alert, App, Button, Card, Descriptions, Empty, Flex, Input, Space, Table, Upload } from 'antd';
import { useState } from 'react';
import { QueryState } from '../../../shared/components/AdminPage.tsx';
import { ErrorAlert } from '../../../shared/components/ErrorAlert.tsx';
import { advisoryStatusQueryOptions, useImportAdvisoriesMutation } from '../queries.ts';
import { formatDateTime } from '../securityRules.ts';

const resultText = (r: AdvisoryImportResult) =>
  `${r.imported} new, ${r.updated} updated${r.unchanged === undefined ? '' : `, ${r.unchanged} unchanged`}` +
  (Object.keys(r.ecosystems).length
    ? ` (${Object.entries(r.ecosystems)
        .map(([eco, n]) => `${eco} ${n}`)
        .join(', ')})`
    : '');

/**
 * The advisory database (admin): records per ecosystem and the last import; import an OSV archive (`all.zip` of
 * `{id}.json`) from a file or a URL. Nothing is downloaded without an admin's choice.
 */
export function AdvisoriesTab() {
  const { message } = App.useApp();
  const status = useQuery(advisoryStatusQueryOptions());
  const importer = useImportAdvisoriesMutation();
  const [url, setUrl] = useState('');
  const [last, setLast] = useState<AdvisoryImportResult | null>(null);

  const run = (source: { file: Blob } | { url: string }) =>
    importer.mutate(source, {
      onSuccess: (result) => {
        setLast(result);
        message.success(`Advisories imported: ${resultText(result)}`);
      },
    });

  const s = status.data;
  const ecosystems = Object.entries(s?.ecosystems ?? {})
    .map(([ecosystem, records]) => ({ ecosystem, records }))
    .sort((a, b) => a.ecosystem.localeCompare(b.ecosystem));

  return (
    <Flex vertical gap="middle">
      <QueryState
        isPending={status.isPending}
        error={status.error}
        onRetry={() => void status.refetch()}
        what="the advisory database"
      />
      {s && (
        <Descriptions size="small" bordered column={{ xs: 1, md: 2 }}>
          <Descriptions.Item label="Advisories">{s.total}</Descriptions.Item>
          <Descriptions.Item label="Last import">
            {s.lastImport
              ? `${formatDateTime(s.lastImport.at)} from ${s.lastImport.source} (${s.lastImport.imported} new, ${s.lastImport.updated} updated${s.lastImport.by ? `, by ${s.lastImport.by}` : ''})`
              : 'Never'}
          </Descriptions.Item>
        </Descriptions>
      )}
      {s && (
        <Table
          rowKey="ecosystem"
          size="small"
          pagination={false}
          dataSource={ecosystems}
          locale={{ emptyText: <Empty description="No advisories yet: import an OSV archive" /> }}
          columns={[
            { title: 'Ecosystem', dataIndex: 'ecosystem', key: 'ecosystem' },
            { title: 'Records', dataIndex: 'records', key: 'records', align: 'right' },
          ]}
        />
      )}
      <Card size="small" title={<h2 className="card-heading">Import advisories</h2>}>
        <Flex vertical gap="middle">
          <Upload
            accept=".zip,application/zip"
            showUploadList={false}
            beforeUpload={(file) => {
              run({ file });
              return false;
            }}
          >
            <Button
              icon={<UploadOutlined />}
              loading={importer.isPending && importer.variables && 'file' in importer.variables}
            >
              Upload OSV archive
            </Button>
          </Upload>
          <Space.Compact style={{ maxWidth: 560 }}>
            <Input
              aria-label="Import from URL"
              placeholder="https://osv-vulnerabilities.storage.googleapis.com/npm/all.zip"
              value={url}
              onChange={(e) => setUrl(e.target.value)}
            />
            <Button
              disabled={!url.trim()}
              loading={importer.isPending && importer.variables && 'url' in importer.variables}
              onClick={() => run({ url: url.trim() })}
            >
              Import from URL
            </Button>
          </Space.Compact>
          {importer.error && <ErrorAlert title="The import failed" error={importer.error} />}
          {last && !importer.error && (
            <Alert type="success" showIcon title={`Imported: ${resultText(last)}`} />
          )}
        </Flex>
      </Card>
    </Flex>
  );
}
