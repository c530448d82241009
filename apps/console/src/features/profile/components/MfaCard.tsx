import type { UserData } from '@granary/contracts';
import { Button, Card, Space, Typography } from 'antd';
import { useState } from 'react';
import { MfaEnrolment } from './MfaEnrolment.tsx';
import { MfaReset } from './MfaReset.tsx';

/** Two-step verification: set up an authenticator, or remove the one in use. */
export function MfaCard({ user }: { user: UserData }) {
  const [mode, setMode] = useState<'idle' | 'enrolling' | 'resetting'>('idle');
  return (
    <Card title={<h2 className="card-heading">Two-step verification</h2>} variant="borderless">
      <Typography.Paragraph type="secondary">
        Protect your sign-in with a one-time code from an authenticator app.
      </Typography.Paragraph>
      {mode === 'enrolling' && <MfaEnrolment name={user.name} onDone={() => setMode('idle')} />}
      {mode === 'resetting' && <MfaReset onDone={() => setMode('idle')} />}
      {mode === 'idle' && (
        <Space wrap>
          {/* An authenticator is replaced by removing it first (with a code from it): issue 12 §2. */}
          {user.mfaEnrolled !== true && (
            <Button onClick={() => setMode('enrolling')}>Set up authenticator</Button>
          )}
          {/* issue 22: only an authenticator that is set up can be reset (unknown is not "set up"). */}
          {user.realm === 'internal' && user.mfaEnrolled === true && (
            <Button danger onClick={() => setMode('resetting')}>
              Reset authenticator
            </Button>
          )}
        </Space>
      )}
    </Card>
  );
}
