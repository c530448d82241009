import { CheckCircleFilled } from '@ant-design/icons';
import { QUICK_START_DEFAULTS } from '@granary/contracts';
import { useQuery } from '@tanstack/react-query';
import { Button, Flex, Result, Skeleton, Tabs, Tooltip, Typography } from 'antd';
import { type ReactNode, useState } from 'react';
import { ErrorAlert } from '../../../shared/components/ErrorAlert.tsx';
import type { CreatedRepos } from '../queries.ts';
import { mavenDistributionManagementQueryOptions, quickStartStatusQueryOptions } from '../queries.ts';
import {
  type CommandContext,
  dockerCommands,
  MAVEN_DEPLOY_COMMAND,
  MAVEN_SETTINGS_PATHS,
  mavenGenerateCommand,
  mavenInstallCommands,
  npmInstallCommands,
  npmPublishCommand,
  npmrc,
  pipConf,
  pypiInstallCommands,
  pypiPublishCommands,
} from '../quickStartCommands.ts';
import { DONE_MESSAGE, FLOWS, type FlowType, NEXT_MESSAGE, PRIMARY_TOOLTIP } from '../quickStartFlows.ts';
import { CodeBlock, CopyButton } from './CodeBlock.tsx';
import { MavenSettingsDownload } from './MavenSettingsDownload.tsx';

const D = QUICK_START_DEFAULTS;

export interface ClientFlowProps {
  type: FlowType;
  repos: CreatedRepos;
  /** The server's base URL, the user, a real identity token and the virtual repository. */
  ctx: CommandContext;
  /** When the wizard started (spec 000 §4: the npm trial version is 0.0.0-{timestamp}). */
  timestamp: number;
  onDone: () => void;
}

const Step = ({ children }: { children: ReactNode }) => (
  <Typography.Paragraph>{children}</Typography.Paragraph>
);

/** The commands of one tab of one flow (spec 000 §4). */
function TabBody({
  type,
  index,
  ctx,
  repos,
  timestamp,
}: Omit<ClientFlowProps, 'onDone'> & { index: number }) {
  if (type === 'docker') {
    const c = dockerCommands(ctx, {
      image: D.docker.download.name,
      pullTag: D.docker.download.version,
      pushTag: D.docker.upload.version,
    });
    if (index === 0)
      return (
        <>
          <Step>Log in to the registry with your user name; use your identity token as the password.</Step>
          <CodeBlock id="docker-login" code={c.login} />
          <Flex gap="small" align="center">
            <Typography.Text>Password:</Typography.Text>
            <CopyButton
              text={ctx.token}
              label="Copy identity token"
              testId="quick-start-copy-identity-token"
            />
          </Flex>
        </>
      );
    if (index === 1)
      return (
        <>
          <Step>
            Pull the {D.docker.download.name} image through your virtual repository {ctx.virtualRepo}.
          </Step>
          <CodeBlock id="docker-pull" code={c.pull} />
        </>
      );
    return (
      <>
        <Step>1. Tag the image with version {D.docker.upload.version}.</Step>
        <CodeBlock id="docker-tag" code={c.tag} />
        <Step>2. Push it to your repository.</Step>
        <CodeBlock id="docker-push" code={c.push} />
      </>
    );
  }
  if (type === 'npm') {
    if (index === 0)
      return (
        <>
          <Step>
            Save this as <Typography.Text code>.npmrc</Typography.Text> in your home folder (or your project's
            folder).
          </Step>
          <CodeBlock id="npmrc" title=".npmrc" code={npmrc(ctx)} />
        </>
      );
    if (index === 1)
      return (
        <>
          <Step>
            Create the trial project, set its version and install {D.npm.download.name} through{' '}
            {ctx.virtualRepo}.
          </Step>
          <CodeBlock
            id="npm-install"
            code={npmInstallCommands(
              ctx,
              { downloadPackage: D.npm.download.name, uploadPackage: D.npm.upload.name },
              timestamp,
            )}
          />
        </>
      );
    return (
      <>
        <Step>Publish the trial project to your repository.</Step>
        <CodeBlock id="npm-publish" code={npmPublishCommand(ctx)} />
      </>
    );
  }
  if (type === 'pypi') {
    const d = {
      downloadPackage: D.pypi.download.name,
      uploadPackage: D.pypi.upload.name,
      uploadVersion: D.pypi.upload.version,
    };
    if (index === 0)
      return (
        <>
          <Step>
            Save this as <Typography.Text code>pip.conf</Typography.Text> (
            <Typography.Text code>~/.config/pip/pip.conf</Typography.Text>, or{' '}
            <Typography.Text code>%APPDATA%\pip\pip.ini</Typography.Text> on Windows).
          </Step>
          <CodeBlock id="pip-conf" title="pip.conf" code={pipConf(ctx)} />
        </>
      );
    if (index === 1)
      return (
        <>
          <Step>Create the trial project, change into it and install {d.downloadPackage}.</Step>
          <CodeBlock id="pypi-install" code={pypiInstallCommands(d)} />
        </>
      );
    return (
      <>
        <Step>Build the package, then upload it to your repository with twine.</Step>
        <CodeBlock id="pypi-publish" code={pypiPublishCommands(ctx)} />
      </>
    );
  }
  // maven
  const m = { uploadArtifact: D.maven.upload.name, archetypeVersion: D.maven.archetype.version };
  if (index === 0)
    return (
      <>
        <Step>
          1. Download settings.xml and save it at{' '}
          <Typography.Text code>{MAVEN_SETTINGS_PATHS.unix}</Typography.Text> on macOS and Linux, or{' '}
          <Typography.Text code>{MAVEN_SETTINGS_PATHS.windows}</Typography.Text> on Windows.
        </Step>
        <MavenSettingsDownload repos={repos} />
        <Step>2. Generate a sample project.</Step>
        <CodeBlock id="maven-generate" code={mavenGenerateCommand(m)} />
      </>
    );
  if (index === 1)
    return (
      <>
        <Step>
          Change into the project and install it: its dependencies ({D.maven.download.name}…) come through
          your repositories.
        </Step>
        <CodeBlock id="maven-install" code={mavenInstallCommands(m)} />
      </>
    );
  return <MavenDeploy repos={repos} />;
}

