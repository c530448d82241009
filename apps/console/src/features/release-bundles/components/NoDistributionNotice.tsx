import { Alert } from 'antd';
import { Link } from 'react-router';
import { noDistributionNotice } from '../rules.ts';

/** spec 000 §8 / 001 §8: 'No distribution repositories are configured...' with a link to create one (admins). */
export function NoDistributionNotice({
  targets,
  admin,
}: {
  targets: readonly unknown[] | undefined;
  admin: boolean;
}) {
  const notice = noDistributionNotice(targets, admin);
  if (!notice) return null;
  return (
    <Alert
      type="warning"
      showIcon
      title={notice.message}
      description={
        notice.link ? (
          <Link to={`${notice.link}?new=1`}>Create a distribution target</Link>
        ) : (
          'Ask an administrator to create a distribution target.'
        )
      }
    />
  );
}
