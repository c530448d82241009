import { Button, Result, Typography } from 'antd';
import { Navigate, useLocation, useNavigate, useParams } from 'react-router';

/** spec 000 §2 /406/{requestId}: the request could not be accepted; the id helps find it in the server log. */
export function NotAcceptablePage() {
  const { requestId } = useParams();
  const navigate = useNavigate();
  return (
    <Result
      status="warning"
      title={<h1 className="result-heading">Request not acceptable</h1>}
      subTitle={
        <>
          The server could not answer this request in a form the console accepts. Request id{' '}
          <Typography.Text code>{requestId}</Typography.Text>
        </>
      }
      extra={
        <Button type="primary" onClick={() => navigate('/')}>
          Back to home
        </Button>
      }
    />
  );
}

/** spec 000 §2 /500: shown when the console sends the user here; entered directly it redirects to /. */
export function ServerErrorPage() {
  const location = useLocation();
  const navigate = useNavigate();
  const fromApp = (location.state as { fromApp?: boolean } | null)?.fromApp === true;
  if (!fromApp) return <Navigate to="/" replace />;
  return (
    <Result
      status="500"
      title={<h1 className="result-heading">Something went wrong</h1>}
      subTitle="The server could not complete the request. Try again in a moment."
      extra={
        <Button type="primary" onClick={() => navigate('/')}>
          Back to home
        </Button>
      }
    />
  );
}

/** spec 000 §2 /authorization: the signed-in user may not see what was asked for. */
export function AuthorizationPage() {
  const navigate = useNavigate();
  return (
    <Result
      status="403"
      title={<h1 className="result-heading">You are not authorized to view this page</h1>}
      subTitle="Ask an administrator for the permission you need."
      extra={
        <Button type="primary" onClick={() => navigate('/')}>
          Back to home
        </Button>
      }
    />
  );
}
