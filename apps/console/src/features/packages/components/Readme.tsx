import { useQuery } from '@tanstack/react-query';
import { Empty, Spin } from 'antd';
import Markdown from 'react-markdown';
import { readmeQueryOptions } from '../queries.ts';

/**
 * A version's readme, rendered from Markdown and sanitised: raw HTML in it is shown as text, never
 * interpreted, and link targets other than http(s), mailto and relative ones are dropped
 * (react-markdown's defaults), so a readme can never run script on the console's origin.
 */
export function Readme({ repoKey, path }: { repoKey: string; path: string }) {
  const readme = useQuery(readmeQueryOptions(repoKey, path));
  if (readme.isPending) return <Spin />;
  if (!readme.data) return <Empty description="This version has no readme" />;
  return (
    <div className="packages-readme" data-testid="readme">
      <Markdown
        components={{
          // The page has its own h1 (the package) and h2s: the readme's headings sit two levels below.
          h1: ({ node: _node, ...props }) => <h3 {...props} />,
          h2: ({ node: _node, ...props }) => <h4 {...props} />,
          h3: ({ node: _node, ...props }) => <h5 {...props} />,
          h4: ({ node: _node, ...props }) => <h6 {...props} />,
          h5: ({ node: _node, ...props }) => <h6 {...props} />,
          a: ({ node: _node, ...props }) => (
            <a {...props} target="_blank" rel="noopener noreferrer nofollow" />
          ),
        }}
      >
        {readme.data}
      </Markdown>
    </div>
  );
}
