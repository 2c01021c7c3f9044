/**
 * Where a test run's global setup leaves its shared FerretDB's deaths for scripts/run-tests.mjs, which
 * runs the failed files again when the server died under them: a JSON array of FerretDbDeath in the file
 * LEASECRON_TEST_DEATHS_FILE names. Without that variable (vitest run directly) nothing is written.
 */
import { writeFileSync } from 'node:fs'
import type { FerretDbDeath } from './ferretdb-server.js'

export const DEATHS_FILE_VARIABLE = 'LEASECRON_TEST_DEATHS_FILE'

/** Writes `deaths` (also none: the file then says the server lived) where the runner asked. */
export function recordDeaths(deaths: readonly FerretDbDeath[]): void {
  const file = process.env[DEATHS_FILE_VARIABLE]
  if (file) writeFileSync(file, JSON.stringify(deaths))
}
