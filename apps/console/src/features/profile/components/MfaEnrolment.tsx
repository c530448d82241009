import { useQuery } from '@tanstack/react-query';
import { App, Button, Flex, Form, Input, QRCode, Skeleton, Typography } from 'antd';
import { CopyableValue } from '../../../shared/components/CopyableValue.tsx';
import { ErrorAlert } from '../../../shared/components/ErrorAlert.tsx';
import { mandatoryText } from '../../../shared/forms/rules.ts';
import { zodRule } from '../../../shared/forms/zodRule.ts';
import { profileMfaEnrollQueryOptions, useConfirmMfaMutation } from '../queries.ts';

/** Sets up an authenticator: scan the QR code (or type the key), then confirm with a first code. */
export function MfaEnrolment({ name, onDone }: { name: string; onDone: () => void }) {
  const enroll = useQuery(profileMfaEnrollQueryOptions(name));
  const confirm = useConfirmMfaMutation();
  const { message } = App.useApp();
  return (
    <Flex vertical gap="middle" style={{ maxWidth: 480 }}>
      {enroll.isPending && <Skeleton.Node active style={{ width: 180, height: 180 }} />}
      {enroll.isError && <ErrorAlert error={enroll.error} />}
      {enroll.data && (
        <>
          <QRCode value={enroll.data.otpauthUri} size={180} aria-label="Enrolment QR code" />
          {/* issue 22: the key wraps between its groups inside the card, its copy button beside it */}
          <Flex align="center" gap={8} className="mfa-enrolment-key">
            <Typography.Text style={{ flex: 'none' }}>Key:</Typography.Text>
            <CopyableValue value={enroll.data.secret} label="key" display="groups" />
          </Flex>
        </>
      )}
      {confirm.isError && <ErrorAlert error={confirm.error} />}
      <Form
        layout="inline"
        onFinish={({ otp }: { otp: string }) =>
          confirm.mutate(
            { name, otp: otp.trim() },
            {
              onSuccess: () => {
                message.success('Authenticator set up');
                onDone();
              },
            },
          )
        }
      >
        <Form.Item label="Verification code" name="otp" rules={[zodRule(mandatoryText)]}>
          <Input autoComplete="one-time-code" inputMode="numeric" maxLength={10} />
        </Form.Item>
        <Button type="primary" htmlType="submit" loading={confirm.isPending}>
          Confirm
        </Button>
        <Button type="link" onClick={onDone}>
          Cancel
        </Button>
      </Form>
    </Flex>
  );
}
