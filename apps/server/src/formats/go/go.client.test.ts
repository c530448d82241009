import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selfSignedCert } from '../../testing/self-signed-cert.ts';
import { startTestServer, type TestServer } from '../../testing/server-process.ts';
import { escapePath } from './module.ts';
import { libraryZip } from './test-modules.ts';

const run = promisify(execFile);
const PASSWORD = 'Go-client-pa55!';
const UP_PASSWORD = 'Go-upstream-pa55!';

/** Deploys a module version as the REST deploy does (`PUT {module}/@v/{version}.zip`). */
async function deployModule(server: TestServer, key: string, module: string, version: string, zip: Buffer) {
  const res = await fetch(`${server.url}/repository/${key}/${escapePath(module)}/@v/${version}.zip`, {
    method: 'PUT',
    headers: { authorization: server.auth },
    body: zip,
  });
  if (res.status !== 201) throw new Error(`deploy ${module}@${version}: ${res.status} ${await res.text()}`);
}

/**
 * The TLS in front of the server, as a reverse proxy gives it in production: the go command sends
 * .netrc credentials over HTTPS only (cmd/go/internal/web). Self-signed for 127.0.0.1.
 */
async function startTlsFront(dir: string, port: number) {
  const { key, cert } = await selfSignedCert(dir);
  const front = https.createServer({ key: await readFile(key), cert: await readFile(cert) }, (req, res) => {
    const up = http.request(
      { host: '127.0.0.1', port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  return { front, cert, url: `https://127.0.0.1:${(front.address() as AddressInfo).port}` };
}

/**
 * issue 23 Go acceptance: the real go command (Debian's golang-go) builds a module whose requirements
 * come through a virtual repository — two from a local repository, one through a remote whose upstream
 * is a second Granary — with credentials from a .netrc, as a developer's machine would.
 */
describe('issue 23 Go: the real go command builds through a virtual repository', () => {
  let main: TestServer;
  let upstream: TestServer;
  let work: string;
  let tls: Awaited<ReturnType<typeof startTlsFront>>;

  beforeAll(async () => {
    [main, upstream] = await Promise.all([
      startTestServer(PASSWORD, { GRANARY_OUTBOUND_ALLOWLIST: '127.0.0.1' }),
      startTestServer(UP_PASSWORD),
    ]);
    await upstream.createRepository('go-up', { packageType: 'go', rclass: 'local' });
    await main.createRepository('go-local', { packageType: 'go', rclass: 'local' });
    await main.createRepository('go-remote', {
      packageType: 'go',
      rclass: 'remote',
      url: `${upstream.url}/repository/go-up/`,
      username: 'admin',
      password: UP_PASSWORD,
    });
    await main.createRepository('go-virtual', {
      packageType: 'go',
      rclass: 'virtual',
      repositories: ['go-local', 'go-remote'],
    });
    await deployModule(
      upstream,
      'go-up',
      'granary.test/remote/greet',
      'v1.0.0',
      await libraryZip('granary.test/remote/greet', 'v1.0.0', {
        pkg: 'greet',
        text: 'hello from the remote',
      }),
    );
    // Upper case in the path: the go command asks for granary.test/!hello (case-encoding).
    await deployModule(
      main,
      'go-local',
      'granary.test/Hello',
      'v1.2.0',
      await libraryZip('granary.test/Hello', 'v1.2.0', { pkg: 'hello', text: 'hello from local one' }),
    );
    await deployModule(
      main,
      'go-local',
      'granary.test/Hello',
      'v1.1.0',
      await libraryZip('granary.test/Hello', 'v1.1.0', { pkg: 'hello', text: 'an older one' }),
    );
    await deployModule(
      main,
      'go-local',
      'granary.test/lib/two',
      'v0.3.0',
      await libraryZip('granary.test/lib/two', 'v0.3.0', {
        pkg: 'two',
        text: 'hello from local two',
        requires: ['granary.test/Hello v1.1.0'],
      }),
    );
    work = await mkdtemp(path.join(os.tmpdir(), 'granary-go-'));
    tls = await startTlsFront(work, main.port);
  }, 300_000);

  afterAll(async () => {
    await new Promise((resolve) => (tls ? tls.front.close(resolve) : resolve(undefined)));
    await Promise.all([main?.stop(), upstream?.stop()]);
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('issue 23 Go: GOPROXY=…/repository/go-virtual GOFLAGS=-mod=mod go build resolves two local modules and one through the remote (a second Granary)', async () => {
    const home = path.join(work, 'home');
    const app = path.join(work, 'app');
    await mkdir(home, { recursive: true });
    await mkdir(app, { recursive: true });
    await writeFile(path.join(work, '.netrc'), `machine 127.0.0.1\nlogin admin\npassword ${PASSWORD}\n`, {
      mode: 0o600,
    });
    await writeFile(
      path.join(app, 'go.mod'),
      'module granary.test/app\n\ngo 1.19\n\nrequire (\n\tgranary.test/Hello v1.2.0\n\tgranary.test/lib/two v0.3.0\n\tgranary.test/remote/greet v1.0.0\n)\n',
    );
    await writeFile(
      path.join(app, 'main.go'),
      'package main\n\nimport (\n\t"fmt"\n\n\thello "granary.test/Hello"\n\t"granary.test/lib/two"\n\t"granary.test/remote/greet"\n)\n\nfunc main() { fmt.Println(hello.Text(), "|", two.Text(), "|", greet.Text()) }\n',
    );
    const env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: home,
      NETRC: path.join(work, '.netrc'),
      GOPATH: path.join(work, 'gopath'),
      GOCACHE: path.join(work, 'gocache'),
      GOMODCACHE: path.join(work, 'gomodcache'),
      GOPROXY: `${tls.url}/repository/go-virtual`,
      SSL_CERT_FILE: tls.cert,
      GOFLAGS: '-mod=mod',
      GOSUMDB: 'off',
      GONOSUMDB: 'granary.test',
      GOTOOLCHAIN: 'local',
      GO111MODULE: 'on',
      CGO_ENABLED: '0',
    };
    const go = (args: string[]) => run('go', args, { cwd: app, env, timeout: 240_000 });
    await go(['build', '-o', 'app', '.']).catch((err: { stderr?: string }) => {
      throw new Error(`go build failed: ${err.stderr}`);
    });
    const { stdout } = await run(path.join(app, 'app'));
    expect(stdout.trim()).toBe('hello from local one | hello from local two | hello from the remote');

    // The remote cached what it fetched; the local repository answered the case-encoded path.
    const cached = await fetch(
      `${main.url}/api/storage/go-remote-cache/granary.test/remote/greet/@v/v1.0.0.zip`,
      { headers: { authorization: main.auth } },
    );
    expect(cached.status).toBe(200);
    const { stdout: versions } = await go(['list', '-m', '-versions', 'granary.test/Hello']);
    expect(versions.trim()).toBe('granary.test/Hello v1.1.0 v1.2.0');
  }, 300_000);
});
