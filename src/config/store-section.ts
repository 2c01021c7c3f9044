/**
 * The store section: MONGO_URI and MONGO_DB. The URI is parsed, never connected to: reading the
 * configuration must not load the driver (a library user's process brings its own).
 */
import { ConnectionString } from 'mongodb-connection-string-url'
import * as z from 'zod'
import type { ConfigIssue } from './config-error.js'
import type { EnvReader } from './env-reader.js'
import { rememberSecret, scrubSecrets } from './scrub.js'
import type { WorkerConfig } from './worker-config.js'

/** MONGO_URI and MONGO_DB; MONGO_URL alone (the tests' name) is refused with a hint. */
export function readStore(r: EnvReader): WorkerConfig['mongo'] {
  const uri = r.value('MONGO_URI')
  const db = r.parse(
    'MONGO_DB',
    z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9_-]{1,63}$/),
    'leasecron',
    'a database name of 1–63 characters [A-Za-z0-9_-]',
  )
  if (uri === undefined) {
    if (r.value('MONGO_URL') !== undefined)
      r.problem(
        'MONGO_URL',
        'MONGO_URI: the worker reads MONGO_URI (MONGO_URL is only the test suite’s variable); rename it, or unset MONGO_URL to run on the in-memory store',
      )
    // A database named without a server is a deployment that meant Mongo: falling back to the in-memory
    // store would run every replica as its own holder.
    else if (r.value('MONGO_DB') !== undefined)
      r.problem(
        'MONGO_URI',
        `a MongoDB connection string: MONGO_DB is set, so a database was meant, but MONGO_URI is ${r.env.MONGO_URI === undefined ? 'unset' : 'blank'} (without it the worker would run alone on the in-memory store); set MONGO_URI, or unset MONGO_DB to run in memory`,
      )
    return undefined
  }
  try {
    // Parsing only, with the parser the driver itself starts from, so that reading the configuration does
    // not load the driver (a library user's process brings its own). Option values are the driver's to
    // judge: the CLI asks it (mongoUriRefusal) before a command uses Mongo.
    rememberUriSecrets(new ConnectionString(uri.trim()))
    return { uri: uri.trim(), db }
  } catch (error) {
    const issue = mongoUriIssue(error)
    r.problem(issue.variable, issue.expected)
    return undefined
  }
}

/**
 * The database MONGO_URI's path names, when it names one other than `db`: the driver reads that path only
 * as the default authSource, and the worker's collections go to MONGO_DB, so a URI ending `/mydb` with
 * MONGO_DB unset writes to `leasecron` — said beside the configuration rather than found in the wrong
 * database later. Undefined when the path is empty, matches, or the URI does not parse.
 */
export function otherUriDatabase(uri: string, db: string): string | undefined {
  try {
    const path = decodeURIComponent(new ConnectionString(uri).pathname.replace(/^\//, ''))
    return path !== '' && path !== db ? path : undefined
  } catch {
    return undefined
  }
}

/** The URI's password and secret option values, so that one seen alone (in a driver's error) is scrubbed. */
function rememberUriSecrets(uri: ConnectionString): void {
  rememberSecret(uri.password)
  for (const [name, value] of uri.searchParams)
    if (/password|secret|token|authMechanismProperties/i.test(name)) rememberSecret(value)
}

/** MONGO_URI's problem, from the parser's or the driver's refusal (secrets scrubbed, never the URI). */
export function mongoUriIssue(error: unknown): ConfigIssue {
  const reason = scrubSecrets(error instanceof Error ? error.message : String(error)).slice(0, 160)
  return {
    variable: 'MONGO_URI',
    expected: `a mongodb:// or mongodb+srv:// connection string the driver accepts; the driver said: ${reason}`,
  }
}
