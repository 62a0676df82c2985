import { defineConfig } from 'vitest/config';

// The package's tests on their own (`npm test --workspace scim-reference-target`). The root
// `npm test` runs them as well, under the root vitest.config.ts.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 2,
  },
});
