import { defineConfig } from 'vitest/config'

/**
 * The documentation site's test (`npm run test:docs`): it builds the site (`npm run docs`: TypeDoc, then
 * VitePress) and reads it in Chromium. Apart from `npm test` because the build costs ~30 CPU s, which the
 * suite's time budget cannot spare; CI's docs stage runs it, and `npm run check` too.
 */
export default defineConfig({
  test: {
    include: ['test/docs/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 300_000,
    pool: 'forks',
  },
})
