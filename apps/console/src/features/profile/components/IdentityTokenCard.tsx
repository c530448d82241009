import { ACCESS_MESSAGES, type UserData } from '@granary/contracts';
import { App, Button, Card, Input, Space, Typography } from 'antd';
import { useState } from 'react';
import { ErrorAlert } from '../../../shared/components/ErrorAlert.tsx';
import { SecretReveal } from '../../../shared/components/SecretReveal.tsx';
import { useIdentityTokenMutation } from '../queries.ts';

async function copyToClipboard(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

/** spec 000 §8: success "Copied to clipboard"; failure "Failed to generate Identity token". */
export function IdentityTokenCard({ user }: { user: UserData }) {
  const generate = useIdentityTokenMutation();
  const { message } = App.useApp();
  const [description, setDescription] = useState('');
  const [otp, setOtp] = useState('');
  const onGenerate = () =>
    generate.mutate(
      { name: user.name, description: description.trim() || 'Generated in Edit Profile', otp },
      {
        onSuccess: async (token) => {
          if (await copyToClipboard(token.reference_token))
            message.success(ACCESS_MESSAGES.identityTokenCopied);
        },
        onError: () => message.error(ACCESS_MESSAGES.identityTokenFailure),
      },
    );
  return (
    <Card title={<h2 className="card-heading">Identity token</h2>} variant="borderless">
      <Typography.Paragraph type="secondary">
        An identity token works as your password for package clients (npm, pip, docker…). It is shown once.
      </Typography.Paragraph>
      <Space.Compact style={{ maxWidth: 480, width: '100%' }}>
        <Input
          aria-label="Token description"
          placeholder="Description (optional)"
          value={description}
          onChange={(e) => setDescription(e.target.value)}
        />
        {user.mfaEnrolled && (
          <Input
            aria-label="One-time code for the token"
            placeholder="One-time code"
            autoComplete="one-time-code"
            inputMode="numeric"
            maxLength={10}
            value={otp}
            onChange={(e) => setOtp(e.target.value)}
            style={{ maxWidth: 150 }}
          />
        )}
        <Button type="primary" onClick={onGenerate} loading={generate.isPending}>
          Generate and copy
        </Button>
      </Space.Compact>
      {generate.isError && (
        <ErrorAlert
          title={ACCESS_MESSAGES.identityTokenFailure}
          description={user.mfaEnrolled ? generate.error.message : undefined}
          style={{ marginTop: 16 }}
        />
      )}
      {generate.data && (
        <SecretReveal
          title="Your new identity token"
          secret={generate.data.reference_token}
          style={{ marginTop: 16 }}
        />
      )}
    </Card>
  );
}
