import type { InstallCommandInput } from './format.ts';

/** An install command with and without a version: `{name}` and `{version}` are replaced. */
export interface InstallCommandTemplate {
  readonly latest: string;
  readonly version: string;
}

/**
 * spec 001 §3: the install command templates, by client. A format's `installCommand`
 * (`formats/<id>/install-command.ts`) fills its own; the others wait for their formats.
 */
export const INSTALL_COMMAND_TEMPLATES = {
  alpine: { latest: 'apk add {name}', version: 'apk add {name}={version}' },
  cargo: { latest: 'cargo add {name}', version: 'cargo add {name}@{version}' },
  chef: { latest: 'knife supermarket install {name}', version: 'knife supermarket install {name} {version}' },
  deb: { latest: 'apt-get install {name}', version: 'apt-get install {name}={version}' },
  rubygems: { latest: 'gem install {name}', version: 'gem install {name} -v {version}' },
  npm: { latest: 'npm install {name}', version: 'npm install {name}@{version}' },
  nuget: { latest: 'nuget install {name}', version: 'nuget install {name} -Version {version}' },
  opkg: { latest: 'opkg install {name}', version: 'opkg install {name}={version}' },
  pypi: { latest: 'pip install {name}', version: 'pip install {name}=={version}' },
  rpm: { latest: 'yum install {name}', version: 'yum install {name}-{version}' },
  bower: { latest: 'bower install {name}', version: 'bower install {name}#{version}' },
  docker: { latest: 'docker pull {name}', version: 'docker pull {name}:{version}' },
  go: { latest: 'go get {name}', version: 'go get {name}@{version}' },
  puppet: {
    latest: 'puppet module install {name}',
    version: 'puppet module install {name} --version {version}',
  },
} as const satisfies Record<string, InstallCommandTemplate>;

/** A template filled for one package: the versioned command when a version is given, else the latest. */
export function fillInstallCommand(
  template: InstallCommandTemplate,
  { name, version }: InstallCommandInput,
): string {
  const text = version ? template.version : template.latest;
  return text.replaceAll('{name}', name).replaceAll('{version}', version ?? '');
}
