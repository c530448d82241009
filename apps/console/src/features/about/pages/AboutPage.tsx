import { ReloadOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { Button, Card, Descriptions, type DescriptionsProps, Flex, Skeleton, Tag, Typography } from 'antd';
import { useEffect } from 'react';
import { useLocation } from 'react-router';
import { CONSOLE_API_PREFIX } from '../../../shared/api/index.ts';
import { ErrorAlert } from '../../../shared/components/ErrorAlert.tsx';
import { GranaryLogo } from '../../../shared/components/GranaryLogo.tsx';
import { LEARNING_CENTER_ID, LearningCenter } from '../components/LearningCenter.tsx';
import { versionQueryOptions } from '../queries.ts';

/**
 * The landing page: what this server is, and which version and revision it runs; below, the Help menu's
 * Learning Center (`/overview#learning-center`), which the page scrolls to and focuses when asked.
 */
export function AboutPage() {
  const version = useQuery(versionQueryOptions());
  const { hash } = useLocation();
  useEffect(() => {
    if (hash !== `#${LEARNING_CENTER_ID}`) return;
    const target = document.getElementById(LEARNING_CENTER_ID);
    target?.scrollIntoView?.({ block: 'start' });
    target?.focus?.({ preventScroll: true });
  }, [hash]);

  const items: DescriptionsProps['items'] = version.data && [
    { key: 'version', label: 'Version', children: version.data.version },
    {
      key: 'revision',
      label: 'Revision',
      children: (
        <Typography.Text
          code
          copyable={{ text: version.data.revision, tooltips: ['Copy revision', 'Copied'] }}
        >
          {version.data.revision}
        </Typography.Text>
      ),
    },
    {
      key: 'console-api',
      label: 'Console API',
      children: <Typography.Text code>{CONSOLE_API_PREFIX}</Typography.Text>,
    },
    {
      key: 'rest-api',
      label: 'REST API',
      children: (
        <Typography.Link href="/api/docs">
          <Typography.Text code>/api/</Typography.Text> documentation
        </Typography.Link>
      ),
    },
  ];

  return (
    <Flex vertical gap="large">
      <Card variant="borderless">
        <Flex align="center" gap="large" wrap>
          <GranaryLogo size={64} />
          <div>
            <Flex align="center" gap="small" wrap>
              <Typography.Title level={1} style={{ margin: 0 }}>
                Granary
              </Typography.Title>
              {version.data && (
                <Tag color="#0f766e" variant="solid">
                  v{version.data.version}
                </Tag>
              )}
            </Flex>
            <Typography.Paragraph type="secondary" style={{ margin: '4px 0 0', fontSize: 16 }}>
              Self-hosted artifact repository: store, proxy and scan the packages your teams build and use.
            </Typography.Paragraph>
          </div>
        </Flex>
      </Card>

      <Card title={<h2 className="card-heading">Server</h2>} variant="borderless">
        {version.isPending && (
          <div role="status" aria-live="polite">
            <span className="sr-only">Loading the server version…</span>
            <Skeleton active title={false} paragraph={{ rows: 3 }} />
          </div>
        )}
        {version.isError && (
          <ErrorAlert
            title="Could not load the server version"
            error={version.error}
            action={
              <Button
                size="small"
                icon={<ReloadOutlined />}
                loading={version.isFetching}
                onClick={() => void version.refetch()}
              >
                Retry
              </Button>
            }
          />
        )}
        {items && <Descriptions column={1} bordered size="middle" items={items} />}
      </Card>

      <LearningCenter />
    </Flex>
  );
}
