import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The console is served by the server at /ui/ (spec 000 §1, §9: base path /ui/).
// spec 000 §7 Loader: script and stylesheet chunks are fetched from the base path under js/ and css/.
const serverUrl = process.env.GRANARY_DEV_SERVER ?? 'http://127.0.0.1:8080';

export default defineConfig({
  base: '/ui/',
  plugins: [react()],
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
