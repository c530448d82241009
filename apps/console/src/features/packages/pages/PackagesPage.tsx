import { Result, Typography } from 'antd';
import { Link } from 'react-router';

/** spec 000 §2 /packages: the packages screen arrives with the packages issue; until then it says so. */
export function PackagesPage() {
  return (
    <Result
      status="info"
      title={<h1 className="result-heading">Packages</h1>}
      subTitle={
        <Typography.Paragraph>
          The packages screen arrives with the packages issue. Meanwhile, browse what is stored in the{' '}
          <Link to="/repos/tree/General">artifact tree</Link>.
        </Typography.Paragraph>
      }
    />
  );
}
