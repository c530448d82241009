// `npm start`: builds the console and the server (scripts/build-server.mjs) when missing or older than
// their sources, then serves. The server runs in this process: no second process to manage.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { ensureServerBuilt, newest, SERVER_BUNDLE } from './build-server.mjs';

const root = path.resolve(import.meta.dirname, '..');
const dist = path.join(root, 'apps/console/dist/index.html');

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

await ensureServerBuilt();
await import(SERVER_BUNDLE);
