import { MinusCircleOutlined, PlusOutlined } from '@ant-design/icons';
import { type CustomIssue, customIssueSchema, ISSUE_SEVERITIES, SCAN_ECOSYSTEMS } from '@granary/contracts';
import { App, Button, Drawer, Flex, Form, Input, Select, Space } from 'antd';
import { useEffect } from 'react';
import { useSaveCustomIssueMutation } from '../xrayQueries.ts';

interface ComponentForm {
  ecosystem?: string;
  name: string;
  vulnerableVersions: string;
  fixedVersions: string;
}

interface CustomIssueForm {
  id: string;
  summary: string;
  description: string;
  severity?: string;
  cves: string;
  components: ComponentForm[];
}

const MANDATORY = { required: true, whitespace: true, message: 'This field is mandatory' };

/** `a, b ,,c` → `['a', 'b', 'c']`: lists are typed comma-separated (a version range such as `>=1.0.0 <1.2.3` has no comma). */
export const splitList = (text: string | undefined) =>
  (text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');

const emptyComponent: ComponentForm = { name: '', vulnerableVersions: '', fixedVersions: '' };

function fromIssue(issue: CustomIssue | null): CustomIssueForm {
  return {
    id: issue?.id ?? '',
    summary: issue?.summary ?? '',
    description: issue?.description ?? '',
    severity: issue?.severity,
    cves: (issue?.cves ?? []).join(', '),
    components: issue
      ? issue.components.map((c) => ({
          ecosystem: c.ecosystem,
          name: c.name,
          vulnerableVersions: c.vulnerableVersions.join(', '),
          fixedVersions: c.fixedVersions.join(', '),
        }))
      : [emptyComponent],
  };
}

/**
 * The custom issue editor (spec 001 §7 custom issue POST / PUT {id}; admin): an advisory the admin writes, matched
 * like imported ones — id, summary, description, severity, CVEs and the affected components (ecosystem, name,
 * vulnerable versions, fixed versions). The id is fixed once created.
 */
export function CustomIssueEditor({
  open,
  issue,
  onClose,
}: {
  open: boolean;
  issue: CustomIssue | null;
  onClose: () => void;
}) {
  const { message } = App.useApp();
  const [form] = Form.useForm<CustomIssueForm>();
  const save = useSaveCustomIssueMutation();

  useEffect(() => {
    if (open) form.setFieldsValue(fromIssue(issue));
  }, [open, issue, form]);

  const submit = (values: CustomIssueForm) => {
    const description = values.description?.trim() ?? '';
    const parsed = customIssueSchema.safeParse({
      id: values.id,
      summary: values.summary,
      ...(description ? { description } : {}),
      severity: values.severity,
      cves: splitList(values.cves),
      components: (values.components ?? []).map((c) => ({
        ecosystem: c.ecosystem ?? '',
        name: c.name.trim(),
        vulnerableVersions: splitList(c.vulnerableVersions),
        fixedVersions: splitList(c.fixedVersions),
      })),
    });
    if (!parsed.success) {
      message.error(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
      return;
    }
    save.mutate(
      { issue: parsed.data, create: issue === null },
      {
        onSuccess: () => {
          message.success(`Custom issue ${parsed.data.id} ${issue ? 'updated' : 'created'}`);
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
      title={issue ? `Edit custom issue ${issue.id}` : 'New custom issue'}
      destroyOnHidden
      extra={
        <Space>
          <Button onClick={onClose}>Cancel</Button>
          <Button type="primary" loading={save.isPending} onClick={() => form.submit()}>
            {issue ? 'Save' : 'Create'}
          </Button>
        </Space>
      }
    >
      <Form form={form} layout="vertical" onFinish={submit} initialValues={fromIssue(null)}>
        <Form.Item name="id" label="Issue id" rules={[MANDATORY]} extra="For example ACME-2030-0001">
          <Input maxLength={128} disabled={issue !== null} />
        </Form.Item>
        <Form.Item name="summary" label="Summary" rules={[MANDATORY]}>
          <Input maxLength={512} />
        </Form.Item>
        <Form.Item name="description" label="Description">
          <Input.TextArea rows={3} maxLength={10_000} />
        </Form.Item>
        <Form.Item
          name="severity"
          label="Severity"
          rules={[{ required: true, message: 'This field is mandatory' }]}
        >
          <Select
            aria-label="Severity"
            placeholder="Choose a severity"
            options={ISSUE_SEVERITIES.map((s) => ({ value: s, label: s }))}
          />
        </Form.Item>
        <Form.Item name="cves" label="CVEs" extra="Comma-separated, e.g. CVE-2030-1234">
          <Input />
        </Form.Item>
        <Form.List
          name="components"
          rules={[
            {
              validator: async (_, components: ComponentForm[] | undefined) => {
                if (!components || components.length === 0) throw new Error('Add at least one component');
              },
            },
          ]}
        >
          {(fields, { add, remove }, { errors }) => (
            <fieldset className="security-actions custom-issue-components">
              <legend>Affected components</legend>
              {fields.map((field, index) => (
                <Flex key={field.key} vertical gap={0} className="custom-issue-component">
                  <Flex gap={8} align="start">
                    <Form.Item
                      name={[field.name, 'ecosystem']}
                      label={`Ecosystem of component ${index + 1}`}
                      rules={[{ required: true, message: 'This field is mandatory' }]}
                      style={{ minWidth: 160 }}
                    >
                      <Select
                        aria-label={`Ecosystem of component ${index + 1}`}
                        placeholder="Ecosystem"
                        options={SCAN_ECOSYSTEMS.map((e) => ({ value: e, label: e }))}
                      />
                    </Form.Item>
                    <Form.Item
                      name={[field.name, 'name']}
                      label={`Name of component ${index + 1}`}
                      rules={[MANDATORY]}
                      style={{ flex: 1 }}
                    >
                      <Input placeholder="lodash, requests, org.example:lib, openssl…" />
                    </Form.Item>
                    {fields.length > 1 && (
                      <Button
                        type="text"
                        aria-label={`Remove component ${index + 1}`}
                        icon={<MinusCircleOutlined />}
                        onClick={() => remove(field.name)}
                        style={{ marginTop: 30 }}
                      />
                    )}
                  </Flex>
                  <Flex gap={8}>
                    <Form.Item
                      name={[field.name, 'vulnerableVersions']}
                      label={`Vulnerable versions of component ${index + 1}`}
                      extra="Comma-separated versions or ranges, e.g. >=1.0.0 <1.2.3"
                      style={{ flex: 1 }}
                    >
                      <Input />
                    </Form.Item>
                    <Form.Item
                      name={[field.name, 'fixedVersions']}
                      label={`Fixed versions of component ${index + 1}`}
                      extra="Comma-separated"
                      style={{ flex: 1 }}
                    >
                      <Input />
                    </Form.Item>
                  </Flex>
                </Flex>
              ))}
              <Form.Item>
                <Button icon={<PlusOutlined />} onClick={() => add({ ...emptyComponent })}>
                  Add a component
                </Button>
                <Form.ErrorList errors={errors} />
              </Form.Item>
            </fieldset>
          )}
        </Form.List>
      </Form>
    </Drawer>
  );
}
