import { useQuery } from '@tanstack/react-query';
import { Alert, App, Form, Modal, Radio, Select, Typography } from 'antd';
import { useState } from 'react';
import { Link } from 'react-router';
import { ErrorAlert } from '../../../shared/components/ErrorAlert.tsx';
import { environmentsQueryOptions, usePromoteBundleMutation } from '../queries.ts';
import { nextEnvironments } from '../rules.ts';

/**
 * Issue 19 bundle promotion: an environment (DEV → QA → PROD), optionally only some of its repositories, copy or
 * move. All or nothing on the server; a checksum conflict or a blocking scanning policy is shown as it answers.
 */
export function PromoteBundleDialog({
  name,
  version,
  reached,
  onClose,
}: {
  name: string;
  version: string;
  reached: string[];
  onClose: () => void;
}) {
  const { message } = App.useApp();
  const environments = useQuery(environmentsQueryOptions());
  const all = [...(environments.data ?? [])].sort((a, b) => a.rank - b.rank);
  const suggested = nextEnvironments(all, reached)[0]?.name;
  const [chosen, setChosen] = useState<string>();
  const environment = chosen ?? suggested;
  const [repositories, setRepositories] = useState<string[]>([]);
  const [operation, setOperation] = useState<'copy' | 'move'>('copy');
  const promote = usePromoteBundleMutation(name, version);
  const repos = all.find((e) => e.name === environment)?.repositories ?? [];
  return (
    <Modal
      open
      title={`Promote ${name} ${version}`}
      okText="Promote"
      okButtonProps={{ disabled: !environment, loading: promote.isPending }}
      onCancel={onClose}
      onOk={() =>
        environment &&
        promote.mutate(
          {
            environment,
            operation,
            included_repository_keys: repositories.length > 0 ? repositories : undefined,
          },
          {
            onSuccess: (p) => {
              if (p.status === 'COMPLETED') {
                message.success(`${name} ${version} promoted to ${p.environment}`);
                onClose();
              }
            },
          },
        )
      }
    >
      {environments.data?.length === 0 ? (
        <Alert
          type="info"
          showIcon
          title="No environments are defined"
          description={
            <>
              An administrator defines them in{' '}
              <Link to="/admin/configuration/environments">Environments</Link>.
            </>
          }
        />
      ) : (
        <Form layout="vertical">
          <Form.Item label="Environment" htmlFor="promote-environment">
            <Select
              id="promote-environment"
              value={environment}
              onChange={(v) => {
                setChosen(v);
                setRepositories([]);
              }}
              loading={environments.isPending}
              options={all.map((e) => ({
                value: e.name,
                label: reached.includes(e.name) ? `${e.name} (reached)` : e.name,
              }))}
            />
          </Form.Item>
          <Form.Item
            label="Repositories"
            htmlFor="promote-repositories"
            extra="None chosen: every repository of the environment."
          >
            <Select
              id="promote-repositories"
              mode="multiple"
              value={repositories}
              onChange={setRepositories}
              options={repos.map((r) => ({ value: r, label: r }))}
            />
          </Form.Item>
          <Form.Item label="Operation">
            <Radio.Group
              value={operation}
              onChange={(e) => setOperation(e.target.value)}
              options={[
                { value: 'copy', label: 'Copy' },
                { value: 'move', label: 'Move' },
              ]}
            />
          </Form.Item>
        </Form>
      )}
      {promote.data?.status === 'FAILED' && (
        <Alert
          type="error"
          showIcon
          title="The promotion failed: nothing was changed"
          description={promote.data.messages.map((m) => (
            <Typography.Paragraph key={m.text} style={{ margin: 0 }}>
              {m.text}
            </Typography.Paragraph>
          ))}
        />
      )}
      {promote.error && <ErrorAlert error={promote.error} />}
    </Modal>
  );
}
