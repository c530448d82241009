import androidStudioShot from './assets/android-studio.svg';
import azureDevopsShot from './assets/azure-devops.svg';
import dockerDesktopShot from './assets/docker-desktop.svg';
import frogbotShot from './assets/frogbot.svg';
import githubActionsShot from './assets/github-actions.svg';
import jetbrainsShot from './assets/jetbrains.svg';
import jfrogCliShot from './assets/jfrog-cli.svg';
import vscodeShot from './assets/vscode.svg';

/**
 * spec 001 §2 Integrations: the Developer Tools and Continuous Integration cards. Each has feature highlights, a
 * screenshot (an SVG the console ships), installation steps with a terminal command per OS, a marketplace link and
 * a documentation link. The commands are tiny pure functions of Granary's base URL, the user, their API key and a
 * repository key, so they are correct for Granary's URLs: clients reach a repository at `{base}/repository/{key}/`,
 * the REST API at `{base}/api/`, and the Docker registry at the host's `/v2/`.
 */
export const OPERATING_SYSTEMS = [
  { key: 'macos', label: 'macOS' },
  { key: 'linux', label: 'Linux' },
  { key: 'windows', label: 'Windows' },
] as const;
export type OperatingSystem = (typeof OPERATING_SYSTEMS)[number]['key'];

export interface CommandContext {
  /** The public base URL without a trailing slash (see `normaliseBaseUrl`). */
  baseUrl: string;
  username: string;
  /** The API key when the user just created one; otherwise a placeholder the user replaces. */
  apiKey: string | null;
  /** The repository the CI commands configure (npm for GitHub Actions and Azure DevOps). */
  repoKey: string;
}

export interface ToolCard {
  id: string;
  name: string;
  group: 'ide' | 'ci';
  summary: string;
  highlights: string[];
  screenshot: string;
  marketplaceUrl: string;
  docsUrl: string;
  /** Whether the commands configure a repository (the modal then offers a repository picker). */
  usesRepository: boolean;
  /** Installation steps: a title and the terminal command for the chosen OS. */
  steps: { title: string; command: (os: OperatingSystem, ctx: CommandContext) => string }[];
}

export const API_KEY_PLACEHOLDER = '<YOUR_API_KEY>';

/** spec 001 §7 set-me-up baseUrl with the trailing slash normalised: no slash at the end, ever. */
export function normaliseBaseUrl(baseUrl: string): string {
  return baseUrl.trim().replace(/\/+$/, '');
}

/** `{base}/repository/{key}/`: where Granary serves a repository to its clients. */
export const repositoryUrl = (ctx: CommandContext) =>
  `${ctx.baseUrl}/repository/${encodeURIComponent(ctx.repoKey)}/`;

