import { useQuery } from '@tanstack/react-query';
import { Alert, App, Button, Card, Flex, Form, InputNumber, Space, Typography } from 'antd';
import { useEffect } from 'react';
import { ErrorAlert } from '../../../shared/components/ErrorAlert.tsx';
import { formatBytes, MIB } from '../bytes.ts';
import { repositoryQuotaQueryOptions, useSetQuotaMutation } from '../queries.ts';
import { QuotaUse } from './QuotaUse.tsx';

/**
 * issue 21: a repository's storage quota on its edit page — how full it is (a warning from 80 %, refused
 * uploads at 100 %) and the "Quota" field in MB (empty: no quota).
 */
export function RepositoryQuotaCard({ repoKey }: { repoKey: string }) {
  const { message } = App.useApp();
  const quota = useQuery(repositoryQuotaQueryOptions(repoKey));
  const save = useSetQuotaMutation(repoKey);
  const [form] = Form.useForm<{ quotaMb: number | null }>();
  const q = quota.data;
  useEffect(() => {
    if (q) form.setFieldsValue({ quotaMb: q.quotaBytes === null ? null : q.quotaBytes / MIB });
  }, [q, form]);
  const onFinish = ({ quotaMb }: { quotaMb: number | null }) =>
    save.mutate(quotaMb ? Math.round(quotaMb * MIB) : null, {
      onSuccess: (a) =>
        message.success(
          a.quotaBytes === null ? 'Quota removed' : `Quota set to ${formatBytes(a.quotaBytes)}`,
        ),
    });
  return (
    <Card variant="borderless" title={<h2 className="card-heading">Storage quota</h2>}>
      {quota.error && <ErrorAlert error={quota.error} />}
      {q && (
        <Flex vertical gap="middle" style={{ maxWidth: 620 }}>
          {q.state !== 'ok' && (
            <Alert
              type={q.state === 'exceeded' ? 'error' : 'warning'}
              showIcon
              title={
                q.state === 'exceeded'
                  ? `${repoKey} is full: uploads are refused until files are deleted or the quota is raised`
                  : `${repoKey} uses over 80 % of its quota`
              }
            />
          )}
          {q.project && q.project.state !== 'ok' && (
            <Alert
              type={q.project.state === 'exceeded' ? 'error' : 'warning'}
              showIcon
              title={`Project ${q.project.projectKey} uses ${formatBytes(q.project.usedBytes)} of its ${formatBytes(q.project.quotaBytes)} quota`}
            />
          )}
          <Space direction="vertical" size={4} style={{ width: '100%' }}>
            <Typography.Text>Used: {formatBytes(q.usedBytes)}</Typography.Text>
            <QuotaUse used={q.usedBytes} quota={q.quotaBytes} state={q.state} />
          </Space>
          {save.isError && <ErrorAlert error={save.error} />}
          <Form form={form} layout="inline" onFinish={onFinish} disabled={save.isPending}>
            <Form.Item
              label="Quota"
              name="quotaMb"
              extra="MB; empty for no quota. Warned at 80 %, uploads refused at 100 %."
            >
              <InputNumber
                min={0.001}
                step={100}
                style={{ width: 180 }}
                placeholder="No quota"
                addonAfter="MB"
              />
            </Form.Item>
            <Form.Item>
              <Button htmlType="submit" loading={save.isPending}>
                Save quota
              </Button>
            </Form.Item>
          </Form>
        </Flex>
      )}
    </Card>
  );
}
