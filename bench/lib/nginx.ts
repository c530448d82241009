import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freePort, type RunningServer } from './servers.ts';

const CANDIDATES = ['/usr/sbin/nginx', '/usr/bin/nginx', '/usr/local/sbin/nginx'];

export const nginxBinary = (): string | undefined => CANDIDATES.find((p) => existsSync(p));

/** nginx serving files (name or `folder/name` → bytes; or made from its URL) from a temp root on a free loopback port, or null if not installed. */
export async function startNginx(
  filesOrMake: Record<string, Buffer> | ((url: string) => Record<string, Buffer>),
  opts: { gzipStatic?: boolean } = {},
): Promise<RunningServer | null> {
  const bin = nginxBinary();
  if (!bin) return null;
  const dir = await mkdtemp(path.join(os.tmpdir(), 'granary-bench-nginx-'));
  // Run as root, nginx's workers drop to an unprivileged user: they must be able to read the files.
  await chmod(dir, 0o755);
  const root = path.join(dir, 'www');
  await mkdir(root, { mode: 0o755 });
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  // files may name the server's own URL (a Cargo index's `dl`): made once the port is known
  const files = typeof filesOrMake === 'function' ? filesOrMake(url) : filesOrMake;
  for (const [name, bytes] of Object.entries(files)) {
    // names may hold folders (`a/b/c`): made readable for the workers too
    const file = path.join(root, name);
    if (path.dirname(file) !== root) await mkdir(path.dirname(file), { recursive: true, mode: 0o755 });
    await writeFile(file, bytes, { mode: 0o644 });
  }
  const conf = path.join(dir, 'nginx.conf');
  await writeFile(
    conf,
    `daemon off; worker_processes 1; pid ${dir}/nginx.pid; error_log ${dir}/error.log;
events { worker_connections 1024; }
http { access_log off; sendfile on; tcp_nopush on; keepalive_requests 100000;
  client_body_temp_path ${dir}/tmp; proxy_temp_path ${dir}/tmp; fastcgi_temp_path ${dir}/tmp;
  uwsgi_temp_path ${dir}/tmp; scgi_temp_path ${dir}/tmp;
  ${opts.gzipStatic ? 'gzip_static on; ' : ''}server { listen 127.0.0.1:${port}; root ${root}; } }
`,
  );
  await mkdir(path.join(dir, 'tmp'));
  const child: ChildProcess = spawn(bin, ['-c', conf, '-p', dir], { stdio: 'ignore' });
  const deadline = Date.now() + 10_000;
  const first = Object.keys(files)[0] ?? '';
  while (
    !(await fetch(`${url}/${first}`).then(
      (r) => r.ok,
      () => false,
    ))
  ) {
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill('SIGQUIT');
      throw new Error('nginx did not start');
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    name: 'nginx',
    url,
    pid: child.pid!,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGQUIT');
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
