import { Empty, Typography } from 'antd';
import { Link } from 'react-router';
import { PACKAGE_MESSAGES } from '../packageRules.ts';

/** issue 22: what the packages table says when it has no row, by why it has none. */
export const PACKAGES_EMPTY = {
  loading: 'Loading packages…',
  noRepositoryVisible: 'No repository is visible to you, so there are no packages to show.',
  askAdministrator: 'Ask an administrator to give you read permission on a repository.',
  noRepositoryYet: 'There are no repositories yet, so there are no packages to show.',
} as const;

export interface PackagesEmptyStateProps {
  /** The packages query has not answered yet. */
  loading: boolean;
  /** How many repositories the user can read (the filter's list); undefined until known. */
  readableRepositories: number | undefined;
  admin: boolean;
}

/**
 * The packages table's empty text: nothing under the spinner while loading; a user who can read no
 * repository is told so and whom to ask (an administrator); otherwise spec 001 §8's "No packages found".
 */
export function PackagesEmptyState({ loading, readableRepositories, admin }: PackagesEmptyStateProps) {
  if (loading) return <div className="packages-empty-loading" style={{ height: 96 }} aria-hidden />;
  if (readableRepositories === 0)
    return (
      <Empty
        description={
          admin ? (
            <>
              <Typography.Paragraph style={{ margin: 0 }}>
                {PACKAGES_EMPTY.noRepositoryYet}
              </Typography.Paragraph>
              <Link to="/admin/repositories">Create a repository</Link>
            </>
          ) : (
            <>
              <Typography.Paragraph style={{ margin: 0 }}>
                {PACKAGES_EMPTY.noRepositoryVisible}
              </Typography.Paragraph>
              <Typography.Paragraph style={{ margin: 0 }}>
                {PACKAGES_EMPTY.askAdministrator}
              </Typography.Paragraph>
            </>
          )
        }
      />
    );
  return <Empty description={PACKAGE_MESSAGES.noPackages} />;
}
