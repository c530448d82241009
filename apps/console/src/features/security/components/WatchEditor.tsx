import type { XrayWatch } from '@granary/contracts';
import { useQuery } from '@tanstack/react-query';
import { App, Button, Checkbox, Drawer, Form, Input, Select, Space, Switch } from 'antd';
import { useEffect } from 'react';
import { policiesQueryOptions, repositoriesQueryOptions, useSaveWatchMutation } from '../queries.ts';

interface WatchForm {
  name: string;
  description: string;
  active: boolean;
  allRepos: boolean;
  repositories: string[];
  policies: string[];
}

function fromWatch(watch: XrayWatch | null): WatchForm {
  const resources = watch?.project_resources?.resources ?? [];
  return {
    name: watch?.general_data.name ?? '',
    description: watch?.general_data.description ?? '',
    active: watch?.general_data.active ?? true,
    allRepos: resources.some((r) => r.type === 'all-repos'),
    repositories: resources.flatMap((r) => (r.type === 'repository' && r.name ? [r.name] : [])),
    policies: (watch?.assigned_policies ?? []).map((p) => p.name),
  };
}

/** The watch editor (admin): name, active, the repositories it covers (or all), the policies it applies in order. */
export function WatchEditor({
  open,
  watch,
  onClose,
}: {
  open: boolean;
  watch: XrayWatch | null;
  onClose: () => void;
}) {
  const { message } = App.useApp();
  const [form] = Form.useForm<WatchForm>();
  const save = useSaveWatchMutation();
  const repositories = useQuery({ ...repositoriesQueryOptions(), enabled: open });
  const policies = useQuery({ ...policiesQueryOptions(), enabled: open });
  const allRepos = Form.useWatch('allRepos', form) ?? false;

  useEffect(() => {
    if (open) form.setFieldsValue(fromWatch(watch));
  }, [open, watch, form]);

  const submit = (values: WatchForm) => {
    const typeOf = new Map((policies.data ?? []).map((p) => [p.name, p.type] as const));
    const body: XrayWatch = {
      general_data: {
        name: values.name.trim(),
        ...(values.description.trim() ? { description: values.description.trim() } : {}),
        active: values.active,
      },
      project_resources: {
        resources: values.allRepos
          ? [{ type: 'all-repos', name: 'All Repositories' }]
          : values.repositories.map((name) => ({ type: 'repository' as const, name, bin_mgr_id: 'default' })),
      },
      assigned_policies: values.policies.map((name) => ({ name, type: typeOf.get(name) ?? 'security' })),
    };
    save.mutate(
      { watch: body, create: watch === null },
      {
        onSuccess: () => {
          message.success(`Watch ${body.general_data.name} ${watch ? 'updated' : 'created'}`);
          onClose();
        },
        onError: (error) => message.error(error.message),
      },
    );
  };

  return (
    <Drawer
      open={open}
      onClose={onClose}
      size="large"
      title={watch ? `Edit watch ${watch.general_data.name}` : 'New watch'}
      destroyOnHidden
      extra={
        <Space>
          <Button onClick={onClose}>Cancel</Button>
          <Button type="primary" loading={save.isPending} onClick={() => form.submit()}>
            {watch ? 'Save' : 'Create'}
          </Button>
        </Space>
      }
    >
      <Form form={form} layout="vertical" onFinish={submit} initialValues={fromWatch(null)}>
        <Form.Item
          name="name"
          label="Watch name"
          rules={[{ required: true, whitespace: true, message: 'This field is mandatory' }]}
        >
          <Input maxLength={128} disabled={watch !== null} />
        </Form.Item>
        <Form.Item name="description" label="Description">
          <Input.TextArea rows={2} />
        </Form.Item>
        <Form.Item name="active" label="Active" valuePropName="checked">
          <Switch />
        </Form.Item>
        <Form.Item name="allRepos" valuePropName="checked">
          <Checkbox>All repositories</Checkbox>
        </Form.Item>
        <Form.Item name="repositories" label="Repositories">
          <Select
            mode="multiple"
            disabled={allRepos}
            loading={repositories.isPending}
            placeholder="Repositories this watch covers"
            options={(repositories.data ?? []).map((r) => ({
              value: r.key,
              label: `${r.key} (${r.packageType})`,
            }))}
          />
        </Form.Item>
        <Form.Item name="policies" label="Assigned policies">
          <Select
            mode="multiple"
            loading={policies.isPending}
            placeholder="Policies, applied in this order"
            options={(policies.data ?? []).map((p) => ({ value: p.name, label: `${p.name} (${p.type})` }))}
          />
        </Form.Item>
      </Form>
    </Drawer>
  );
}
