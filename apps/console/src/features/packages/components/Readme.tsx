import { useQuery } from '@tanstack/react-query';
import { Empty, Spin } from 'antd';
import { readmeQueryOptions } from '../queries.ts';

/**
 * A version's readme. The console has no markdown library, so the text is shown preformatted: React escapes
 * it, so nothing in a readme (HTML, scripts, links) is ever interpreted — sanitised by construction.
 */
export function Readme({ repoKey, path }: { repoKey: string; path: string }) {
  const readme = useQuery(readmeQueryOptions(repoKey, path));
  if (readme.isPending) return <Spin />;
  if (!readme.data) return <Empty description="This version has no readme" />;
  return (
    <pre className="packages-readme" data-testid="readme">
      {readme.data}
    </pre>
  );
}
