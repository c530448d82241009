import { Button, Result, Typography } from 'antd';
import { useHref, useLocation, useNavigate } from 'react-router';

/** spec 000 §2: unknown paths (and /404) show this page inside the console's layout. */
export function NotFoundPage() {
  const location = useLocation();
  const navigate = useNavigate();
  const href = useHref(location.pathname);
  const isUnknownPath = location.pathname !== '/404';
  return (
    <Result
      status="404"
      title={<h1 className="result-heading">Page not found</h1>}
      subTitle={
        isUnknownPath ? (
          <>
            There is no page at <Typography.Text code>{href}</Typography.Text> in the console.
          </>
        ) : (
          'The page you asked for does not exist.'
        )
      }
      extra={
        <Button type="primary" onClick={() => navigate('/')}>
          Back to home
        </Button>
      }
    />
  );
}
