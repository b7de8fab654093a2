import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const api = process.env.PARLEY_API_URL ?? 'http://localhost:3000';
const apiPaths = ['/api', '/v1', '/webhooks', '/docs', '/openapi.json', '/health', '/ready', '/metrics'];

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [react()],
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
    chunkSizeWarningLimit: 2000,
  },
});
