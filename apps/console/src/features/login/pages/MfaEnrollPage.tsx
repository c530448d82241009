import { MfaStatus } from '@granary/contracts';
import { useQuery } from '@tanstack/react-query';
import { Alert, Button, Form, Input, QRCode, Skeleton, Typography } from 'antd';
import { Link, Navigate, useLocation, useNavigate } from 'react-router';
import { isApiError } from '../../../shared/api/index.ts';
import { mandatoryText } from '../../../shared/forms/rules.ts';
import { zodRule } from '../../../shared/forms/zodRule.ts';
import { readLoginFlowState, useAfterLogin } from '../hooks/useAfterLogin.ts';
import { mfaEnrollQueryOptions, useVerifyOtpMutation } from '../queries.ts';
import { otpFailureMessage } from './OtpLoginPage.tsx';

/** spec 000 §2 mfaEnroll: scan the otpauth QR code, then confirm with a first code. */
export function MfaEnrollPage() {
  const location = useLocation();
  const navigate = useNavigate();
  const flow = readLoginFlowState(location.state);
  const enroll = useQuery({ ...mfaEnrollQueryOptions(flow?.userName ?? ''), enabled: flow !== null });
  const verify = useVerifyOtpMutation();
  const afterLogin = useAfterLogin();
  if (!flow) return <Navigate to="/login" replace />;
  // spec 000 §7: MFA calls propagate errors only on 403, which returns to login.
  if (enroll.isError && isApiError(enroll.error) && enroll.error.status === 403) {
    return <Navigate to="/login" replace />;
  }

  const onFinish = ({ otp }: { otp: string }) =>
    verify.mutate(
      { userName: flow.userName, otp: otp.trim() },
      {
        onSuccess: (user) => afterLogin({ ...user, mfaStatus: MfaStatus.None }, flow),
        onError: (error) => {
          if (isApiError(error) && error.status === 403) navigate('/login', { replace: true });
        },
      },
    );

  return (
    <>
      <title>Set up two-step verification - Granary</title>
      <h1>Set up two-step verification</h1>
      <Typography.Paragraph type="secondary">
        Scan this code with an authenticator app (Google Authenticator, FreeOTP, 1Password…), then enter the
        code it shows.
      </Typography.Paragraph>
      <div className="login-qr">
        {enroll.isPending && <Skeleton.Node active style={{ width: 180, height: 180 }} />}
        {enroll.data && (
          <QRCode value={enroll.data.otpauthUri} size={180} bordered={false} aria-label="Enrolment QR code" />
        )}
      </div>
      {enroll.data?.secret && (
        <Typography.Paragraph style={{ textAlign: 'center' }}>
          Or enter the key:{' '}
          <Typography.Text code copyable>
            {enroll.data.secret}
          </Typography.Text>
        </Typography.Paragraph>
      )}
      {enroll.isError && (
        <Alert type="error" showIcon title={otpFailureMessage(enroll.error)} style={{ marginBottom: 16 }} />
      )}
      {verify.isError && (
        <Alert type="error" showIcon title={otpFailureMessage(verify.error)} style={{ marginBottom: 16 }} />
      )}
      <Form layout="vertical" requiredMark={false} onFinish={onFinish} disabled={verify.isPending}>
        <Form.Item label="Verification code" name="otp" rules={[zodRule(mandatoryText)]}>
          <Input autoComplete="one-time-code" inputMode="numeric" maxLength={10} />
        </Form.Item>
        <Button type="primary" htmlType="submit" block size="large" loading={verify.isPending}>
          Verify and sign in
        </Button>
      </Form>
      <Typography.Paragraph style={{ marginTop: 16, marginBottom: 0 }}>
        <Link to="/login">Back to sign in</Link>
      </Typography.Paragraph>
    </>
  );
}
