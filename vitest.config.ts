import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    reporters: ['default', './test/backend-reporter.ts'],
    // A database test file spends much of its time waiting on PostgreSQL, PGlite's thread or a
    // child process: two files at a time even on two cores (vitest's default is cores − 1).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      {
        test: {
          name: 'server',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          // The fault suite stops and freezes servers and measures times: `npm run test:faults`, alone.
          exclude: [...configDefaults.exclude, 'test/faults/**'],
          globalSetup: ['test/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          pool: 'forks',
          env: { NODE_ENV: 'test' },
        },
      },
      {
        plugins: [react()],
        resolve: { alias: { '@server': fileURLToPath(new URL('./src', import.meta.url)) } },
        test: {
          name: 'web',
          include: ['web/src/**/*.test.{ts,tsx}'],
          environment: 'jsdom',
          setupFiles: ['web/src/test/setup.ts'],
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'widget',
          include: ['widget/test/**/*.test.ts'],
          environment: 'node',
        },
      },
      // End to end in Chromium: only when asked (npm run test:e2e, or npm test with chromium found).
      ...(process.env.PARLEY_E2E === '1'
        ? [
            {
              test: {
                name: 'e2e',
                include: ['web/e2e/**/*.e2e.ts'],
                testTimeout: 120_000,
                hookTimeout: 180_000,
                pool: 'forks' as const,
                env: { NODE_ENV: 'test' },
              },
            },
          ]
        : []),
    ],
  },
});
