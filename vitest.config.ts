import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // The reference target is a workspace package; tests and benches run its source, not its dist/.
    alias: [
      {
        find: /^scim-reference-target$/,
        replacement: fileURLToPath(new URL('./reference-target/src/index.ts', import.meta.url)),
      },
    ],
  },
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts', 'reference-target/test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Two cores: integration tests start HTTP servers, workers and child processes of their own.
    maxWorkers: 2,
    reporters: ['default'],
  },
});
