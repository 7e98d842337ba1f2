import { defineConfig } from 'vitest/config';

// The files that measure memory or push a large company through a command: minutes of CPU that a
// change to the rules need not wait for. `npm test` runs the rest; `npm run test:scale` runs these,
// and CI runs both.
const SCALE = [
  'test/acceptance/vacation-book-memory.test.ts',
  'test/integration/integrity/export-memory.test.ts',
  'test/integration/store/large-append.test.ts',
  'test/integration/reference/import-growth.test.ts',
];

export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    // Bounds that only catch a hang: on a shared, busy machine starting a server or a CLI process
    // can take many times what it takes on a quiet one, and a timeout there says nothing of the code.
    testTimeout: 120_000,
    hookTimeout: 240_000,
    // Two cores: more workers only fight over the CPU and the database.
    maxWorkers: 2,
    reporters: ['default', './test/support/skip-reporter.ts'],
    projects: [
      { extends: true, test: { name: 'main', include: ['test/**/*.test.ts'], exclude: SCALE } },
      { extends: true, test: { name: 'scale', include: SCALE } },
    ],
  },
});
