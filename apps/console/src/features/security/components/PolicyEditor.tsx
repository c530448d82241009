import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import type { XrayPolicy } from '@granary/contracts';
import { useQuery } from '@tanstack/react-query';
import {
  App,
  Button,
  Card,
  Checkbox,
  Drawer,
  Flex,
  Form,
  Input,
  InputNumber,
  Radio,
  Select,
  Space,
} from 'antd';
import { useEffect } from 'react';
import {
  emptyPolicy,
  emptyRule,
  fromPolicy,
  MIN_SEVERITIES,
  type PolicyForm,
  toPolicy,
} from '../policyForm.ts';
import { licensesQueryOptions, useSavePolicyMutation, webhookKeysQueryOptions } from '../queries.ts';

/**
 * The policy editor (admin): name, type security | license, ordered rules — minimum severity or a CVSS range,
 * or allowed / banned licences and whether unknown ones are allowed — and each rule's actions: block download
 * (active, unscanned), webhooks (subscription keys, event group `policy`), fail build.
 */
export function PolicyEditor({
  open,
  policy,
  onClose,
}: {
  open: boolean;
  /** null: a new policy */
  policy: XrayPolicy | null;
  onClose: () => void;
}) {
  const { message } = App.useApp();
  const [form] = Form.useForm<PolicyForm>();
  const save = useSavePolicyMutation();
  const webhooks = useQuery({ ...webhookKeysQueryOptions(), enabled: open });
  const licences = useQuery({ ...licensesQueryOptions(), enabled: open });
  const type = Form.useWatch('type', form) ?? 'security';

  useEffect(() => {
    if (open) form.setFieldsValue(policy ? fromPolicy(policy) : emptyPolicy());
  }, [open, policy, form]);

  const submit = (values: PolicyForm) => {
    const body = toPolicy({ ...values, rules: values.rules ?? [] });
    save.mutate(
      { policy: body, create: policy === null },
      {
        onSuccess: () => {
          message.success(`Policy ${body.name} ${policy ? 'updated' : 'created'}`);
          onClose();
        },
        onError: (error) => message.error(error.message),
      },
    );
  };

  const licenceOptions = (licences.data ?? []).map((l) => ({ value: l.name, label: l.name }));

  return (
    <Drawer
      open={open}
      onClose={onClose}
      size="large"
      title={policy ? `Edit policy ${policy.name}` : 'New policy'}
      destroyOnHidden
      extra={
        <Space>
          <Button onClick={onClose}>Cancel</Button>
          <Button type="primary" loading={save.isPending} onClick={() => form.submit()}>
            {policy ? 'Save' : 'Create'}
          </Button>
        </Space>
      }
    >
      <Form
        form={form}
        layout="vertical"
        onFinish={submit}
        initialValues={emptyPolicy()}
        onValuesChange={(changed) => {
          if (changed.type) form.setFieldValue('rules', [emptyRule(changed.type, 0)]);
        }}
      >
        <Form.Item
          name="name"
          label="Policy name"
          rules={[{ required: true, whitespace: true, message: 'This field is mandatory' }]}
        >
          <Input maxLength={128} disabled={policy !== null} />
        </Form.Item>
        <Form.Item name="description" label="Description">
          <Input.TextArea rows={2} />
        </Form.Item>
        <Form.Item name="type" label="Type">
          <Radio.Group
            optionType="button"
            options={[
              { value: 'security', label: 'Security' },
              { value: 'license', label: 'License' },
            ]}
          />
        </Form.Item>
        <Form.List name="rules">
          {(fields, { add, remove }) => (
            <Flex vertical gap="middle">
              {fields.map((field, index) => (
                <Card
                  key={field.key}
                  size="small"
                  title={<h2 className="card-heading">Rule {index + 1}</h2>}
                  extra={
                    fields.length > 1 && (
                      <Button
                        size="small"
                        danger
                        icon={<DeleteOutlined />}
                        aria-label={`Remove rule ${index + 1}`}
                        onClick={() => remove(field.name)}
                      />
                    )
                  }
                >
                  <Form.Item
                    name={[field.name, 'name']}
                    label="Rule name"
                    rules={[{ required: true, whitespace: true, message: 'This field is mandatory' }]}
                  >
                    <Input maxLength={128} />
                  </Form.Item>
                  {type === 'security' ? (
                    <>
                      <Form.Item name={[field.name, 'criterion']} label="Criteria">
                        <Radio.Group
                          options={[
                            { value: 'severity', label: 'Minimum severity' },
                            { value: 'cvss', label: 'CVSS range' },
                          ]}
                        />
                      </Form.Item>
                      <Form.Item noStyle dependencies={[['rules', field.name, 'criterion']]}>
                        {() =>
                          form.getFieldValue(['rules', field.name, 'criterion']) === 'cvss' ? (
                            <Space>
                              <Form.Item name={[field.name, 'cvss_from']} label="CVSS from">
                                <InputNumber min={0} max={10} step={0.1} />
                              </Form.Item>
                              <Form.Item name={[field.name, 'cvss_to']} label="CVSS to">
                                <InputNumber min={0} max={10} step={0.1} />
                              </Form.Item>
                            </Space>
                          ) : (
                            <Form.Item name={[field.name, 'min_severity']} label="Minimum severity">
                              <Select options={MIN_SEVERITIES.map((s) => ({ value: s, label: s }))} />
                            </Form.Item>
                          )
                        }
                      </Form.Item>
                    </>
                  ) : (
                    <>
                      <Form.Item name={[field.name, 'criterion']} label="Criteria">
                        <Radio.Group
                          options={[
                            { value: 'banned', label: 'Banned licences' },
                            { value: 'allowed', label: 'Allowed licences' },
                          ]}
                        />
                      </Form.Item>
                      <Form.Item name={[field.name, 'licenses']} label="Licences">
                        <Select
                          mode="tags"
                          options={licenceOptions}
                          placeholder="SPDX ids, e.g. GPL-3.0-only"
                        />
                      </Form.Item>
                      <Form.Item name={[field.name, 'allow_unknown']} valuePropName="checked">
                        <Checkbox>Allow unknown licences</Checkbox>
                      </Form.Item>
                    </>
                  )}
                  <fieldset className="security-actions">
                    <legend>Actions</legend>
                    <Form.Item name={[field.name, 'block_active']} valuePropName="checked" noStyle>
                      <Checkbox>Block download</Checkbox>
                    </Form.Item>
                    <Form.Item name={[field.name, 'block_unscanned']} valuePropName="checked" noStyle>
                      <Checkbox>Block unscanned artifacts</Checkbox>
                    </Form.Item>
                    <Form.Item name={[field.name, 'fail_build']} valuePropName="checked" noStyle>
                      <Checkbox>Fail build</Checkbox>
                    </Form.Item>
                    <Form.Item name={[field.name, 'webhooks']} label="Webhooks" style={{ marginTop: 12 }}>
                      <Select
                        mode="multiple"
                        allowClear
                        placeholder="Webhooks to notify"
                        options={(webhooks.data ?? []).map((k) => ({ value: k, label: k }))}
                      />
                    </Form.Item>
                  </fieldset>
                </Card>
              ))}
              <Button icon={<PlusOutlined />} onClick={() => add(emptyRule(type, fields.length))}>
                Add rule
              </Button>
            </Flex>
          )}
        </Form.List>
      </Form>
    </Drawer>
  );
}
