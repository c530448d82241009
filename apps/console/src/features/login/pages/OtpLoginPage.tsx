import { ACCESS_MESSAGES, MfaStatus } from '@granary/contracts';
import { Alert, Button, Form, Input, Typography } from 'antd';
import { Link, Navigate, useLocation, useNavigate } from 'react-router';
import { isApiError } from '../../../shared/api/index.ts';
import { mandatoryText } from '../../../shared/forms/rules.ts';
import { zodRule } from '../../../shared/forms/zodRule.ts';
import { readLoginFlowState, useAfterLogin } from '../hooks/useAfterLogin.ts';
import { useVerifyOtpMutation } from '../queries.ts';

/** The message an OTP failure shows (spec 000 §8): the answer's own text, else "something went wrong". */
export function otpFailureMessage(error: unknown): string {
  if (isApiError(error) && error.message.trim() !== '' && error.status !== 0) return error.message;
  return ACCESS_MESSAGES.otpFailure;
}

/** spec 000 §2 otpLogin: the one-time code after the login answered VERIFY. */
export function OtpLoginPage() {
  const location = useLocation();
  const navigate = useNavigate();
  const flow = readLoginFlowState(location.state);
  const verify = useVerifyOtpMutation();
  const afterLogin = useAfterLogin();
  if (!flow) return <Navigate to="/login" replace />;

  const onFinish = ({ otp }: { otp: string }) =>
    verify.mutate(
      { userName: flow.userName, otp: otp.trim() },
      {
        onSuccess: (user) => afterLogin({ ...user, mfaStatus: MfaStatus.None }, flow),
        onError: (error) => {
          // spec 000 §8: on HTTP 403 return to login.
          if (isApiError(error) && error.status === 403) navigate('/login', { replace: true });
        },
      },
    );

  return (
    <>
      <title>Verification code - Granary</title>
      <h1>Two-step verification</h1>
      <Typography.Paragraph type="secondary">
        Enter the 6-digit code your authenticator app shows for <strong>{flow.userName}</strong>.
      </Typography.Paragraph>
      {verify.isError && (
        <Alert type="error" showIcon title={otpFailureMessage(verify.error)} style={{ marginBottom: 16 }} />
      )}
      <Form layout="vertical" requiredMark={false} onFinish={onFinish} disabled={verify.isPending}>
        <Form.Item label="Verification code" name="otp" rules={[zodRule(mandatoryText)]}>
          <Input autoComplete="one-time-code" inputMode="numeric" maxLength={10} autoFocus />
        </Form.Item>
        <Button type="primary" htmlType="submit" block size="large" loading={verify.isPending}>
          Verify
        </Button>
      </Form>
      <Typography.Paragraph style={{ marginTop: 16, marginBottom: 0 }}>
        <Link to="/login">Back to sign in</Link>
      </Typography.Paragraph>
    </>
  );
}
