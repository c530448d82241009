import { ACCESS_MESSAGES } from '@granary/contracts';
import { useQuery } from '@tanstack/react-query';
import { Alert, Typography } from 'antd';
import { useEffect } from 'react';
import { Link } from 'react-router';
import { PageLoading } from '../../../shared/session/RequireSignIn.tsx';
import { loginRelatedDataQueryOptions } from '../queries.ts';

/** Only an http(s) address is followed. */
function portalUrl(value: string | null | undefined): string | null {
  if (!value) return null;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}

/**
 * spec 000 §2 /user/my-jfrog-redirect: a redirect page to the account portal the admin configured in the
 * security settings (`accountPortalUrl`); without one, it says so.
 */
export function AccountPortalRedirectPage() {
  const related = useQuery(loginRelatedDataQueryOptions());
  const target = portalUrl(related.data?.accountPortalUrl);
  useEffect(() => {
    if (target) window.location.assign(target);
  }, [target]);
  return (
    <>
      <title>Account portal - Granary</title>
      <h1>Account portal</h1>
      {related.isPending || target ? (
        <PageLoading label="Taking you to your account portal…" />
      ) : (
        <>
          <Alert
            type="info"
            showIcon
            title={ACCESS_MESSAGES.accountPortalNotConfigured}
            style={{ marginBottom: 16 }}
          />
          <Typography.Paragraph style={{ marginBottom: 0 }}>
            <Link to="/">Go to Granary</Link>
          </Typography.Paragraph>
        </>
      )}
    </>
  );
}
