/**
 * Vitest global setup of `npm run test:quick`: no Mongo server and no build. A file that needs either
 * and was not sorted out by test/support/test-needs.ts fails with this reason instead of a TypeError.
 */
import type { TestProject } from 'vitest/node'

const MISSED =
  'npm run test:quick starts no Mongo server and builds no dist/, and this file needs one: ' +
  'test/support/test-needs.ts did not see it (add the sign it uses there), or run it with npm test'

export function setup(project: TestProject): void {
  project.provide('mongo', { error: MISSED })
  project.provide('buildError', MISSED)
}
