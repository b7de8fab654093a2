import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { compression } from 'vite-plugin-compression2';

const api = process.env.PARLEY_API_URL ?? 'http://localhost:3000';
const apiPaths = ['/api', '/v1', '/webhooks', '/docs', '/openapi.json', '/health', '/ready', '/metrics'];

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [
    react(),
    // Every text asset also as .br and .gz beside it; the service sends the one the browser accepts.
    compression({
      algorithms: ['brotliCompress', 'gzip'],
      threshold: 1024,
      include: /\.(js|css|html|svg|json)$/,
    }),
  ],
  resolve: {
    // Pure decision modules of the server (state machines), shared instead of written twice.
    alias: { '@server': fileURLToPath(new URL('../src', import.meta.url)) },
  },
  server: {
    port: 5173,
    proxy: Object.fromEntries(apiPaths.map((path) => [path, { target: api, changeOrigin: false }])),
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Which chunks each entry imports (the budget, scripts/web-budget.mjs, measures in chromium).
    manifest: true,
    chunkSizeWarningLimit: 2000,
  },
});
