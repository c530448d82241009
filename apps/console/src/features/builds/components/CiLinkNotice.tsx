import { Alert } from 'antd';
import { useSearchParams } from 'react-router';

/** spec 000 §4: an old hash-based build link was redirected here (`jenkinsRedirect=true`). */
export function CiLinkNotice() {
  const [params] = useSearchParams();
  if (params.get('jenkinsRedirect') !== 'true') return null;
  return (
    <Alert
      type="info"
      showIcon
      title="You followed a build link from your CI server"
      description="Links of the old console's form (…/#/builds/…) are opened here."
    />
  );
}
