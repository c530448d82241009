import { useQuery } from '@tanstack/react-query';
import { Flex, Skeleton, Typography } from 'antd';
import { setMeUpQueryOptions } from '../repositories/queries.ts';
import { ErrorAlert } from './ErrorAlert.tsx';

/** The repository's Set Me Up: its URL and its format's client snippets (tree browser, Set Me Up dialog). */
export function SetMeUpTab({ repo }: { repo: string }) {
  const setMeUp = useQuery(setMeUpQueryOptions(repo));
  if (setMeUp.isError) return <ErrorAlert error={setMeUp.error} />;
  if (!setMeUp.data) return <Skeleton active />;
  return (
    <Flex vertical gap="small">
      <Typography.Paragraph>
        Repository URL:{' '}
        <Typography.Text code copyable>
          {setMeUp.data.repositoryUrl}
        </Typography.Text>
      </Typography.Paragraph>
      {(setMeUp.data.snippets ?? []).map((s) => (
        <div key={s.title}>
          <Typography.Title level={3} style={{ fontSize: 15 }}>
            {s.title}
          </Typography.Title>
          <Typography.Paragraph copyable={{ text: s.code }} className="set-me-up-snippet">
            <pre style={{ margin: 0 }}>{s.code}</pre>
          </Typography.Paragraph>
        </div>
      ))}
    </Flex>
  );
}
