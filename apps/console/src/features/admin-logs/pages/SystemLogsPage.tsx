import { DownloadOutlined } from '@ant-design/icons';
import { Link } from 'react-router';
import { AdminPage } from '../../../shared/components/AdminPage.tsx';
import { useSession } from '../../../shared/session/SessionProvider.tsx';
import { LogViewer } from '../components/LogViewer.tsx';

export const SUPPORT_ZONE_PATH = '/admin/support-zone';

/** spec 001 §2 admin `monitoring/system_logs`: the live log viewer, with a link to download logs from Support Zone unless on cloud. */
export function SystemLogsPage() {
  const cloud = useSession().shell.flavour.cloud;
  return (
    <AdminPage
      title="System Logs"
      extra={
        cloud ? null : (
          <Link to={SUPPORT_ZONE_PATH}>
            <DownloadOutlined /> Download logs from Support Zone
          </Link>
        )
      }
    >
      <LogViewer />
    </AdminPage>
  );
}
