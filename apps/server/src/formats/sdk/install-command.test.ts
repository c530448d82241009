import { describe, expect, it } from 'vitest';
import { createFormatRegistry } from '../registry.ts';
import { fillInstallCommand, INSTALL_COMMAND_TEMPLATES } from './install-command.ts';

describe('install commands', () => {
  it('spec 001 §3 install commands: templates for alpine, cargo, chef, deb, rubygems, npm, nuget, opkg, pypi, rpm, bower, docker, go, puppet, with and without version', () => {
    const cases: [keyof typeof INSTALL_COMMAND_TEMPLATES, string, string, string][] = [
      ['alpine', 'curl', 'apk add curl', 'apk add curl=8.5'],
      ['cargo', 'serde', 'cargo add serde', 'cargo add serde@8.5'],
      ['chef', 'nginx', 'knife supermarket install nginx', 'knife supermarket install nginx 8.5'],
      ['deb', 'curl', 'apt-get install curl', 'apt-get install curl=8.5'],
      ['rubygems', 'rails', 'gem install rails', 'gem install rails -v 8.5'],
      ['npm', 'left-pad', 'npm install left-pad', 'npm install left-pad@8.5'],
      [
        'nuget',
        'Newtonsoft.Json',
        'nuget install Newtonsoft.Json',
        'nuget install Newtonsoft.Json -Version 8.5',
      ],
      ['opkg', 'luci', 'opkg install luci', 'opkg install luci=8.5'],
      ['pypi', 'twine', 'pip install twine', 'pip install twine==8.5'],
      ['rpm', 'bash', 'yum install bash', 'yum install bash-8.5'],
      ['bower', 'jquery', 'bower install jquery', 'bower install jquery#8.5'],
      ['docker', 'nginx', 'docker pull nginx', 'docker pull nginx:8.5'],
      ['go', 'golang.org/x/net', 'go get golang.org/x/net', 'go get golang.org/x/net@8.5'],
      [
        'puppet',
        'puppetlabs-stdlib',
        'puppet module install puppetlabs-stdlib',
        'puppet module install puppetlabs-stdlib --version 8.5',
      ],
    ];
    expect(cases.map(([kind]) => kind).sort()).toEqual(Object.keys(INSTALL_COMMAND_TEMPLATES).sort());
    for (const [kind, name, latest, versioned] of cases) {
      expect(fillInstallCommand(INSTALL_COMMAND_TEMPLATES[kind], { name }), kind).toBe(latest);
      expect(fillInstallCommand(INSTALL_COMMAND_TEMPLATES[kind], { name, version: '8.5' }), kind).toBe(
        versioned,
      );
    }
  });

  it('issue 13 §3: each format builds its own install command through the registry (npm, pypi, docker by the spec templates; none for generic and maven-like types)', () => {
    const formats = createFormatRegistry();
    const command = (type: string, name: string, version?: string) =>
      formats.get(type)?.installCommand?.({ name, version }) ?? null;
    expect(command('npm', '@acme/left-pad', '1.0.0')).toBe('npm install @acme/left-pad@1.0.0');
    expect(command('npm', 'left-pad')).toBe('npm install left-pad');
    expect(command('pypi', 'twine', '5.0')).toBe('pip install twine==5.0');
    expect(command('docker', 'acme/app', '1.0')).toBe('docker pull acme/app:1.0');
    expect(command('oci', 'acme/app')).toBe('docker pull acme/app');
    for (const type of ['generic', 'maven', 'gradle']) expect(command(type, 'x', '1'), type).toBeNull();
  });
});
