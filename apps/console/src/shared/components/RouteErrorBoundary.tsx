import { Alert, Button } from 'antd';
import { isRouteErrorResponse, useRouteError } from 'react-router';

function describe(error: unknown): string {
  if (isRouteErrorResponse(error)) return `${error.status} ${error.statusText}`.trim();
  if (error instanceof Error && error.message !== '') return error.message;
  return 'Something went wrong';
}

/** Each screen group renders behind one of these, so a group that fails (to load or to render) fails alone. */
export function RouteErrorBoundary() {
  const error = useRouteError();
  return (
    <Alert
      type="error"
      showIcon
      title="This page could not be shown"
      description={describe(error)}
      action={
        <Button size="small" onClick={() => window.location.reload()}>
          Reload
        </Button>
      }
    />
  );
}
