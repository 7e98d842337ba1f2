import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    // Bounds that only catch a hang: on a shared, busy machine starting a server or a CLI process
    // can take many times what it takes on a quiet one, and a timeout there says nothing of the code.
    testTimeout: 120_000,
    hookTimeout: 240_000,
    // Two cores: more workers only fight over the CPU and the database.
    maxWorkers: 2,
    reporters: ['default', './test/support/skip-reporter.ts'],
  },
});
