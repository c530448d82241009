import type { PackageTypeInfo, RepositoryListItem } from '@granary/contracts';
import { useQuery } from '@tanstack/react-query';
import { Button, Card, Flex, Skeleton, Typography } from 'antd';
import { Link } from 'react-router';
import { ErrorAlert } from '../../../shared/components/ErrorAlert.tsx';
import { KeyboardShortcutsTable } from '../../../shared/components/KeyboardShortcuts.tsx';
import { repositoriesQueryOptions } from '../../../shared/repositories/queries.ts';
import { useSession } from '../../../shared/session/SessionProvider.tsx';
import { openOverlay } from '../../onboarding/quickSetupStore.ts';
import { packageTypesQueryOptions } from '../queries.ts';

/**
 * What each format's Set Me Up walks through, as the server's own snippets say it (formats/<id>/snippets.ts).
 * A format the server adds later without a line here gets the general sentence.
 */
const FORMAT_GUIDES: Record<string, string> = {
  npm: 'Configure npm with an .npmrc (or npm login), then npm install from the repository and npm publish to it.',
  pypi: 'Configure pip (pip.conf) to install from the repository and twine (~/.pypirc) to publish to it.',
  maven:
    'Add the repository to ~/.m2/settings.xml to resolve from it, and to distributionManagement in your pom.xml to mvn deploy to it.',
  gradle: 'Resolve from the repository and publish to it with the Groovy or Kotlin DSL snippets.',
  cargo:
    'Add the registry to .cargo/config.toml (sparse index), cargo login --registry granary, then cargo publish and cargo add from it.',
  go: 'Set GOPROXY to the repository (credentials in ~/.netrc), GONOSUMDB for private modules, and deploy module zips with curl -T.',
  debian:
    'Save the repository key (KEY.gpg) for signed-by, add a deb line to sources.list.d (credentials in auth.conf.d), apt-get install from it, and upload .deb files with curl -T;deb.distribution=….',
  rpm: 'Add a .repo file (baseurl, repo_gpgcheck with the key at repodata/repomd.xml.key), dnf install from it, and upload .rpm files with curl -T.',
  terraform:
    'Put the registry token in ~/.terraformrc (credentials "HOST"), name modules HOST/{repository}__{namespace}/{name}/{provider} and providers HOST/{repository}__{namespace}/{type}, and deploy module zips and provider packages with curl -T.',
  swift:
    'swift package-registry set the repository URL, swift package-registry login, then .package(id: "scope.name", from: …) and swift package-registry publish.',
  docker:
    'docker login, then pull and push images named HOST/{repository}/{image}:{tag} (or copy them with skopeo).',
  generic: 'Deploy any file with curl -T and download it with curl -O.',
};
const GENERAL_GUIDE = 'Set Me Up shows how to configure the client for a repository of this format.';

export const LEARNING_CENTER_ID = 'learning-center';

/**
 * The Help menu's Learning Center (spec 000 §2), on the Overview page (issue 22): a getting-started guide per
 * package format this server runs, each opening Set Me Up for a repository of that format; the REST API
 * documentation the server serves; and the console's keyboard shortcuts.
 */
export function LearningCenter() {
  const session = useSession();
  return (
    <Card
      id={LEARNING_CENTER_ID}
      title={<h2 className="card-heading">Learning Center</h2>}
      variant="borderless"
      tabIndex={-1}
    >
      <Flex vertical gap="large">
        <section aria-labelledby="learning-formats">
          <Typography.Title level={3} id="learning-formats" className="learning-heading">
            Get started with a package format
          </Typography.Title>
          {session.user ? (
            <FormatGuides admin={session.user.admin} />
          ) : (
            <Typography.Paragraph>
              <Link to="/login?redirectTo=%2Foverview">Sign in</Link> to see a guide for each package format
              this server runs and the repositories you can use.
            </Typography.Paragraph>
          )}
        </section>
        <section aria-labelledby="learning-api">
          <Typography.Title level={3} id="learning-api" className="learning-heading">
            REST API
          </Typography.Title>
          <Typography.Paragraph>
            Everything the console does goes through the server's HTTP API. Its reference, generated from the
            routes themselves, is at <Typography.Link href="/api/docs/">/api/docs/</Typography.Link>; the
            OpenAPI document is at{' '}
            <Typography.Link href="/api/openapi.json">/api/openapi.json</Typography.Link>.
          </Typography.Paragraph>
        </section>
        <section aria-labelledby="learning-shortcuts">
          <Typography.Title level={3} id="learning-shortcuts" className="learning-heading">
            Keyboard shortcuts
          </Typography.Title>
          <KeyboardShortcutsTable />
        </section>
      </Flex>
    </Card>
  );
}

function FormatGuides({ admin }: { admin: boolean }) {
  const types = useQuery(packageTypesQueryOptions());
  const repositories = useQuery(repositoriesQueryOptions());
  if (types.isError) return <ErrorAlert title="Could not load the package formats" error={types.error} />;
  if (repositories.isError)
    return <ErrorAlert title="Could not load your repositories" error={repositories.error} />;
  if (types.isPending || repositories.isPending) return <Skeleton active paragraph={{ rows: 4 }} />;
  return (
    <ul className="learning-formats">
      {types.data.map((type) => (
        <FormatGuide key={type.id} type={type} repositories={repositories.data} admin={admin} />
      ))}
    </ul>
  );
}

function FormatGuide({
  type,
  repositories,
  admin,
}: {
  type: PackageTypeInfo;
  repositories: RepositoryListItem[];
  admin: boolean;
}) {
  const mine = repositories.filter((r) => r.packageType.toLowerCase() === type.id.toLowerCase());
  const first = mine[0];
  const headingId = `learning-format-${type.id}`;
  return (
    <li aria-labelledby={headingId}>
      <Flex justify="space-between" align="center" gap="middle">
        <div className="learning-format-text">
          <Typography.Title level={4} id={headingId} className="learning-format-name">
            {type.displayName}
          </Typography.Title>
          <Typography.Paragraph style={{ margin: 0 }}>
            {FORMAT_GUIDES[type.id.toLowerCase()] ?? GENERAL_GUIDE}
          </Typography.Paragraph>
          <Typography.Text type="secondary">
            {mine.length === 0
              ? `No ${type.displayName} repository you can read yet${admin ? '.' : ': ask an administrator for one.'}`
              : `${mine.length} ${type.displayName} ${mine.length === 1 ? 'repository' : 'repositories'} you can read.`}
          </Typography.Text>
        </div>
        <div className="learning-format-action">
          {first ? (
            <Button
              aria-label={`Set Me Up for ${type.displayName}`}
              onClick={() => openOverlay({ kind: 'setMeUp', repoKey: first.key })}
            >
              Set Me Up
            </Button>
          ) : (
            admin && (
              <Link to={`/admin/repositories/local/new?packageType=${encodeURIComponent(type.id)}`}>
                Create a {type.displayName} repository
              </Link>
            )
          )}
        </div>
      </Flex>
    </li>
  );
}
