import {
  CheckCircleFilled,
  CloseCircleFilled,
  DownloadOutlined,
  PlusOutlined,
  SyncOutlined,
} from '@ant-design/icons';
import type { SupportBundle, SupportBundleStatus } from '@granary/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import {
  Button,
  Card,
  Checkbox,
  Empty,
  Flex,
  Form,
  Input,
  InputNumber,
  Modal,
  Popconfirm,
  Skeleton,
  Space,
  Table,
  Tabs,
  Typography,
} from 'antd';
import { useCallback, useState } from 'react';
import { AdminPage } from '../../../shared/components/AdminPage.tsx';
import { LogViewer } from '../../admin-logs/components/LogViewer.tsx';
import { useBundleCreation } from '../hooks/useBundleCreation.ts';
import {
  type BundleForm,
  bundlesQueryOptions,
  downloadUrl,
  supportKeys,
  toBundleRequest,
  useDeleteBundleMutation,
  useGenerateBundleMutation,
} from '../queries.ts';
import '../support.css';

const STATUS: Record<SupportBundleStatus, { icon: React.ReactNode; label: string; className: string }> = {
  success: { icon: <CheckCircleFilled />, label: 'Success', className: 'support-bundle-status--success' },
  failure: { icon: <CloseCircleFilled />, label: 'Failure', className: 'support-bundle-status--failure' },
  'in progress': {
    icon: <SyncOutlined spin />,
    label: 'In progress',
    className: 'support-bundle-status--in-progress',
  },
};

/** spec 001 §3: a bundle's status with its icon and class. */
export function BundleStatus({ status }: { status: SupportBundleStatus }) {
  const s = STATUS[status];
  return (
    <span className={`support-bundle-status ${s.className}`} data-status={status}>
      {s.icon}
      {s.label}
    </span>
  );
}

const formatSize = (bytes: number | null) =>
  bytes == null
    ? ''
    : bytes < 1024 * 1024
      ? `${Math.max(1, Math.round(bytes / 1024))} KB`
      : `${(bytes / 1024 / 1024).toFixed(1)} MB`;

const INITIAL: BundleForm = {
  name: '',
  description: '',
  logs: true,
  configuration: true,
  system: true,
  threadDump: false,
  count: 1,
  interval: 0,
};

/**
 * spec 001 §2 admin support-zone: the support bundles (status icons, download, delete) and the create form (name,
 * description, logs with a date range, configuration, system information, thread dump with count and interval).
 * A creation shows its in-progress placeholder at once (§4); failures are silent (§8).
 */
