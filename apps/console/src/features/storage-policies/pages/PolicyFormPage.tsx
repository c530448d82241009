import { useQuery } from '@tanstack/react-query';
import {
  Alert,
  App,
  Button,
  Card,
  Checkbox,
  Form,
  Input,
  InputNumber,
  Radio,
  Select,
  Space,
  Switch,
} from 'antd';
import { useNavigate, useParams } from 'react-router';
import { AdminPage, QueryState } from '../../../shared/components/AdminPage.tsx';
import { projectsQueryOptions } from '../../../shared/session/projects.ts';
import {
  EMPTY_POLICY,
  hasRemovingRule,
  type PolicyFormValues,
  toFormValues,
  toPolicyInput,
} from '../policyForm.ts';
import {
  localRepositoriesQueryOptions,
  policyQueryOptions,
  useRetentionEnabled,
  useSavePolicyMutation,
} from '../queries.ts';
import { POLICIES_PATH } from './PoliciesPage.tsx';

const MANDATORY = 'This field is mandatory';

function NumberRule({
  name,
  label,
  suffix,
}: {
  name: keyof PolicyFormValues;
  label: string;
  suffix: string;
}) {
  return (
    <Form.Item name={name} label={label} htmlFor={`rule-${name}`}>
      <InputNumber id={`rule-${name}`} min={0} placeholder="off" suffix={suffix} style={{ width: 220 }} />
    </Form.Item>
  );
}

