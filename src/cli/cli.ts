/**
 * The command line: `leasecron [run] | once <net> | backfill <net> | status | history <net> | config |
 * sandbox | help`,
 * each with `--help`, and `--version`. The commands are the entries of one table (commands.ts).
 *
 * Exit codes: 0 done (also `once` when its slot already ran or another owner holds the lease), 1 failure,
 * 78 invalid configuration (nothing was started), 64 bad usage, 75 `backfill` found the lease held (nothing
 * ran), 130 a second signal during shutdown (or a `once` or `backfill` pass aborted by a signal).
 */
import { loadWorkerFile, type WorkerFileConfig } from '../config/load-config-file.js'
import type { WorkerConfig } from '../config/worker-config.js'
import { packageVersion } from '../status/package-version.js'
import { COMMANDS } from './commands.js'
import { EXIT } from './exit-codes.js'
import { printHelp } from './help.js'
import { defaultIo, type Io, scrubbedIo } from './io.js'
import { parseCommandLine } from './parse-command-line.js'

// What the process entry (main.ts) needs besides `main`, so that it loads the command line in one import.
export { scrubSecrets } from '../config/scrub.js'
export { EXIT }
export { exitWhenWritten } from './exit-when-written.js'

/**
 * Runs the CLI with `argv` (without node and script); resolves to the exit code, or never for `run`.
 * Every line it prints, answer or error, goes through config/scrub.ts first.
 */
export async function main(argv: string[], given: Io = defaultIo()): Promise<number> {
  const io = scrubbedIo(given)
  const parsed = parseCommandLine(argv, COMMANDS, io)
  if (typeof parsed === 'number') return parsed
  const { command, args, values } = parsed
  if (values.version) {
    io.out(`leasecron ${packageVersion()}`)
    return EXIT.ok
  }
  if (values.help && command.name !== 'help')
    return printHelp(io, argv.length === 1 ? 'main' : command.name, values.config, COMMANDS)
  if (command.needs === 'nothing') return command.handler({ args, values, io })
  let file: WorkerFileConfig
  try {
    file = await loadWorkerFile(values.config)
  } catch (error) {
    io.err(`leasecron: ${(error as Error).message}`)
    return EXIT.config
  }
  const config = await readConfig(io, file, command.needs === 'forge')
  if (config === undefined) return EXIT.config
  return command.handler({ args, values, file, config, io })
}

/**
 * The worker's configuration from the environment and the file, or undefined after printing why it is
 * not valid (a configuration error). Loaded on demand: `--version`, `--help` and the commands that need
 * nothing do not compile or evaluate the readers (zod, the connection-string parser, the schedule checks).
 * Commands that use no forge (`status`, `config`, `sandbox`) must work without the App variables.
 */
async function readConfig(
  io: Io,
  file: WorkerFileConfig,
  needsForge: boolean,
): Promise<WorkerConfig | undefined> {
  const { loadConfig, ConfigError, LEASES } = await import('./config-readers.js')
  const loaded = loadConfig(io.env, file.nets, file.leases ?? LEASES, { needsForge })
  if (!loaded.ok) {
    io.err(new ConfigError(loaded.issues).message)
    return undefined
  }
  return (await driverAcceptsMongoUri(loaded.config, io)) ? loaded.config : undefined
}

/**
 * Whether the driver takes MONGO_URI's options (reading the configuration checked only its syntax, so as
 * not to load the driver); says why not, as a configuration error, when it does not.
 */
async function driverAcceptsMongoUri(config: WorkerConfig, io: Io): Promise<boolean> {
  if (!config.mongo) return true
  const { mongoUriRefusal } = await import('../worker/mongo-connection.js')
  const refusal = mongoUriRefusal(config.mongo.uri)
  if (refusal === undefined) return true
  const { ConfigError, mongoUriIssue } = await import('./config-readers.js')
  io.err(new ConfigError([mongoUriIssue(refusal)]).message)
  return false
}
