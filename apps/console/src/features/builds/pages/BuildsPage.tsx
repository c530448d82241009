import { Alert, Descriptions, Flex, Typography } from 'antd';
import { useParams, useSearchParams } from 'react-router';

/**
 * The builds path (spec 001 §2 toolbar search type builds → /builds). It is where old hash-based build links
 * land (spec 000 §4, `jenkinsRedirect=true`): it names the build the link pointed at. Build info itself is
 * not recorded by this instance yet.
 */
export function BuildsPage() {
  const { buildName, buildNumber } = useParams();
  const [params] = useSearchParams();
  const fromCi = params.get('jenkinsRedirect') === 'true';
  return (
    <Flex vertical gap="middle">
      <Typography.Title level={1}>Builds</Typography.Title>
      {fromCi && (
        <Alert
          type="info"
          showIcon
          title="You followed a build link from your CI server"
          description="Links of the old console's form (…/#/builds/…) are opened here."
        />
      )}
      {buildName && (
        <Descriptions
          bordered
          column={1}
          items={[
            { key: 'name', label: 'Build name', children: buildName },
            ...(buildNumber ? [{ key: 'number', label: 'Build number', children: buildNumber }] : []),
          ]}
        />
      )}
      <Typography.Paragraph>
        Build information (the modules, artifacts and dependencies a CI build published) is not recorded on
        this instance yet, so there is nothing to list for {buildName ? 'this build' : 'builds'}.
      </Typography.Paragraph>
    </Flex>
  );
}
