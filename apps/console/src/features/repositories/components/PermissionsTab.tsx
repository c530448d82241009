import { CheckOutlined, CloseOutlined } from '@ant-design/icons';
import type { ArtifactActions } from '@granary/contracts';
import { Table, Typography } from 'antd';

const LABELS: [keyof ArtifactActions['permissions'], string][] = [
  ['read', 'Read'],
  ['annotate', 'Annotate'],
  ['write', 'Deploy / Cache'],
  ['delete', 'Delete / Overwrite'],
  ['manage', 'Manage'],
];

/** What the server's authorizer allows the signed-in user at this path. */
export function PermissionsTab({ actions }: { actions: ArtifactActions }) {
  return (
    <>
      <Typography.Paragraph type="secondary">
        Your permissions on <code>{`${actions.repoKey}/${actions.path}`}</code>, as the server checks them.
      </Typography.Paragraph>
      <Table
        size="small"
        pagination={false}
        rowKey="action"
        dataSource={LABELS.map(([action, label]) => ({
          action,
          label,
          allowed: actions.permissions[action],
        }))}
        columns={[
          { title: 'Permission', dataIndex: 'label' },
          {
            title: 'Allowed',
            dataIndex: 'allowed',
            render: (allowed: boolean) =>
              allowed ? (
                <span>
                  <CheckOutlined aria-hidden style={{ color: '#237804' }} /> Yes
                </span>
              ) : (
                <span>
                  <CloseOutlined aria-hidden style={{ color: '#a8071a' }} /> No
                </span>
              ),
          },
        ]}
      />
    </>
  );
}
