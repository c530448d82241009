import { useQuery } from '@tanstack/react-query';
import { App, Button, Flex, Form, Input, Popconfirm, Skeleton, Table } from 'antd';
import { ErrorAlert } from '../../../shared/components/ErrorAlert.tsx';
import { mandatoryText } from '../../../shared/forms/rules.ts';
import { zodRule } from '../../../shared/forms/zodRule.ts';
import { propertiesQueryOptions, useDeletePropertyMutation, useSetPropertyMutation } from '../queries.ts';
import type { TreeRef } from './treeKeys.ts';

/** A file's properties; Set Properties adds or replaces one (values separated by commas). */
export function PropertiesTab({ target, canEdit }: { target: TreeRef; canEdit: boolean }) {
  const properties = useQuery(propertiesQueryOptions(target.repo, target.path));
  const setProperty = useSetPropertyMutation();
  const deleteProperty = useDeletePropertyMutation();
  const { message } = App.useApp();
  const [form] = Form.useForm<{ name: string; values: string }>();
  if (properties.isError) return <ErrorAlert error={properties.error} />;
  if (!properties.data) return <Skeleton active />;
  const rows = Object.entries(properties.data).map(([name, values]) => ({ name, values }));

  return (
    <Flex vertical gap="middle">
      {canEdit && (
        <Form
          form={form}
          layout="inline"
          aria-label="Set property"
          onFinish={(v) =>
            setProperty.mutate(
              {
                ...target,
                name: v.name.trim(),
                values: v.values
                  .split(',')
                  .map((s) => s.trim())
                  .filter(Boolean),
              },
              {
                onSuccess: () => {
                  message.success(`Property ${v.name.trim()} set`);
                  form.resetFields();
                },
                onError: (e) => message.error(e.message),
              },
            )
          }
        >
          <Form.Item label="Name" name="name" rules={[zodRule(mandatoryText)]}>
            <Input autoComplete="off" />
          </Form.Item>
          <Form.Item label="Values" name="values" rules={[zodRule(mandatoryText)]}>
            <Input autoComplete="off" placeholder="v1,v2" />
          </Form.Item>
          <Button type="primary" htmlType="submit" loading={setProperty.isPending}>
            Set Properties
          </Button>
        </Form>
      )}
      <Table
        size="small"
        rowKey="name"
        pagination={false}
        dataSource={rows}
        locale={{ emptyText: 'No properties' }}
        columns={[
          { title: 'Name', dataIndex: 'name' },
          { title: 'Values', dataIndex: 'values', render: (v: string[]) => v.join(', ') },
          ...(canEdit
            ? [
                {
                  title: 'Actions',
                  key: 'actions',
                  width: 110,
                  render: (_: unknown, row: { name: string }) => (
                    <Popconfirm
                      title={`Remove property ${row.name}?`}
                      okText="Remove"
                      okButtonProps={{ danger: true }}
                      onConfirm={() =>
                        deleteProperty.mutateAsync({ ...target, name: row.name }).catch((e: Error) => {
                          message.error(e.message);
                        })
                      }
                    >
                      <Button size="small" danger aria-label={`Remove property ${row.name}`}>
                        Remove
                      </Button>
                    </Popconfirm>
                  ),
                },
              ]
            : []),
        ]}
      />
    </Flex>
  );
}
