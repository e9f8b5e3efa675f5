import { defineConfig } from 'vitest/config';

/**
 * `npm run test:browser`: the /docs reference page in headless Chromium (Debian's `chromium`
 * package, driven by playwright-core) against the whole `npm run dev` stack. Not part of
 * `npm test`; CI runs it after the smoke test (.ci/run).
 */
export default defineConfig({
  test: {
    include: ['test/browser/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    teardownTimeout: 60_000,
    fileParallelism: false,
  },
});
