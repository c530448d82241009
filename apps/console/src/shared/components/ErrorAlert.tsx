import { Alert, type AlertProps } from 'antd';
import type { ReactNode } from 'react';

export interface ErrorAlertProps extends Pick<AlertProps, 'action' | 'style' | 'className'> {
  /** What failed: its message is the title, or the description when a `title` is given. */
  error?: { message: string } | null;
  title?: ReactNode;
  /** Replaces the error's message under the title. */
  description?: ReactNode;
}

/**
 * The console's error state: a failed query or action, shown the same way on every screen behind the main layout.
 * The login area (features/login, and the entry's RouteErrorBoundary and RequireSignIn) renders antd's Alert the
 * same way instead: this component is shared by screens the main layout loads, which makes it a chunk of its own
 * that the login route would load or list (DESIGN.md: its JavaScript stays under 300 KB gzip).
 */
export function ErrorAlert({ error, title, description, ...rest }: ErrorAlertProps) {
  return (
    <Alert
      type="error"
      showIcon
      title={title ?? error?.message}
      description={description ?? (title === undefined ? undefined : error?.message)}
      {...rest}
    />
  );
}
