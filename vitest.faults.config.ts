import { defineConfig } from 'vitest/config';

/**
 * The fault suite (`npm run test:faults`): real outages of a PostgreSQL cluster and a Redis
 * server of its own (never the shared ones), a fake model server, `parley serve` in child
 * processes. Files run one after another: they stop and freeze servers and measure times.
 */
export default defineConfig({
  test: {
    include: ['test/faults/**/*.test.ts'],
    reporters: ['default', './test/backend-reporter.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    fileParallelism: false,
    env: { NODE_ENV: 'test' },
  },
});