/** The Docker registry host (`host[:port]`): Granary serves the registry API at the root `/v2/`. */
export function registryHost(baseUrl: string): string {
  try {
    return new URL(baseUrl).host;
  } catch {
    return baseUrl.replace(/^https?:\/\//, '').replace(/\/.*$/, '');
  }
}

const key = (ctx: CommandContext) => ctx.apiKey ?? API_KEY_PLACEHOLDER;
/** A value quoted for the OS's shell (PowerShell on Windows). */
const q = (os: OperatingSystem, value: string) =>
  os === 'windows' ? `'${value.replace(/'/g, "''")}'` : `'${value.replace(/'/g, `'\\''`)}'`;

/** JetBrains' command-line plugin installer (`installPlugins <pluginId>`), per OS and IDE launcher. */
function installPlugin(
  os: OperatingSystem,
  app: { mac: string; linux: string; windows: string },
  id: string,
) {
  if (os === 'macos') return `open -na ${q(os, app.mac)} --args installPlugins ${id}`;
  if (os === 'linux') return `${app.linux} installPlugins ${id}`;
  return `& ${q(os, app.windows)} installPlugins ${id}`;
}

/** The environment the IDE plugins and the CLI read the server from. */
function serverEnv(os: OperatingSystem, ctx: CommandContext) {
  if (os === 'windows')
    return [
      `setx JFROG_IDE_URL ${q(os, `${ctx.baseUrl}/`)}`,
      `setx JFROG_IDE_USERNAME ${q(os, ctx.username)}`,
      `setx JFROG_IDE_ACCESS_TOKEN ${q(os, key(ctx))}`,
    ].join('\n');
  const profile = os === 'macos' ? '~/.zshrc' : '~/.bashrc';
  return [
    `echo "export JFROG_IDE_URL=${ctx.baseUrl}/" >> ${profile}`,
    `echo "export JFROG_IDE_USERNAME=${ctx.username}" >> ${profile}`,
    `echo "export JFROG_IDE_ACCESS_TOKEN=${key(ctx)}" >> ${profile}`,
  ].join('\n');
}

const jfConfig = (os: OperatingSystem, ctx: CommandContext) =>
  `jf config add granary --url=${q(os, `${ctx.baseUrl}/`)} --artifactory-url=${q(os, `${ctx.baseUrl}/`)} --user=${q(os, ctx.username)} --access-token=${q(os, key(ctx))} --interactive=false`;

/** A GitHub Actions expression, `${{ … }}`. */
const gh = (expression: string) => `$${'{{'} ${expression} }}`;

/** The GitHub Actions job steps that install npm dependencies from Granary. */
export function githubActionsWorkflow(ctx: CommandContext): string {
  return [
    'name: build',
    'on: [push, pull_request]',
    'jobs:',
    '  build:',
    '    runs-on: ubuntu-latest',
    '    steps:',
    '      - uses: actions/checkout@v4',
    '      - uses: actions/setup-node@v4',
    '        with:',
    '          node-version: 20',
    `          registry-url: ${repositoryUrl(ctx)}`,
    '      - run: npm ci',
    '        env:',
    `          NODE_AUTH_TOKEN: ${gh('secrets.GRANARY_TOKEN')}`,
  ].join('\n');
}

/** The Azure Pipelines steps that point npm at Granary. */
export function azurePipeline(ctx: CommandContext): string {
  const registry = repositoryUrl(ctx);
  const authPath = registry.replace(/^https?:/, '');
  return [
    'trigger: [main]',
    'pool:',
    '  vmImage: ubuntu-latest',
    'steps:',
    '  - script: |',
    `      npm config set registry ${registry}`,
    `      npm config set ${authPath}:_authToken $(GRANARY_TOKEN)`,
    '      npm ci',
    '    displayName: npm ci from Granary',
  ].join('\n');
}

/** The Frogbot GitHub workflow scanning pull requests against Granary. */
export function frogbotWorkflow(ctx: CommandContext): string {
  return [
    'name: Frogbot scan pull request',
    'on:',
    '  pull_request_target:',
    '    types: [opened, synchronize]',
    'permissions:',
    '  pull-requests: write',
    '  contents: read',
    'jobs:',
    '  scan:',
    '    runs-on: ubuntu-latest',
    '    steps:',
    '      - uses: jfrog/frogbot@v2',
    '        env:',
    `          JF_URL: ${ctx.baseUrl}/`,
    `          JF_ACCESS_TOKEN: ${gh('secrets.GRANARY_TOKEN')}`,
    `          JF_GIT_TOKEN: ${gh('secrets.GITHUB_TOKEN')}`,
  ].join('\n');
}

/** Writes a multi-line file from the OS's shell (a here-document, or PowerShell's here-string). */
function writeFile(os: OperatingSystem, path: string, content: string) {
  if (os === 'windows') {
    const dir = path.includes('/') ? path.slice(0, path.lastIndexOf('/')).replace(/\//g, '\\') : '';
    return `${dir ? `New-Item -ItemType Directory -Force ${dir} | Out-Null\n` : ''}@'\n${content}\n'@ | Set-Content -Encoding utf8 ${path.replace(/\//g, '\\')}`;
  }
  const dir = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '';
  return `${dir ? `mkdir -p ${dir}\n` : ''}cat > ${path} <<'EOF'\n${content}\nEOF`;
}

const ghSecret = (os: OperatingSystem, ctx: CommandContext) =>
  `gh secret set GRANARY_TOKEN --body ${q(os, key(ctx))}`;

