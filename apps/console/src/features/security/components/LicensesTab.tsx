import { customLicenseSchema, type licenseRowSchema } from '@granary/contracts';
import { useQuery } from '@tanstack/react-query';
import { App, Button, Card, Empty, Flex, Form, Input, Popconfirm, Table, Tag } from 'antd';
import type { z } from 'zod';
import {
  licensesQueryOptions,
  useAddCustomLicenseMutation,
  useDeleteCustomLicenseMutation,
} from '../queries.ts';

type LicenceRow = z.infer<typeof licenseRowSchema>;

/**
 * Licences found (SPDX ids; unknown ones verbatim) with their counts. A failure to read them is silently ignored
 * (spec 001 §8): the table is empty. Admins add and delete custom licences (spec 001 §7 custom licence POST/DELETE).
 */
export function LicensesTab({ admin }: { admin: boolean }) {
  const { message } = App.useApp();
  const query = useQuery(licensesQueryOptions());
  const add = useAddCustomLicenseMutation();
  const remove = useDeleteCustomLicenseMutation();
  const [form] = Form.useForm<{ name: string; fullName?: string; url?: string }>();

  const submit = (values: { name: string; fullName?: string; url?: string }) => {
    const parsed = customLicenseSchema.safeParse({
      name: values.name,
      ...(values.fullName?.trim() ? { fullName: values.fullName.trim() } : {}),
      ...(values.url?.trim() ? { url: values.url.trim() } : {}),
    });
    if (!parsed.success) return;
    add.mutate(parsed.data, {
      onSuccess: () => {
        message.success(`Custom licence ${parsed.data.name} added`);
        form.resetFields();
      },
      onError: (error) => message.error(error.message),
    });
  };

  return (
    <Flex vertical gap="middle">
      {admin && (
        <Card size="small" title={<h2 className="card-heading">Add a custom licence</h2>}>
          <Form form={form} layout="inline" onFinish={submit}>
            <Form.Item
              name="name"
              label="Name"
              rules={[{ required: true, whitespace: true, message: 'This field is mandatory' }]}
            >
              <Input maxLength={128} />
            </Form.Item>
            <Form.Item name="fullName" label="Full name">
              <Input maxLength={256} />
            </Form.Item>
            <Form.Item name="url" label="URL">
              <Input maxLength={2048} />
            </Form.Item>
            <Button type="primary" htmlType="submit" loading={add.isPending}>
              Add
            </Button>
          </Form>
        </Card>
      )}
      <Table<LicenceRow>
        rowKey="name"
        size="middle"
        loading={query.isPending}
        dataSource={query.data ?? []}
        pagination={{ pageSize: 25, hideOnSinglePage: true, showSizeChanger: false }}
        locale={{ emptyText: <Empty description="No licences found yet" /> }}
        columns={[
          {
            title: 'Licence',
            key: 'name',
            render: (_, l) => (
              <Flex gap={8} align="center">
                <strong>{l.name}</strong>
                {l.custom && <Tag>custom</Tag>}
              </Flex>
            ),
          },
          { title: 'Full name', key: 'fullName', render: (_, l) => l.fullName ?? '—' },
          { title: 'Components', dataIndex: 'components', key: 'components', align: 'right' },
          { title: 'Artifacts', dataIndex: 'artifacts', key: 'artifacts', align: 'right' },
          ...(admin
            ? [
                {
                  title: 'Actions',
                  key: 'actions',
                  render: (_: unknown, l: LicenceRow) =>
                    l.custom ? (
                      <Popconfirm
                        title={`Delete custom licence ${l.name}?`}
                        okText="Delete"
                        okButtonProps={{ danger: true }}
                        onConfirm={() =>
                          remove.mutateAsync(l.name).then(
                            () => message.success(`Custom licence ${l.name} deleted`),
                            (error: Error) => message.error(error.message),
                          )
                        }
                      >
                        <Button size="small" danger aria-label={`Delete ${l.name}`}>
                          Delete
                        </Button>
                      </Popconfirm>
                    ) : null,
                },
              ]
            : []),
        ]}
      />
    </Flex>
  );
}
