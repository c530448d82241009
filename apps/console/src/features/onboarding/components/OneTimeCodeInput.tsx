import { AccessErrorCode } from '@granary/contracts';
import { Input } from 'antd';
import { isApiError } from '../../../shared/api/ApiError.ts';

/** The server refused for want of a (right) one-time code: the call is retried with one (issue 12 §2). */
export const wantsOneTimeCode = (error: unknown) =>
  isApiError(error) &&
  (error.code === AccessErrorCode.OtpRequired || error.code === AccessErrorCode.InvalidOtp);

/** The one-time code box of a user with an authenticator, as Edit Profile asks for it before making a token. */
export function OneTimeCodeInput({
  value,
  onChange,
  onEnter,
}: {
  value: string;
  onChange: (value: string) => void;
  onEnter?: () => void;
}) {
  return (
    <Input
      aria-label="One-time code for the token"
      placeholder="One-time code"
      autoComplete="one-time-code"
      inputMode="numeric"
      maxLength={10}
      value={value}
      onChange={(e) => onChange(e.target.value)}
      onPressEnter={onEnter}
      style={{ maxWidth: 150 }}
    />
  );
}
