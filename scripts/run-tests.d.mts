/** The decision of scripts/run-tests.mjs, typed for its test (test/support/run-tests.test.ts). */
export interface FinishedRun {
  exitCode: number
  args: readonly string[]
  deaths: readonly unknown[]
  failed: readonly string[]
  reported: boolean
}
export function filesToRunAgain(run: FinishedRun): { files: readonly string[]; why: string }
export function readRun(dir: string): { deaths: unknown[]; failed: string[]; reported: boolean }
export function deathsOnPostgres<D extends { backend?: string }>(deaths: readonly D[]): D[]
