import { Breadcrumb, Button, Flex, Skeleton, Typography } from 'antd';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { useSession } from '../session/SessionProvider.tsx';
import { pageTitle } from '../session/shellContext.ts';
import '../styles/accessibleForms.css';
import { ErrorAlert } from './ErrorAlert.tsx';

export interface AdminPageProps {
  title: string;
  /** Breadcrumb trail before the title: [label, path]. */
  trail?: [string, string][];
  extra?: ReactNode;
  children: ReactNode;
}

/** The page frame of every admin screen (the shell's administration sidebar links them): breadcrumb, one h1, actions on the right, the document title (spec 000: "{title} - {server name}"). */
export function AdminPage({ title, trail = [], extra, children }: AdminPageProps) {
  const serverName = useSession().generalConfig?.serverName;
  return (
    <Flex vertical gap="middle">
      <title>{pageTitle(title, serverName)}</title>
      <Breadcrumb
        items={[
          { title: 'Administration' },
          ...trail.map(([label, to]) => ({ title: <Link to={to}>{label}</Link> })),
          { title },
        ]}
      />
      <Flex justify="space-between" align="center" wrap gap="middle">
        <Typography.Title level={1} style={{ margin: 0, fontSize: 26 }}>
          {title}
        </Typography.Title>
        {extra}
      </Flex>
      {children}
    </Flex>
  );
}

/** Loading and failure of the one query a page needs, shown the same way on every admin page. */
export function QueryState({
  isPending,
  error,
  onRetry,
  what,
}: {
  isPending: boolean;
  error: Error | null;
  onRetry: () => void;
  what: string;
}) {
  if (error) {
    return (
      <ErrorAlert
        title={`Could not load ${what}`}
        error={error}
        action={
          <Button size="small" onClick={onRetry}>
            Retry
          </Button>
        }
      />
    );
  }
  if (isPending) {
    return (
      <div role="status">
        <span className="sr-only">Loading {what}…</span>
        <Skeleton active />
      </div>
    );
  }
  return null;
}