export function SupportZonePage() {
  const queryClient = useQueryClient();
  const query = useQuery(bundlesQueryOptions());
  const reload = useCallback(
    () => void queryClient.invalidateQueries({ queryKey: supportKeys.list }),
    [queryClient],
  );
  const creation = useBundleCreation(reload);
  const generate = useGenerateBundleMutation();
  const remove = useDeleteBundleMutation();
  const [open, setOpen] = useState(false);
  const [form] = Form.useForm<BundleForm>();
  const logs = Form.useWatch('logs', form);
  const threadDump = Form.useWatch('threadDump', form);

  const submit = async (values: BundleForm) => {
    setOpen(false);
    form.resetFields();
    creation.start('artifactory', values.name.trim(), values.description?.trim() ?? '');
    await generate.mutateAsync(toBundleRequest(values));
    creation.finish('artifactory');
  };
  const bundles = query.data === false ? [] : (query.data ?? []);
  const rows = [...creation.state.placeholders, ...bundles];
  const placeholderIds = new Set(creation.state.placeholders.map((p) => p.id));

  return (
    <AdminPage
      title="Support Zone"
      extra={
        <Button type="primary" icon={<PlusOutlined />} onClick={() => setOpen(true)}>
          Create Support Bundle
        </Button>
      }
    >
      <Tabs
        items={[
          {
            key: 'bundles',
            label: 'Support bundles',
            children: (
              <Card variant="borderless">
                <Flex vertical gap="middle">
                  <Typography.Paragraph style={{ margin: 0 }}>
                    A support bundle is a zip of this server&apos;s logs, configuration, system information
                    and thread dumps, with every password, token, key and secret removed, for whoever helps
                    you diagnose a problem.
                  </Typography.Paragraph>
                  {query.isPending && <Skeleton active />}
                  {!query.isPending && rows.length === 0 && <Empty description="No support bundles yet." />}
                  {rows.length > 0 && (
                    <Table<SupportBundle>
                      rowKey="id"
                      dataSource={rows}
                      pagination={{ pageSize: 25, hideOnSinglePage: true }}
                      rowClassName={(b) => (placeholderIds.has(b.id) ? 'support-bundle-placeholder' : '')}
                      columns={[
                        {
                          title: 'Status',
                          key: 'status',
                          render: (_, b) => <BundleStatus status={b.status} />,
                        },
                        {
                          title: 'Name',
                          key: 'name',
                          render: (_, b) => (
                            <Flex vertical>
                              <Typography.Text strong>{b.name}</Typography.Text>
                              {b.description && (
                                <Typography.Text type="secondary">{b.description}</Typography.Text>
                              )}
                            </Flex>
                          ),
                        },
                        {
                          title: 'Created',
                          key: 'created',
                          render: (_, b) => new Date(b.create_date).toLocaleString(),
                        },
                        { title: 'Size', key: 'size', render: (_, b) => formatSize(b.size) },
                        {
                          title: 'Actions',
                          key: 'actions',
                          render: (_, b) =>
                            placeholderIds.has(b.id) ? null : (
                              <Space size="small" wrap>
                                {b.status === 'success' && (
                                  <Button
                                    size="small"
                                    icon={<DownloadOutlined />}
                                    href={downloadUrl(b.id)}
                                    target="_blank"
                                    aria-label={`Download ${b.name}`}
                                  >
                                    Download
                                  </Button>
                                )}
                                <Popconfirm
                                  title={`Delete support bundle ${b.name}?`}
                                  okText="Delete"
                                  okButtonProps={{ danger: true }}
                                  onConfirm={() => remove.mutateAsync(b.id).then(reload)}
                                >
                                  <Button size="small" danger aria-label={`Delete ${b.name}`}>
                                    Delete
                                  </Button>
                                </Popconfirm>
                              </Space>
                            ),
                        },
                      ]}
                    />
                  )}
                </Flex>
              </Card>
            ),
          },
          {
            key: 'logs',
            label: 'Logs',
            // spec 001 §2: the support-bundle logs screen is the log viewer with a waiting-for-logs message.
            children: <LogViewer waitingMessage="Waiting for logs…" />,
          },
        ]}
      />
      <Modal
        title="Create Support Bundle"
        open={open}
        okText="Create"
        onOk={() => form.submit()}
        onCancel={() => setOpen(false)}
        destroyOnHidden
      >
        <Form<BundleForm>
          form={form}
          layout="vertical"
          initialValues={INITIAL}
          onFinish={submit}
          preserve={false}
        >
          <Form.Item
            name="name"
            label="Name"
            rules={[{ required: true, whitespace: true, message: 'This field is mandatory' }]}
          >
            <Input maxLength={200} />
          </Form.Item>
          <Form.Item name="description" label="Description">
            <Input.TextArea rows={2} maxLength={2000} />
          </Form.Item>
          <Form.Item name="configuration" valuePropName="checked" noStyle>
            <Checkbox>Configuration</Checkbox>
          </Form.Item>
          <br />
          <Form.Item name="system" valuePropName="checked" noStyle>
            <Checkbox>System information</Checkbox>
          </Form.Item>
          <br />
          <Form.Item name="logs" valuePropName="checked" noStyle>
            <Checkbox>Logs</Checkbox>
          </Form.Item>
          {logs && (
            <Space wrap style={{ margin: '8px 0 0 24px' }}>
              <Form.Item name="startDate" label="From" style={{ marginBottom: 0 }}>
                <Input type="date" />
              </Form.Item>
              <Form.Item
                name="endDate"
                label="To"
                style={{ marginBottom: 0 }}
                dependencies={['startDate']}
                rules={[
                  ({ getFieldValue }) => ({
                    validator: (_, v?: string) => {
                      const from = getFieldValue('startDate') as string | undefined;
                      return !v || !from || from <= v
                        ? Promise.resolve()
                        : Promise.reject(new Error('The end date must not be before the start date'));
                    },
                  }),
                ]}
              >
                <Input type="date" />
              </Form.Item>
            </Space>
          )}
          <br />
          <Form.Item name="threadDump" valuePropName="checked" noStyle>
            <Checkbox>Thread dump</Checkbox>
          </Form.Item>
          {threadDump && (
            <Space wrap style={{ margin: '8px 0 0 24px' }}>
              <Form.Item name="count" label="Count" style={{ marginBottom: 0 }}>
                <InputNumber min={1} max={10} precision={0} />
              </Form.Item>
              <Form.Item name="interval" label="Interval (ms)" style={{ marginBottom: 0 }}>
                <InputNumber min={0} max={60000} step={100} precision={0} />
              </Form.Item>
            </Space>
          )}
        </Form>
      </Modal>
    </AdminPage>
  );
}
