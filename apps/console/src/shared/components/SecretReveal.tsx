import { Alert, type AlertProps, Typography } from 'antd';
import type { ReactNode } from 'react';

export interface SecretRevealProps extends Pick<AlertProps, 'style' | 'className'> {
  /** What the secret is, e.g. "Your new API key". */
  title: ReactNode;
  secret: string;
}

/**
 * A secret the server shows once (identity token, API key, access token): a success notice with the value in
 * full, ready to copy. The caller keeps it only as long as the mutation's answer.
 */
export function SecretReveal({ title, secret, ...rest }: SecretRevealProps) {
  return (
    <Alert
      type="success"
      showIcon
      title={title}
      description={
        <Typography.Text code copyable={{ text: secret }} style={{ wordBreak: 'break-all' }}>
          {secret}
        </Typography.Text>
      }
      {...rest}
    />
  );
}
