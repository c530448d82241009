import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import type { FormRule } from 'antd';
import { Button, Flex, Form, Input, Typography } from 'antd';

export interface NameValueRowsProps {
  /** The form list: custom headers or custom-webhook secrets. */
  list: 'headers' | 'secrets';
  /** "Header" / "Secret": labels the inputs and the buttons. */
  noun: string;
  title: string;
  /** The row's rule, set on its name field and re-checked when its value changes. */
  rowRule: (index: number) => FormRule;
  /** A rule on the row's value, re-checked when its name changes. */
  valueRule?: (index: number) => FormRule;
  /** Write-only values: a password input, and for names already stored a placeholder saying a value is kept. */
  secret?: boolean;
  storedNames?: readonly string[];
}

/** Name/value rows (spec 001 §3 custom headers, secrets) with add and remove. */
export function NameValueRows({
  list,
  noun,
  title,
  rowRule,
  valueRule,
  secret = false,
  storedNames = [],
}: NameValueRowsProps) {
  const form = Form.useFormInstance();
  return (
    <Form.List name={list}>
      {(fields, { add, remove }) => (
        <fieldset className="webhook-rows">
          <legend>
            <Typography.Text strong>{title}</Typography.Text>
          </legend>
          {fields.length === 0 && (
            <Typography.Paragraph type="secondary" style={{ marginBottom: 8 }}>
              None
            </Typography.Paragraph>
          )}
          {fields.map((field, index) => {
            const rowName = form.getFieldValue([list, field.name, 'name']) as string | undefined;
            const stored = secret && !!rowName && storedNames.includes(rowName);
            return (
              <Flex key={field.key} gap="small" align="start">
                <Form.Item
                  name={[field.name, 'name']}
                  rules={[rowRule(field.name)]}
                  dependencies={[[list, field.name, 'value']]}
                  style={{ flex: 1, marginBottom: 12 }}
                >
                  <Input aria-label={`${noun} ${index + 1} name`} placeholder="Name" autoComplete="off" />
                </Form.Item>
                <Form.Item
                  name={[field.name, 'value']}
                  rules={valueRule ? [valueRule(field.name)] : []}
                  dependencies={[[list, field.name, 'name']]}
                  style={{ flex: 1, marginBottom: 12 }}
                >
                  {secret ? (
                    <Input.Password
                      aria-label={`${noun} ${index + 1} value`}
                      placeholder={stored ? 'A value is stored; leave empty to keep it' : 'Value'}
                      autoComplete="new-password"
                    />
                  ) : (
                    <Input aria-label={`${noun} ${index + 1} value`} placeholder="Value" autoComplete="off" />
                  )}
                </Form.Item>
                <Button
                  aria-label={`Remove ${noun.toLowerCase()} ${index + 1}`}
                  icon={<DeleteOutlined />}
                  onClick={() => remove(field.name)}
                />
              </Flex>
            );
          })}
          <Button icon={<PlusOutlined />} onClick={() => add({ name: '', value: '' })}>
            Add {noun}
          </Button>
        </fieldset>
      )}
    </Form.List>
  );
}