export const TOOL_CARDS: ToolCard[] = [
  {
    id: 'jetbrains',
    name: 'Jetbrains',
    group: 'ide',
    summary:
      'See the vulnerabilities and licences of your dependencies inside IntelliJ IDEA, PyCharm, GoLand and WebStorm.',
    highlights: [
      'Scans the project’s dependencies against Granary’s advisory database',
      'Shows the fixed version of every vulnerable dependency',
      'Resolves packages through your Granary repositories',
    ],
    screenshot: jetbrainsShot,
    marketplaceUrl: 'https://plugins.jetbrains.com/plugin/9834-jfrog',
    docsUrl: 'https://docs.jfrog-applications.jfrog.io/jfrog-applications/ide/jetbrains-ides',
    usesRepository: false,
    steps: [
      {
        title: 'Install the plugin',
        command: (os) =>
          installPlugin(
            os,
            {
              mac: 'IntelliJ IDEA.app',
              linux: 'idea.sh',
              windows: 'C:\\Program Files\\JetBrains\\IntelliJ IDEA\\bin\\idea64.exe',
            },
            'org.jfrog.idea',
          ),
      },
      { title: 'Connect it to Granary', command: serverEnv },
    ],
  },
  {
    id: 'vscode',
    name: 'Visual Studio Code',
    group: 'ide',
    summary: 'Vulnerable dependencies highlighted in package.json, go.mod and requirements.txt as you edit.',
    highlights: [
      'Inline findings on the manifest line that brings the dependency in',
      'One-click upgrade to the fixed version',
      'Uses your Granary URL and API key',
    ],
    screenshot: vscodeShot,
    marketplaceUrl: 'https://marketplace.visualstudio.com/items?itemName=JFrog.jfrog-vscode-extension',
    docsUrl: 'https://docs.jfrog-applications.jfrog.io/jfrog-applications/ide/visual-studio-code',
    usesRepository: false,
    steps: [
      {
        title: 'Install the extension',
        command: () => 'code --install-extension JFrog.jfrog-vscode-extension',
      },
      { title: 'Connect it to Granary', command: serverEnv },
    ],
  },
  {
    id: 'android-studio',
    name: 'Android Studio',
    group: 'ide',
    summary: 'Gradle dependencies of your Android app scanned inside Android Studio.',
    highlights: [
      'Scans Gradle dependencies resolved through Granary',
      'Severity, CVE and fixed version per dependency',
      'Same plugin as the other JetBrains IDEs',
    ],
    screenshot: androidStudioShot,
    marketplaceUrl: 'https://plugins.jetbrains.com/plugin/9834-jfrog',
    docsUrl: 'https://docs.jfrog-applications.jfrog.io/jfrog-applications/ide/jetbrains-ides',
    usesRepository: false,
    steps: [
      {
        title: 'Install the plugin',
        command: (os) =>
          installPlugin(
            os,
            {
              mac: 'Android Studio.app',
              linux: 'studio.sh',
              windows: 'C:\\Program Files\\Android\\Android Studio\\bin\\studio64.exe',
            },
            'org.jfrog.idea',
          ),
      },
      { title: 'Connect it to Granary', command: serverEnv },
    ],
  },
  {
    id: 'docker-desktop',
    name: 'Docker Desktop',
    group: 'ide',
    summary: 'Pull and push images through Granary and scan local images from Docker Desktop.',
    highlights: [
      'Signs Docker in to Granary’s registry',
      'Scans local images for vulnerable packages',
      'Works with every Docker repository you may read',
    ],
    screenshot: dockerDesktopShot,
    marketplaceUrl: 'https://hub.docker.com/extensions/jfrog/jfrog-docker-desktop-extension',
    docsUrl: 'https://docs.docker.com/reference/cli/docker/login/',
    usesRepository: false,
    steps: [
      {
        title: 'Install the extension',
        command: () => 'docker extension install jfrog/jfrog-docker-desktop-extension',
      },
      {
        title: 'Sign Docker in to Granary',
        command: (os, ctx) =>
          os === 'windows'
            ? `${q(os, key(ctx))} | docker login ${registryHost(ctx.baseUrl)} --username ${q(os, ctx.username)} --password-stdin`
            : `echo ${q(os, key(ctx))} | docker login ${registryHost(ctx.baseUrl)} --username ${q(os, ctx.username)} --password-stdin`,
      },
    ],
  },
  {
    id: 'jfrog-cli',
    name: 'JFrog CLI',
    group: 'ci',
    summary: 'Upload, download and search artifacts in Granary from any terminal or build script.',
    highlights: [
      'Parallel uploads and downloads with checksum deploys',
      'Talks to Granary’s Artifactory-compatible REST API',
      'Configured once with your URL and API key',
    ],
    screenshot: jfrogCliShot,
    marketplaceUrl: 'https://jfrog.com/getcli/',
    docsUrl: 'https://docs.jfrog-applications.jfrog.io/jfrog-applications/jfrog-cli',
    usesRepository: false,
    steps: [
      {
        title: 'Install the CLI',
        command: (os) =>
          os === 'macos'
            ? 'brew install jfrog-cli'
            : os === 'linux'
              ? 'curl -fL https://install-cli.jfrog.io | sh'
              : 'choco install jfrog-cli-v2-jf',
      },
      { title: 'Add Granary as a server', command: jfConfig },
      { title: 'Check the connection', command: () => 'jf rt ping --server-id=granary' },
    ],
  },
  {
    id: 'github-actions',
    name: 'GitHub Actions',
    group: 'ci',
    summary: 'Install your npm dependencies from Granary in every GitHub Actions run.',
    highlights: [
      'actions/setup-node pointed at a Granary npm repository',
      'The API key kept as a repository secret',
      'Caches upstream packages in Granary for every later build',
    ],
    screenshot: githubActionsShot,
    marketplaceUrl: 'https://github.com/marketplace/actions/setup-node-js-environment',
    docsUrl:
      'https://docs.github.com/en/actions/use-cases-and-examples/building-and-testing/building-and-testing-nodejs',
    usesRepository: true,
    steps: [
      { title: 'Store your API key as a secret (GitHub CLI)', command: ghSecret },
      {
        title: 'Add the workflow',
        command: (os, ctx) => writeFile(os, '.github/workflows/build.yml', githubActionsWorkflow(ctx)),
      },
    ],
  },
  {
    id: 'azure-devops',
    name: 'Azure DevOps',
    group: 'ci',
    summary: 'Azure Pipelines that install and publish packages through Granary.',
    highlights: [
      'npm pointed at a Granary repository in the pipeline',
      'The API key kept as a secret pipeline variable',
      'Works on Microsoft-hosted and self-hosted agents',
    ],
    screenshot: azureDevopsShot,
    marketplaceUrl: 'https://marketplace.visualstudio.com/items?itemName=JFrog.jfrog-azure-devops-extension',
    docsUrl: 'https://learn.microsoft.com/en-us/azure/devops/pipelines/ecosystems/javascript',
    usesRepository: true,
    steps: [
      {
        title: 'Store your API key as a secret variable (Azure CLI)',
        command: (os, ctx) =>
          `az pipelines variable create --pipeline-name build --name GRANARY_TOKEN --secret true --value ${q(os, key(ctx))}`,
      },
      {
        title: 'Add the pipeline',
        command: (os, ctx) => writeFile(os, 'azure-pipelines.yml', azurePipeline(ctx)),
      },
    ],
  },
  {
    id: 'frogbot',
    name: 'Frogbot',
    group: 'ci',
    summary: 'Scans every pull request’s dependencies and comments with the vulnerabilities it brings.',
    highlights: [
      'A comment on the pull request listing new vulnerable dependencies',
      'Fix pull requests for the repository’s vulnerable dependencies',
      'Runs in GitHub Actions against Granary',
    ],
    screenshot: frogbotShot,
    marketplaceUrl: 'https://github.com/marketplace/actions/frogbot-by-jfrog',
    docsUrl: 'https://docs.jfrog-applications.jfrog.io/jfrog-applications/frogbot',
    usesRepository: false,
    steps: [
      { title: 'Store your API key as a secret (GitHub CLI)', command: ghSecret },
      {
        title: 'Add the workflow',
        command: (os, ctx) => writeFile(os, '.github/workflows/frogbot.yml', frogbotWorkflow(ctx)),
      },
    ],
  },
];

export const TOOL_GROUPS: { type: ToolCard['group']; name: string }[] = [
  { type: 'ide', name: 'Developer Tools' },
  { type: 'ci', name: 'Continuous Integration' },
];
