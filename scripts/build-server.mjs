// The server as one JavaScript module (apps/server/dist/main.mjs), built with esbuild from the
// TypeScript sources when it is missing or older than them. `npm start`, the browser tests and the
// benchmarks run it with plain Node.
//
// Why not tsx at run time (issue 24, idle memory): Node 20 runs ESM loader hooks on a thread of their
// own, with its own V8 heap holding tsx and esbuild's client, for the life of the process: 116 MiB of
// the 370 MiB an idle server was resident (measured importing app.ts with and without it). The tests
// (vitest) and `npm run granary` still load the sources directly.
//
// Dependencies stay where npm put them (every bare import is external, the workspace's own
// `@granary/*` packages aside), so the bundle is the server's own code only. `import.meta.dirname`
// and `import.meta.url` are rewritten to the source file's place, relative to the bundle: the
// migrations folder, the console's dist and the version file are found as from the sources.
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(import.meta.dirname, '..');
export const SERVER_BUNDLE = path.join(root, 'apps/server/dist/main.mjs');
const outdir = path.dirname(SERVER_BUNDLE);
const SOURCES = [
  'apps/server/src',
  'packages/contracts/src',
  'apps/server/package.json',
  'scripts/build-server.mjs',
];

/** The newest modification time under `p` (a file or a folder, walked whole); 0 when it is missing. */
export function newest(p) {
  if (!existsSync(p)) return 0;
  const s = statSync(p);
  if (!s.isDirectory()) return s.mtimeMs;
  let max = s.mtimeMs;
  for (const e of readdirSync(p)) max = Math.max(max, newest(path.join(p, e)));
  return max;
}

/** Whether the bundle is missing or older than a source (a file changed, added or removed). */
export function serverBundleStale() {
  if (!existsSync(SERVER_BUNDLE)) return true;
  const built = statSync(SERVER_BUNDLE).mtimeMs;
  return SOURCES.some((s) => newest(path.join(root, s)) > built);
}

const toPosix = (p) => p.split(path.sep).join('/');

/** esbuild plugin: `import.meta.dirname` / `import.meta.url` of each source file, as that file's. */
const sourcePlaces = {
  name: 'granary-source-places',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, (args) => {
      if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      let contents = readFileSync(args.path, 'utf8');
      if (contents.includes('import.meta.dirname') || contents.includes('import.meta.url')) {
        const dir = `${toPosix(path.relative(outdir, path.dirname(args.path)))}/`;
        const file = toPosix(path.relative(outdir, args.path));
        // dirname first, as a token: its replacement holds an import.meta.url that must stay the bundle's.
        const token = '__granary_source_dir__';
        contents = contents
          .replaceAll('import.meta.dirname', token)
          .replaceAll('import.meta.url', `new URL(${JSON.stringify(file)}, import.meta.url).href`)
          .replaceAll(token, `__granarySourceDir(${JSON.stringify(dir)}, import.meta.url)`);
      }
      return { contents, loader: 'ts' };
    });
  },
};

/** Builds the bundle now (about 2 s). */
export async function buildServer() {
  const { build } = await import('esbuild');
  rmSync(outdir, { recursive: true, force: true });
  await build({
    entryPoints: { main: path.join(root, 'apps/server/src/main.ts') },
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    // What the sources import lazily (`await import(…)`: the S3 store, the archive store, formats'
    // helpers) stays lazy in chunks of its own: in one file, its packages would load at start.
    splitting: true,
    // Beside main.mjs: the import.meta rewrite counts the way back to the sources from this folder.
    chunkNames: '[name]-[hash]',
    // One-byte source text: V8 keeps a module's source in its heap, as UTF-16 if one character needs it.
    charset: 'ascii',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // Class and function names as written: logs, errors and `constructor.name` checks read them.
    keepNames: true,
    sourcemap: 'linked',
    logLevel: 'warning',
    banner: {
      js: [
        "import { fileURLToPath as __granaryFileURLToPath } from 'node:url';",
        'const __granarySourceDir = (dir, base) => __granaryFileURLToPath(new URL(dir, base)).replace(/\\/$/, "");',
      ].join('\n'),
    },
    plugins: [
      {
        name: 'granary-externals',
        setup(build) {
          // Every package import stays an import (node_modules as installed), except the workspace's own.
          build.onResolve({ filter: /^[^./]/ }, (args) =>
            args.path.startsWith('@granary/') ? undefined : { path: args.path, external: true },
          );
        },
      },
      sourcePlaces,
    ],
  });
  asciiComments();
}

/** Any UTF-16 unit past ASCII (each half of a surrogate pair too: one `?` per unit keeps columns). */
const NON_ASCII = /[\u0080-\uffff]/;

/**
 * `charset: 'ascii'` escapes strings and names, not the comments esbuild keeps (`≥`, `…`, `§` in JSDoc):
 * one such character made V8 hold app.mjs's 1.4 MB source as UTF-16, 2.6 MB (issue 24, idle memory).
 * In comment lines each one becomes `?` (one UTF-16 unit for one, so source-map columns still match).
 */
function asciiComments() {
  for (const name of readdirSync(outdir).filter((f) => f.endsWith('.mjs'))) {
    const file = path.join(outdir, name);
    const text = readFileSync(file, 'utf8');
    if (!NON_ASCII.test(text)) continue;
    const lines = text
      .split('\n')
      .map((line) =>
        NON_ASCII.test(line) && /^\s*(\/\/|\/\*|\*)/.test(line)
          ? line.replace(/[\u0080-\uffff]/g, '?')
          : line,
      );
    writeFileSync(file, lines.join('\n'));
  }
}

/** Builds the bundle when it is stale; answers whether it built. */
export async function ensureServerBuilt({ quiet = false } = {}) {
  if (!serverBundleStale()) return false;
  if (!quiet) process.stdout.write('Building the server…\n');
  await buildServer();
  return true;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildServer();
}
