/**
 * Which backend the test FerretDB runs on: `LEASECRON_TEST_FERRETDB_BACKEND` (`postgresql` or `sqlite`)
 * when set, and then no other; else PostgreSQL where its binaries are found
 * (test/support/postgres-binaries.ts), else SQLite, saying why. PostgreSQL is preferred: FerretDB pushes
 * filters, sorts and limits down to it (SQLite's handler scans every document of a collection), and its
 * SQLite handler dies of SIGBUS in SQLite's WAL index in long runs.
 */
import { type FerretDbBackend, type FerretDbOptions, startFerretDb } from './ferretdb-server.js'
import { findPostgresBinaries, POSTGRES_BIN_VARIABLE } from './postgres-binaries.js'

export const BACKEND_VARIABLE = 'LEASECRON_TEST_FERRETDB_BACKEND'
const BACKENDS: readonly FerretDbBackend[] = ['postgresql', 'sqlite']

/** The backend asked for, if any; throws naming the variable and the accepted values on another value. */
export function requestedBackend(env: NodeJS.ProcessEnv = process.env): FerretDbBackend | undefined {
  const value = env[BACKEND_VARIABLE]
  if (value === undefined || value === '') return undefined
  if (!BACKENDS.includes(value as FerretDbBackend))
    throw new Error(`${BACKEND_VARIABLE} is ${JSON.stringify(value)}; expected one of ${BACKENDS.join(', ')}`)
  return value as FerretDbBackend
}

/**
 * Starts the shared FerretDB on the requested backend (failing when that cannot be had), or on PostgreSQL
 * falling back to SQLite with the reason logged.
 */
export async function startFerretDbOnBackend(options: FerretDbOptions = {}) {
  const log = options.log ?? ((line: string) => console.log(line))
  const requested = requestedBackend()
  if (requested === 'sqlite') return startFerretDb({ ...options, backend: 'sqlite' })
  if (requested === undefined && !(await findPostgresBinaries())) {
    log(
      'mongo: no PostgreSQL binaries (initdb, postgres) on PATH or in /usr/lib/postgresql/*/bin ' +
        `(or ${POSTGRES_BIN_VARIABLE}); FerretDB runs on SQLite`,
    )
    return startFerretDb({ ...options, backend: 'sqlite' })
  }
  try {
    return await startFerretDb({ ...options, backend: 'postgresql' })
  } catch (error) {
    if (requested === 'postgresql') throw error
    log(`mongo: FerretDB on PostgreSQL could not start (${(error as Error).message}); it runs on SQLite`)
    return startFerretDb({ ...options, backend: 'sqlite' })
  }
}