function MavenDeploy({ repos }: { repos: CreatedRepos }) {
  const [release, snapshot] = [repos.virtual[0] ?? '', repos.virtual[1] ?? repos.virtual[0] ?? ''];
  const snippet = useQuery(mavenDistributionManagementQueryOptions(release, snapshot));
  return (
    <>
      <Step>
        1. Add this to your project's <Typography.Text code>pom.xml</Typography.Text>.
      </Step>
      {snippet.isError && <ErrorAlert error={snippet.error} />}
      {snippet.data ? (
        <CodeBlock id="maven-distribution" title="pom.xml" code={snippet.data} />
      ) : (
        !snippet.isError && <Skeleton active paragraph={{ rows: 3 }} />
      )}
      <Step>2. Deploy it.</Step>
      <CodeBlock id="maven-deploy" code={MAVEN_DEPLOY_COMMAND} />
    </>
  );
}

/**
 * spec 000 §4 client flows: tabs 0 to 2 with Next, Back and Done; the session's status is polled every 3 seconds
 * while the shown tab waits for its flag (one poller); a set flag switches the tab to its completion message.
 */
export function ClientFlow(props: ClientFlowProps) {
  const { type, ctx, onDone } = props;
  const tabs = FLOWS[type];
  const [index, setIndex] = useState(0);
  const flag = tabs[index]?.flag ?? null;
  const status = useQuery(quickStartStatusQueryOptions(ctx.virtualRepo, flag));
  const isDone = (i: number) => {
    const f = tabs[i]?.flag;
    return f ? status.data?.[f] === true : false;
  };
  const last = index === tabs.length - 1;
  const current = tabs[index];
  return (
    <Flex vertical gap="middle" data-testid={`quick-start-flow-${type}`}>
      <Tabs
        activeKey={String(index)}
        onChange={(key) => setIndex(Number(key))}
        items={tabs.map((tab, i) => ({
          key: String(i),
          label: (
            <span>
              {isDone(i) && <CheckCircleFilled aria-hidden style={{ color: '#1f7a3a', marginRight: 6 }} />}
              {tab.title}
            </span>
          ),
          children:
            isDone(i) && tab.done ? (
              <Result
                status="success"
                title={<span data-testid="quick-start-done-message">{tab.done}</span>}
                subTitle={i === tabs.length - 1 ? DONE_MESSAGE : NEXT_MESSAGE}
              />
            ) : (
              <Flex vertical gap="small">
                <TabBody {...props} index={i} />
              </Flex>
            ),
        }))}
      />
      <Flex justify="space-between" className="quick-start-footer">
        <Button onClick={() => setIndex((i) => Math.max(0, i - 1))} disabled={index === 0}>
          Back
        </Button>
        <Tooltip title={current && (current.flag === null || !isDone(index)) ? PRIMARY_TOOLTIP : undefined}>
          {last ? (
            <Button type="primary" onClick={onDone} data-testid="quick-start-done">
              Done
            </Button>
          ) : (
            <Button type="primary" onClick={() => setIndex((i) => i + 1)} data-testid="quick-start-next">
              Next
            </Button>
          )}
        </Tooltip>
      </Flex>
    </Flex>
  );
}
