import { Alert } from 'antd';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { useSession } from '../shared/session/SessionProvider.tsx';

export const INITIAL_PASSWORD_NOTICE =
  'You are signed in with the administrator password generated at installation. Change it now: anyone who reads the installation output or the initial-admin-password file can sign in as you.';

/**
 * Issue 12 §23: the console nags the first administrator on every page until the generated password
 * is changed (`initialPasswordUnchanged` in the current user's data); it cannot be dismissed.
 */
export function InitialPasswordNotice(): ReactNode {
  const { user } = useSession();
  if (!user?.initialPasswordUnchanged) return null;
  return (
    <Alert
      type="warning"
      showIcon
      banner
      role="alert"
      title={INITIAL_PASSWORD_NOTICE}
      action={<Link to="/admin/artifactory/user_profile">Change password</Link>}
    />
  );
}
