import { createHash } from 'node:crypto';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

// The console is served by the server at /ui/ (spec 000 §1, §9: base path /ui/).
// spec 000 §7 Loader: script and stylesheet chunks are fetched from the base path under js/ and css/.
const serverUrl = process.env.GRANARY_DEV_SERVER ?? 'http://127.0.0.1:8080';

/**
 * The console runs under a Content-Security-Policy without 'unsafe-eval' (issue 12 §22). Zod probes
 * `new Function` when it builds a schema, to decide whether to compile its parsers, and the browser
 * reports that probe as a violation even though zod catches the refusal. Zod reads its global setting
 * when it loads, and a bundle hoists zod above any module of ours, so the setting comes from a plain
 * script (hashed under js/ like every chunk) that runs before the modules, which are deferred: the
 * parsers run uncompiled (the console's documents are small).
 */
function zodWithoutEval(): Plugin {
  const source =
    'globalThis.__zod_globalConfig = Object.assign(globalThis.__zod_globalConfig || {}, { jitless: true });\n';
  const fileName = `js/zod-config-${createHash('sha256').update(source).digest('hex').slice(0, 8)}.js`;
  let base = '/';
  return {
    name: 'granary-zod-without-eval',
    apply: 'build',
    configResolved(config) {
      base = config.base;
    },
    generateBundle() {
      this.emitFile({ type: 'asset', fileName, source });
    },
    transformIndexHtml: () => [{ tag: 'script', attrs: { src: `${base}${fileName}` }, injectTo: 'head' }],
  };
}

export default defineConfig({
  base: '/ui/',
  plugins: [react(), zodWithoutEval()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    sourcemap: false,
    rolldownOptions: {
      output: {
        entryFileNames: 'js/[name]-[hash].js',
        chunkFileNames: 'js/[name]-[hash].js',
        assetFileNames: (asset) =>
          asset.names.some((name) => name.endsWith('.css'))
            ? 'css/[name]-[hash][extname]'
            : 'assets/[name]-[hash][extname]',
      },
    },
  },
  server: {
    proxy: {
      '/ui/api': { target: serverUrl, changeOrigin: false },
      '/api': { target: serverUrl, changeOrigin: false },
    },
  },
  preview: {
    proxy: {
      '/ui/api': { target: serverUrl, changeOrigin: false },
      '/api': { target: serverUrl, changeOrigin: false },
    },
  },
});
