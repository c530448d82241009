import { AppstoreOutlined } from '@ant-design/icons';
import { Result, Typography, theme } from 'antd';
import { Link } from 'react-router';

/** spec 000 §2 /packages: package browsing is a later screen; until then the page says so and points to the tree. */
export function PackagesPage() {
  const { token } = theme.useToken();
  return (
    <Result
      icon={<AppstoreOutlined aria-hidden style={{ color: token.colorPrimary }} />}
      title={<h1 className="result-heading">Packages</h1>}
      subTitle={
        <Typography.Paragraph>
          Browsing by package is not available yet. Meanwhile, browse what is stored in the{' '}
          <Link to="/repos/tree/General">artifact tree</Link>.
        </Typography.Paragraph>
      }
    />
  );
}
