import { DeleteOutlined } from '@ant-design/icons';
import { PERMISSION_ACTIONS, type PermissionAction } from '@granary/contracts';
import { Button, Checkbox, Flex, Select, Table } from 'antd';

/** The action names a user reads (DESIGN.md access model). */
export const ACTION_LABELS: Record<PermissionAction, string> = {
  read: 'Read',
  annotate: 'Annotate',
  write: 'Deploy/Cache',
  delete: 'Delete/Overwrite',
  manage: 'Manage',
};

export interface PermissionMatrixProps {
  kind: 'user' | 'group';
  /** Who has which actions. */
  value: Record<string, PermissionAction[]>;
  /** Names that can be added. */
  candidates: string[];
  onChange: (value: Record<string, PermissionAction[]>) => void;
}

/** Users or groups × actions: one row per principal, one checkbox per action. */
export function PermissionMatrix({ kind, value, candidates, onChange }: PermissionMatrixProps) {
  const names = Object.keys(value).sort((a, b) => a.localeCompare(b));
  const available = candidates.filter((c) => !(c in value));
  const toggle = (name: string, action: PermissionAction, on: boolean) => {
    const current = new Set(value[name] ?? []);
    if (on) current.add(action);
    else current.delete(action);
    onChange({ ...value, [name]: PERMISSION_ACTIONS.filter((a) => current.has(a)) });
  };
  const remove = (name: string) => {
    const next = { ...value };
    delete next[name];
    onChange(next);
  };
  return (
    <Flex vertical gap="middle">
      <Select
        aria-label={`Add a ${kind}`}
        placeholder={`Add a ${kind}`}
        showSearch
        value={null}
        style={{ maxWidth: 320 }}
        options={available.map((name) => ({ value: name, label: name }))}
        onChange={(name: string | null) => name && onChange({ ...value, [name]: ['read'] })}
        notFoundContent={`No other ${kind}s`}
      />
      <Table
        rowKey="name"
        size="small"
        pagination={false}
        dataSource={names.map((name) => ({ name }))}
        locale={{ emptyText: `No ${kind}s have actions in this permission` }}
        scroll={{ x: true }}
        columns={[
          { title: kind === 'user' ? 'User' : 'Group', dataIndex: 'name' },
          ...PERMISSION_ACTIONS.map((action) => ({
            title: ACTION_LABELS[action],
            key: action,
            align: 'center' as const,
            render: (_: unknown, row: { name: string }) => (
              <Checkbox
                aria-label={`${ACTION_LABELS[action]} for ${row.name}`}
                checked={value[row.name]?.includes(action) ?? false}
                onChange={(e) => toggle(row.name, action, e.target.checked)}
              />
            ),
          })),
          {
            title: <span className="sr-only">Remove</span>,
            key: 'remove',
            width: 56,
            render: (_: unknown, row: { name: string }) => (
              <Button
                type="text"
                danger
                icon={<DeleteOutlined />}
                aria-label={`Remove ${row.name}`}
                onClick={() => remove(row.name)}
              />
            ),
          },
        ]}
      />
    </Flex>
  );
}
