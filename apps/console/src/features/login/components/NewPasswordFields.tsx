import { ACCESS_MESSAGES } from '@granary/contracts';
import { Form, Input } from 'antd';
import { mandatoryText } from '../../../shared/forms/rules.ts';
import { zodRule } from '../../../shared/forms/zodRule.ts';

/** New password and its confirmation, as fields `password` and `confirm` of the enclosing form. */
export function NewPasswordFields({ names = ['password', 'confirm'] }: { names?: [string, string] }) {
  const [password, confirm] = names;
  return (
    <>
      <Form.Item label="New password" name={password} rules={[zodRule(mandatoryText)]}>
        <Input.Password autoComplete="new-password" />
      </Form.Item>
      <Form.Item
        label="Confirm new password"
        name={confirm}
        dependencies={[password]}
        rules={[
          zodRule(mandatoryText),
          ({ getFieldValue }) => ({
            validator: async (_rule, value: unknown) => {
              if (value && value !== getFieldValue(password))
                throw new Error(ACCESS_MESSAGES.passwordsDoNotMatch);
            },
          }),
        ]}
      >
        <Input.Password autoComplete="new-password" />
      </Form.Item>
    </>
  );
}
