import { DownloadOutlined, ReloadOutlined } from '@ant-design/icons';
import type { SecurityIssue } from '@granary/contracts';
import { useQuery } from '@tanstack/react-query';
import { App, Button, Descriptions, Empty, Flex, Space, Table, Tag, Typography } from 'antd';
import { useEffect } from 'react';
import { ErrorAlert } from '../../../shared/components/ErrorAlert.tsx';
import { useSession } from '../../../shared/session/SessionProvider.tsx';
import { formatDate, PACKAGE_MESSAGES, scanState } from '../packageRules.ts';
import {
  artifactScanQueryOptions,
  sbomUrl,
  scanStatusQueryOptions,
  useScanNowMutation,
} from '../securityQueries.ts';
import { ScanState } from './ScanState.tsx';

/** Dark solid colours: white text on them keeps WCAG AA contrast. */
const SEVERITY_COLOURS: Record<string, string> = {
  critical: '#820014',
  high: '#a8071a',
  medium: '#ad4e00',
  low: '#614700',
  unknown: '#434343',
};

/** spec 001 §3 scan status strings as they are; 'not scanned' reads exactly 'Not Scanned' (spec 001 §8). */
export const scanStatusText = (status: string) =>
  status === 'not scanned' ? PACKAGE_MESSAGES.notScanned : status;

/**
 * A version's security: scan status (spec 001 §3 strings), scan now, the vulnerabilities by severity (zero counts
 * dropped), licences, the issues with their impact path, and the SBOM downloads (CycloneDX, SPDX).
 */
export function VersionSecurity({ repoKey, path }: { repoKey: string; path: string }) {
  const session = useSession();
  const { message } = App.useApp();
  const unavailable = scanState(
    {},
    {
      service: session.microservices.xray === true,
      licensed: session.entitlements?.entitlements.scanning === true,
    },
  );
  const status = useQuery({ ...scanStatusQueryOptions(repoKey, path), enabled: !unavailable });
  const scan = useQuery({ ...artifactScanQueryOptions(repoKey, path), enabled: !unavailable });
  const scanNow = useScanNowMutation(repoKey, path);
  const current = status.data?.status ?? scan.data?.status ?? (status.isPending ? null : 'not scanned');
  const refetchScan = scan.refetch;
  // The verdict arrived: read the scan again.
  useEffect(() => {
    if (current === 'scanned' || current === 'scan failed') void refetchScan();
  }, [current, refetchScan]);

  if (unavailable) return <Typography.Text type="secondary">{unavailable}</Typography.Text>;
  const s = scan.data;
  return (
    <Flex vertical gap="middle">
      <Descriptions size="small" bordered column={{ xs: 1, md: 2 }}>
        <Descriptions.Item label="Scan status">
          <span data-testid="scan-status">{current ? scanStatusText(current) : '…'}</span>
          {(status.data?.scannedAt ?? s?.scannedAt) && (
            <Typography.Text type="secondary">
              {' '}
              ({formatDate(status.data?.scannedAt ?? s?.scannedAt ?? '')})
            </Typography.Text>
          )}
        </Descriptions.Item>
        <Descriptions.Item label="Vulnerabilities">
          {s ? (
            <ScanState vulnerabilities={s.vulnerabilities} />
          ) : (
            <Typography.Text type="secondary">{PACKAGE_MESSAGES.notScanned}</Typography.Text>
          )}
        </Descriptions.Item>
        <Descriptions.Item label="Licences">{s?.licenses.join(', ') || '—'}</Descriptions.Item>
        <Descriptions.Item label="Components">{s ? s.components.length : '—'}</Descriptions.Item>
        {s?.blocked && (
          <Descriptions.Item label="Download" span="filled">
            <Tag color="#a8071a">blocked</Tag> {s.blocked}
          </Descriptions.Item>
        )}
        {s?.status === 'scan failed' && s.error && (
          <Descriptions.Item label="Scan error" span="filled">
            {s.error}
          </Descriptions.Item>
        )}
      </Descriptions>
      <Space wrap>
        <Button
          icon={<ReloadOutlined />}
          loading={scanNow.isPending}
          onClick={() =>
            scanNow.mutate(undefined, {
              onSuccess: () => message.success('Scan started'),
            })
          }
        >
          Scan now
        </Button>
        <Button icon={<DownloadOutlined />} href={sbomUrl(repoKey, path, 'cyclonedx')} download>
          Download SBOM (CycloneDX)
        </Button>
        <Button icon={<DownloadOutlined />} href={sbomUrl(repoKey, path, 'spdx')} download>
          Download SBOM (SPDX)
        </Button>
      </Space>
      {scanNow.error && <ErrorAlert title="Scan now failed" error={scanNow.error} />}
      {scan.error && <ErrorAlert title="Could not load the scan" error={scan.error} />}
      <Table<SecurityIssue>
        rowKey={(i) => `${i.issueId}:${i.componentPurl}`}
        size="small"
        loading={scan.isPending}
        pagination={{ pageSize: 25, hideOnSinglePage: true, showSizeChanger: false }}
        dataSource={s?.issues ?? []}
        locale={{
          emptyText: <Empty description={s ? 'No known vulnerabilities' : PACKAGE_MESSAGES.notScanned} />,
        }}
        columns={[
          {
            title: 'Severity',
            key: 'severity',
            render: (_, i) => (
              <Tag color={SEVERITY_COLOURS[i.severity.toLowerCase()] ?? '#434343'}>{i.severity}</Tag>
            ),
          },
          {
            title: 'Issue',
            key: 'issue',
            render: (_, i) => (
              <Flex vertical>
                <Typography.Text strong>{i.issueId}</Typography.Text>
                <Typography.Text type="secondary">{i.summary}</Typography.Text>
              </Flex>
            ),
          },
          { title: 'CVEs', key: 'cves', render: (_, i) => i.cves.join(', ') || '—' },
          {
            title: 'CVSS',
            key: 'cvss',
            align: 'right',
            render: (_, i) => (i.cvssScore === null ? '—' : i.cvssScore.toFixed(1)),
          },
          {
            title: 'Component',
            key: 'component',
            render: (_, i) => (
              <span title={i.componentPurl}>
                {i.componentName} {i.componentVersion}
              </span>
            ),
          },
          {
            title: 'Fixed versions',
            key: 'fixed',
            render: (_, i) => i.fixedVersions.join(', ') || 'none yet',
          },
          {
            title: 'Impact path',
            key: 'impact',
            render: (_, i) => <code className="packages-impact-path">{i.impactPath.join(' → ')}</code>,
          },
        ]}
      />
    </Flex>
  );
}
