import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: more workers only fight over the CPU and the database.
    maxWorkers: 2,
    reporters: ['default', './test/support/skip-reporter.ts'],
  },
});
