/**
 * spec 000 §4 quick-start client flows: the commands each step shows, as pure functions of the server's base URL,
 * the user's name, a real identity token and the created virtual repository (zui's habit: tiny install-command
 * builders, no React).
 */

export interface CommandContext {
  /** The server's public base URL (`GET ui/setMeUp` baseUrl), else the page's origin; no trailing slash. */
  baseUrl: string;
  user: string;
  /** A real identity token of the user (spec 000 §7 `POST ui/userIdentifyToken/{name}`). */
  token: string;
  /** The virtual repository the wizard created. */
  virtualRepo: string;
}

export const trimBase = (url: string) => url.replace(/\/+$/, '');

/** `https://granary.example.com:8080/x` → `granary.example.com:8080/x` (what `docker login` and `.npmrc` keys use). */
export function hostOf(baseUrl: string): string {
  const url = new URL(trimBase(baseUrl));
  return `${url.host}${url.pathname === '/' ? '' : url.pathname.replace(/\/+$/, '')}`;
}

/** Only the host (docker addresses images as HOST/{repoKey}/{image}). */
export const domainOf = (baseUrl: string) => new URL(trimBase(baseUrl)).host;

/** base64 of `user:token`, for npm's `_auth` (UTF-8 safe). */
export function basicAuth(user: string, token: string): string {
  const bytes = new TextEncoder().encode(`${user}:${token}`);
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

export const repositoryUrl = (ctx: Pick<CommandContext, 'baseUrl' | 'virtualRepo'>) =>
  `${trimBase(ctx.baseUrl)}/repository/${encodeURIComponent(ctx.virtualRepo)}/`;

// --- Docker ------------------------------------------------------------------------------------

export interface DockerDefaults {
  image: string;
  pullTag: string;
  pushTag: string;
}

export function dockerCommands(ctx: CommandContext, d: DockerDefaults) {
  const domain = domainOf(ctx.baseUrl);
  const image = `${domain}/${ctx.virtualRepo}/${d.image}`;
  return {
    login: `docker login ${domain} -u ${ctx.user}`,
    pull: `docker pull ${image}:${d.pullTag}`,
    tag: `docker tag ${image}:${d.pullTag} ${image}:${d.pushTag}`,
    push: `docker push ${image}:${d.pushTag}`,
  };
}

// --- npm ---------------------------------------------------------------------------------------

export interface NpmDefaults {
  downloadPackage: string;
  uploadPackage: string;
}

/** spec 000 §4 Npm Configure: registry under the npm API path, base64 auth from user and identity token, always-auth. */
export function npmrc(ctx: CommandContext): string {
  const registry = repositoryUrl(ctx);
  const key = `//${hostOf(ctx.baseUrl)}/repository/${encodeURIComponent(ctx.virtualRepo)}/`;
  return [
    `registry=${registry}`,
    `${key}:_auth=${basicAuth(ctx.user, ctx.token)}`,
    'always-auth=true',
    '',
  ].join('\n');
}

/**
 * spec 000 §4 Npm Install: get the trial project, change into it, set its version to 0.0.0-{timestamp}, npm install.
 * The trial project is made in place (npm init) so the step works on a machine without internet access; its one
 * dependency is the trial example the server serves through the virtual repository.
 */
export function npmInstallCommands(ctx: CommandContext, d: NpmDefaults, timestamp: number) {
  return [
    `mkdir ${d.uploadPackage} && cd ${d.uploadPackage} && npm init -y`,
    `npm pkg set name=${d.uploadPackage} version=0.0.0-${timestamp}`,
    `npm install ${d.downloadPackage} --registry ${repositoryUrl(ctx)}`,
  ].join('\n');
}

/** spec 000 §4 Npm Publish; the trial version is a prerelease, which npm 11 publishes only with an explicit tag. */
export const npmPublishCommand = (ctx: CommandContext) =>
  `npm publish --tag latest --registry ${repositoryUrl(ctx)}`;

// --- PyPI --------------------------------------------------------------------------------------

export interface PypiDefaults {
  downloadPackage: string;
  uploadPackage: string;
  uploadVersion: string;
}

/** spec 000 §4 Pypi Configure: the global index URL with credentials, in pip.conf. */
export function pipConf(ctx: CommandContext): string {
  const url = new URL(`${repositoryUrl(ctx)}simple`);
  url.username = encodeURIComponent(ctx.user);
  url.password = encodeURIComponent(ctx.token);
  return ['[global]', `index-url = ${url.toString()}`, ''].join('\n');
}

/** spec 000 §4 Pypi Install: the trial project (made in place), then install twine. */
export function pypiInstallCommands(d: PypiDefaults) {
  const setup = `from setuptools import setup\\nsetup(name="${d.uploadPackage}", version="${d.uploadVersion}", py_modules=[])\\n`;
  return [
    `mkdir ${d.uploadPackage} && cd ${d.uploadPackage}`,
    `printf '${setup}' > setup.py`,
    `pip install ${d.downloadPackage}`,
  ].join('\n');
}

/** spec 000 §4 Pypi Publish: sdist, then twine upload to the virtual repository. */
export function pypiPublishCommands(ctx: CommandContext) {
  return [
    'python3 setup.py sdist',
    `twine upload --repository-url ${repositoryUrl(ctx)} -u ${ctx.user} -p ${ctx.token} dist/*`,
  ].join('\n');
}

// --- Maven -------------------------------------------------------------------------------------

export interface MavenDefaults {
  uploadArtifact: string;
  archetypeVersion: string;
}

export const MAVEN_SETTINGS_PATHS = {
  unix: '~/.m2/settings.xml',
  windows: '%USERPROFILE%\\.m2\\settings.xml',
} as const;

/** spec 000 §4 Maven Configure: a command generating a sample project from the quickstart archetype. */
export const mavenGenerateCommand = (d: MavenDefaults) =>
  [
    'mvn archetype:generate -DgroupId=com.mycompany.app',
    `-DartifactId=${d.uploadArtifact}`,
    '-DarchetypeArtifactId=maven-archetype-quickstart',
    `-DarchetypeVersion=${d.archetypeVersion}`,
    '-DinteractiveMode=false',
  ].join(' ');

export const mavenInstallCommands = (d: MavenDefaults) => `cd ${d.uploadArtifact}\nmvn install`;
export const MAVEN_DEPLOY_COMMAND = 'mvn deploy';
