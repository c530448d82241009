import { describe, expect, it } from 'vitest';
import { dockerCommands, npmrc, pipConf } from './quickStartCommands.ts';
import { filterTypes, orderTypes } from './quickStartFlows.ts';

const ctx = { baseUrl: 'http://127.0.0.1:8080/', user: 'admin', token: 'tok:en', virtualRepo: 'npm' };

describe('quick-start commands (spec 000 §4)', () => {
  it('spec 000 §4 Npm Configure: registry under the npm API path, base64 auth of user and identity token, always-auth', () => {
    const lines = npmrc(ctx).trim().split('\n');
    expect(lines).toEqual([
      'registry=http://127.0.0.1:8080/repository/npm/',
      `//127.0.0.1:8080/repository/npm/:_auth=${Buffer.from('admin:tok:en').toString('base64')}`,
      'always-auth=true',
    ]);
  });

  it('spec 000 §4 Pypi Configure: the global index URL carries the credentials', () => {
    expect(pipConf({ ...ctx, virtualRepo: 'pypi' })).toContain(
      'index-url = http://admin:tok%3Aen@127.0.0.1:8080/repository/pypi/simple',
    );
  });

  it('spec 000 §4 Docker: login with user and domain, pull and push through the virtual repository', () => {
    const c = dockerCommands(
      { ...ctx, virtualRepo: 'docker' },
      { image: 'hello-world', pullTag: 'latest', pushTag: '1.0.0' },
    );
    expect(c.login).toBe('docker login 127.0.0.1:8080 -u admin');
    expect(c.pull).toBe('docker pull 127.0.0.1:8080/docker/hello-world:latest');
    expect(c.push).toBe('docker push 127.0.0.1:8080/docker/hello-world:1.0.0');
  });

  it("spec 000 §4 selection grid: the spec's order first; spec 000 §5: case-insensitive pattern match", () => {
    const types = ['generic', 'pypi', 'npm', 'maven', 'docker'].map((type) => ({ type }));
    expect(orderTypes(types).map((t) => t.type)).toEqual(['docker', 'npm', 'maven', 'generic', 'pypi']);
    expect(filterTypes(types, 'PY').map((t) => t.type)).toEqual(['pypi']);
    expect(filterTypes(types, 'm').map((t) => t.type)).toEqual(['npm', 'maven']);
    expect(filterTypes(types, '.*')).toEqual([]);
  });
});
