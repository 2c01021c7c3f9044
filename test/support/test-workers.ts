/** How many test files vitest runs at once, for `npm test` and `npm run test:quick`. */
import { availableParallelism } from 'node:os'

/**
 * Files run side by side, two per core: most of the suite waits (on its real processes, the Mongo
 * server, a browser, timers), so on the 2-core CI machine one file at a time left it ~1 core idle and took
 * ~12 min; side by side it takes 4.5–7 min, and is then bound by the CPU (~470–680 CPU s per run), so a
 * third file per core buys no time: at six at once, CI starved three timing tests of the CPU they needed. Each file has its own database
 * (test/support/mongo.ts), its own ports and temp directories, so files share only the run's servers.
 * LEASECRON_TEST_WORKERS overrides it (1 runs the files one after another, as before).
 */
export function testWorkers(): number {
  const given = process.env.LEASECRON_TEST_WORKERS
  if (given === undefined || given === '') return Math.max(2, availableParallelism() * 2)
  const asked = Number(given)
  if (!Number.isInteger(asked) || asked < 1)
    throw new Error(
      `LEASECRON_TEST_WORKERS is ${JSON.stringify(given)}; expected a whole number of files run at once, 1 or more`,
    )
  return asked
}
