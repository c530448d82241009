import type { UserData } from '@granary/contracts';
import { Card, Descriptions, Typography } from 'antd';
import { ApiKeyCard } from './ApiKeyCard.tsx';
import { EmailForm } from './EmailForm.tsx';
import { IdentityTokenCard } from './IdentityTokenCard.tsx';
import { MfaCard } from './MfaCard.tsx';
import { PasswordCard } from './PasswordCard.tsx';

/** The signed-in user's profile: personal information, then the cards their realm allows. */
export function Profile({ user }: { user: UserData }) {
  return (
    <>
      <Card title={<h2 className="card-heading">Personal information</h2>} variant="borderless">
        <Descriptions
          column={1}
          size="small"
          items={[
            { key: 'name', label: 'User name', children: user.name },
            { key: 'realm', label: 'Realm', children: user.realm },
            { key: 'groups', label: 'Groups', children: user.groups.join(', ') || 'None' },
          ]}
          style={{ marginBottom: 16 }}
        />
        {user.profileUpdatable && user.realm === 'internal' ? (
          <EmailForm user={user} />
        ) : (
          <Typography.Text type="secondary">
            Email address: {user.email ?? 'none'}. An administrator changes it for you.
          </Typography.Text>
        )}
      </Card>
      {user.realm === 'internal' && user.profileUpdatable && <PasswordCard user={user} />}
      <IdentityTokenCard user={user} />
      {/* spec 000 §6: OAuth realm users fetch an API key too, with an empty password. */}
      {(user.realm === 'internal' || user.realm === 'oauth') && <ApiKeyCard user={user} />}
      {/* Issue 20: single sign-on users (oauth, saml, http) prove themselves at their identity provider. */}
      {(user.realm === 'internal' || user.realm === 'ldap') && <MfaCard user={user} />}
    </>
  );
}