function PolicyForm({ initial, id }: { initial: PolicyFormValues; id?: string }) {
  const [form] = Form.useForm<PolicyFormValues>();
  const navigate = useNavigate();
  const { message } = App.useApp();
  const save = useSavePolicyMutation(id);
  const repositories = useQuery(localRepositoriesQueryOptions());
  const projects = useQuery(projectsQueryOptions());
  const retention = useRetentionEnabled();

  const onFinish = (values: PolicyFormValues) => {
    if (!hasRemovingRule(values)) {
      message.error('Set at least one rule that removes something');
      return;
    }
    save.mutate(toPolicyInput(values), {
      onSuccess: (p) => {
        message.success(id ? `Policy ${p.name} saved` : `Policy ${p.name} created`);
        navigate(POLICIES_PATH);
      },
    });
  };

  return (
    <Form form={form} layout="vertical" initialValues={initial} onFinish={onFinish} style={{ maxWidth: 880 }}>
      {save.error && <Alert type="error" showIcon title={save.error.message} style={{ marginBottom: 16 }} />}
      <Card title="Policy">
        <Form.Item
          name="name"
          label="Name"
          htmlFor="policy-name"
          rules={[
            { required: true, message: MANDATORY },
            { pattern: /^[A-Za-z][A-Za-z0-9_-]{1,63}$/, message: 'Name cannot contain special characters' },
          ]}
        >
          <Input id="policy-name" disabled={!!id} />
        </Form.Item>
        <Form.Item name="description" label="Description" htmlFor="policy-description">
          <Input id="policy-description" />
        </Form.Item>
        <Form.Item name="scope" label="Applies to">
          <Radio.Group>
            <Radio value="repositories">Chosen repositories</Radio>
            <Radio value="project">A project's repositories</Radio>
          </Radio.Group>
        </Form.Item>
        <Form.Item noStyle dependencies={['scope']}>
          {({ getFieldValue }) =>
            getFieldValue('scope') === 'project' ? (
              <Form.Item
                name="projectKey"
                label="Project"
                htmlFor="policy-project"
                extra="Every local repository of the project, including those added later."
                rules={[{ required: true, message: MANDATORY }]}
              >
                <Select
                  id="policy-project"
                  showSearch
                  loading={projects.isPending}
                  optionFilterProp="label"
                  options={(projects.data ?? []).map((p) => ({
                    value: p.project_key,
                    label: `${p.display_name} (${p.project_key})`,
                  }))}
                />
              </Form.Item>
            ) : (
              <Form.Item
                name="repositories"
                label="Repositories"
                htmlFor="policy-repositories"
                rules={[{ required: true, message: MANDATORY }]}
              >
                <Select
                  id="policy-repositories"
                  mode="multiple"
                  loading={repositories.isPending}
                  options={(repositories.data ?? []).map((r) => ({
                    value: r.key,
                    label: `${r.key} (${r.packageType})`,
                  }))}
                />
              </Form.Item>
            )
          }
        </Form.Item>
        <Form.Item name="action" label="Action">
          <Radio.Group>
            <Radio value="delete">Delete (to the trash)</Radio>
            <Radio value="archive" disabled={!retention.enabled}>
              Archive (cold storage){retention.enabled ? '' : ' — no archive store is configured'}
            </Radio>
          </Radio.Group>
        </Form.Item>
        <Space size="large" wrap>
          <Form.Item
            name="intervalHours"
            label="Run every (hours; empty: only by hand)"
            htmlFor="policy-interval"
          >
            <InputNumber id="policy-interval" min={1} placeholder="manual" style={{ width: 220 }} />
          </Form.Item>
          <Form.Item name="enabled" label="Enabled" valuePropName="checked">
            <Switch />
          </Form.Item>
        </Space>
      </Card>
      <Card title="What goes" style={{ marginTop: 16 }}>
        <Space size="large" wrap align="start">
          <NumberRule name="keepLastVersions" label="Keep the last versions per package" suffix="versions" />
          <NumberRule name="olderThanDays" label="Versions older than" suffix="days" />
          <NumberRule name="notDownloadedDays" label="Not downloaded for" suffix="days" />
        </Space>
        <Space size="large" wrap align="start">
          <NumberRule name="mavenSnapshotKeep" label="Maven: builds kept per snapshot" suffix="builds" />
          <NumberRule name="ociKeepTags" label="OCI: tags kept per image" suffix="tags" />
          <NumberRule name="ociUntaggedDays" label="OCI: untagged older than" suffix="days" />
        </Space>
      </Card>
      <Card title="What stays" style={{ marginTop: 16 }}>
        <Form.Item
          name="keepPatterns"
          label="Keep paths matching (Ant patterns)"
          htmlFor="policy-keep-patterns"
        >
          <Select id="policy-keep-patterns" mode="tags" tokenSeparators={[',']} placeholder="**/release-*" />
        </Form.Item>
        <Form.Item
          name="keepProperties"
          label="Keep files with properties (key or key=value)"
          htmlFor="policy-keep-properties"
        >
          <Select
            id="policy-keep-properties"
            mode="tags"
            tokenSeparators={[',']}
            placeholder="retention.keep=true"
          />
        </Form.Item>
        <Form.Item name="keepReferenced" valuePropName="checked">
          <Checkbox>Keep anything a build or a release bundle references</Checkbox>
        </Form.Item>
      </Card>
      <Space style={{ marginTop: 16 }}>
        <Button onClick={() => navigate(POLICIES_PATH)}>Cancel</Button>
        <Button type="primary" htmlType="submit" loading={save.isPending}>
          {id ? 'Save' : 'Create'}
        </Button>
      </Space>
    </Form>
  );
}

/** Issue 21: create or edit a cleanup policy. */
export function PolicyFormPage() {
  const { policyId } = useParams();
  const existing = useQuery({ ...policyQueryOptions(policyId ?? ''), enabled: !!policyId });
  const title = policyId ? 'Edit Cleanup Policy' : 'New Cleanup Policy';
  return (
    <AdminPage
      title={title}
      trail={[
        ['Repositories', '/admin/repositories'],
        ['Cleanup Policies', POLICIES_PATH],
      ]}
    >
      {policyId ? (
        <>
          <QueryState
            isPending={existing.isPending}
            error={existing.error}
            onRetry={() => existing.refetch()}
            what="the policy"
          />
          {existing.data && <PolicyForm id={policyId} initial={toFormValues(existing.data)} />}
        </>
      ) : (
        <PolicyForm initial={EMPTY_POLICY} />
      )}
    </AdminPage>
  );
}
