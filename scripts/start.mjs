// `npm start`: builds the console and the server (scripts/build-server.mjs) when missing or older than
// their sources, then serves. The server runs in this process: no second process to manage.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const dist = path.join(root, 'apps/console/dist/index.html');

function newest(p) {
  if (!existsSync(p)) return 0;
  const s = statSync(p);
  if (!s.isDirectory()) return s.mtimeMs;
  return Math.max(0, ...readdirSync(p).map((e) => newest(path.join(p, e))));
}

const sources = [
  'apps/console/src',
  'apps/console/index.html',
  'apps/console/vite.config.ts',
  'packages/contracts/src',
];
const built = existsSync(dist) ? statSync(dist).mtimeMs : 0;
if (built === 0 || Math.max(...sources.map((s) => newest(path.join(root, s)))) > built) {
  process.stdout.write(built === 0 ? 'Building the console…\n' : 'The console changed: rebuilding…\n');
  const r = spawnSync('npm', ['run', 'build', '-w', '@granary/console'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

const { ensureServerBuilt, SERVER_BUNDLE } = await import('./build-server.mjs');
await ensureServerBuilt();
await import(SERVER_BUNDLE);
