/**
 * The command line: `leasecron [run] | once <net> | status | history <net> | config | sandbox | help`,
 * each with `--help`, and `--version`.
 *
 * Exit codes: 0 done (also `once` when its slot already ran or another owner holds the lease), 1 failure,
 * 78 invalid configuration (nothing was started), 64 bad usage, 130 a second signal during shutdown (or
 * a `once` pass aborted by a signal).
 */
import { parseArgs } from 'node:util'
import { LEASES } from '../leases.js'
import {
  ConfigError,
  GLOBAL_VARIABLES,
  loadConfig,
  mongoUriIssue,
  netEnvPrefix,
  redactedConfig,
  type WorkerConfig,
} from './config.js'
import { loadWorkerFile, type WorkerFileConfig } from './load-config-file.js'
import { DEMO_SANDBOX_DATA } from './local-sandbox.js'
import { scrubSecrets } from './scrub.js'
import { packageVersion } from './status/package-version.js'

export type { WorkerFileConfig } from './load-config-file.js'

import { EXIT } from './exit-codes.js'

export { EXIT }

const HELP: Record<string, string> = {
  main: `leasecron — periodic idempotent nets on cron schedules, one elected replica per net

Usage: leasecron [command] [--config FILE] [--help] [--version]

Commands:
  run            run the worker (default)
  once <net>     one term, one pass for one schedule slot, release, exit (serverless, cron jobs)
  status         list the leases: holder, fence, expires in, and each net's last run
                 (--json: the status snapshot a worker serves at GET /status)
  history <net>  list a net's last runs from the run ledger
  config         print the effective configuration (secrets redacted) or its errors
  sandbox        start one seeded sandbox forge for several workers to share (a demo)
  help [command] this text, or a command's

Options:
  --config FILE  a .ts/.mts/.js/.mjs module whose default export is { nets, leases? }
                 (default: the built-in nets, the package's own worker.config.js)
  --help         help for a command
  --version      print the version

Configuration comes from the environment; see the README's configuration table.`,
  run: `Usage: leasecron run [--config FILE]

Runs the worker: campaigns for each enabled net's lease and runs its passes while elected.
SIGTERM/SIGINT stop it cleanly (leases released, forge meter flushed); a second signal exits at once (130).`,
  once: `Usage: leasecron once <net> [--slot <ISO instant>|auto] [--json] [--config FILE]

Campaigns once for the net's lease; elected, it claims one schedule slot in the run ledger, runs one pass
for it, records the outcome and releases the lease. Many triggers of one slot run it once.
  --slot   an ISO 8601 instant with a zone (e.g. 2026-09-30T15:05:00Z), normalized to the schedule's most
           recent fire time at or before it, so a trigger's own timestamp works; auto (default): now
  --json   print {"net","slot","outcome","owner","fence","holder"?} instead of one line
Outcomes: ran, slot-taken (it already ran or runs elsewhere), held (another owner holds the lease; named),
failed. Exit 0 for ran, slot-taken and held; 1 for failed; 64 for a --slot that is not a real instant
or lies more than 60 s after now;
130 when SIGTERM/SIGINT aborted the pass (recorded as aborted, lease released).`,
  status: `Usage: leasecron status [--json] [--config FILE]

Lists each lease in the configured store (MONGO_URI): holder, fence, how long until it expires, and the
last run of its net (slot, owner, outcome, duration).
--json prints the status snapshot (the object a worker answers at GET /status; see the README), read
from the store: replica, skipped ticks and rate limits are null because no worker answered.`,
  history: `Usage: leasecron history <net> [--limit N] [--json] [--config FILE]

Lists the net's last N runs (default 20, at most 1000) from the run ledger, newest first: slot, owner,
fence, started, duration, outcome, forge requests spent. --json prints one JSON array.`,
  config: `Usage: leasecron config [--config FILE]

Prints the effective configuration as JSON with secrets redacted, or every invalid variable (exit 78).
The GitHub App variables are not required (this command uses no forge); their problems are shown.`,
  sandbox: `Usage: leasecron sandbox [--port N] [--env-out FILE]

Starts one sandbox forge on 127.0.0.1 (a local GitHub stand-in seeded with ${DEMO_SANDBOX_DATA.repos} repositories,
their pull requests and issues) and prints what workers need to share it:
  GITHUB_API_URL, GITHUB_APP_ID, GITHUB_INSTALLATION_ID and GITHUB_APP_PRIVATE_KEY_FILE (a key file it writes).
It also writes them to an env file (--env-out, else one beside the key); load it with
  set -a; . FILE; set +a
With MONGO_URI (and MONGO_DB) set it seeds the merge-gate sweeper's gating runs into that database too.
The env file is written last, once the sandbox listens and is seeded, so a script can wait for it.
Runs until SIGINT or SIGTERM, then removes the key file and the env file and exits 0.`,
  help: `Usage: leasecron help [command]

Prints the overview, or the help of one command.`,
}

/** How many positional arguments each command takes after its name. */
const ARITY: Record<string, number> = {
  run: 0,
  once: 1,
  status: 0,
  history: 1,
  config: 0,
  sandbox: 0,
  help: 1,
}

interface Io {
  out: (line: string) => void
  err: (line: string) => void
  env: NodeJS.ProcessEnv
}

/**
 * Runs the CLI with `argv` (without node and script); resolves to the exit code, or never for `run`.
 * Every line it prints, answer or error, goes through scrub.ts first.
 */
export async function main(argv: string[], given: Io = defaultIo()): Promise<number> {
  const io = scrubbedIo(given)
  const parsed = parseCommandLine(argv, io)
  if (typeof parsed === 'number') return parsed
  const { command, rest, values } = parsed
  if (values.version) {
    io.out(`leasecron ${packageVersion()}`)
    return EXIT.ok
  }
  if (command === 'help' || values.help) {
    const topic = command === 'help' ? (rest[0] ?? 'main') : argv.length === 1 ? 'main' : command
    if (!(topic in HELP)) return usage(io, `unknown command "${topic}"`)
    io.out(`${HELP[topic]}${topic === 'once' ? await netList(values.config) : ''}`)
    return EXIT.ok
  }
  let file: WorkerFileConfig
  try {
    file = await loadWorkerFile(values.config)
  } catch (error) {
    io.err(`leasecron: ${(error as Error).message}`)
    return EXIT.config
  }
  // `status`, `config` and `sandbox` use no forge: they must work without the App variables.
  const needsForge = command === 'run' || command === 'once'
  const loaded = loadConfig(io.env, file.nets, file.leases ?? LEASES, { needsForge })
  if (!loaded.ok) {
    io.err(new ConfigError(loaded.issues).message)
    return EXIT.config
  }
  if (!(await driverAcceptsMongoUri(loaded.config, io))) return EXIT.config
  return runCommand({ command, rest, values }, file, loaded.config, io)
}

/**
 * Whether the driver takes MONGO_URI's options (reading the configuration checked only its syntax, so as
 * not to load the driver); says why not, as a configuration error, when it does not.
 */
async function driverAcceptsMongoUri(config: WorkerConfig, io: Io): Promise<boolean> {
  if (!config.mongo) return true
  const { mongoUriRefusal } = await import('./mongo-connection.js')
  const refusal = mongoUriRefusal(config.mongo.uri)
  if (refusal === undefined) return true
  io.err(new ConfigError([mongoUriIssue(refusal)]).message)
  return false
}

/**
 * The command itself. Each loads its own modules when it runs (`import()`), so a process pays in start-up
 * time and memory only for what its command uses: `run` never loads the sandbox unless it starts one,
 * `once` never loads the status page (issue 13's footprint goals).
 */
async function runCommand(
  { command, rest, values }: CommandLine,
  file: WorkerFileConfig,
  config: WorkerConfig,
  io: Io,
): Promise<number> {
  if (command === 'config') return printConfig(config, file, io)
  if (command === 'sandbox') {
    const { runSandbox } = await import('./sandbox-command.js')
    return runSandbox(config, { port: values.port, envFile: values['env-out'] }, io)
  }
  if (command === 'run') return runWorker(file, config, io)
  if (command === 'status' && values.json) return statusJson(config, io)
  const ledger = await import('./ledger-commands.js')
  if (command === 'status') return ledger.statusCommand(config, io)
  if (command === 'history') return ledger.historyCommand(rest[0], values, config, io)
  return ledger.onceCommand(rest[0], values, config, io)
}

interface CommandLine {
  command: string
  rest: string[]
  values: {
    help?: boolean
    version?: boolean
    config?: string
    port?: string
    'env-out'?: string
    slot?: string
    json?: boolean
    limit?: string
  }
}

/** The command, its arguments and options; an exit code (64) when they are not usable. */
function parseCommandLine(argv: string[], io: Io): CommandLine | number {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: OPTIONS })
  } catch (error) {
    const command = argv.find((a) => !a.startsWith('-'))
    return usage(io, parseArgsProblem(error), command && command in HELP ? command : 'main')
  }
  const [command = 'run', ...rest] = parsed.positionals
  if (!(command in ARITY)) return usage(io, `unknown command "${command}"`)
  if (rest.length > (ARITY[command] ?? 0)) {
    return usage(
      io,
      `${command}: unexpected argument${rest.length > 1 ? 's' : ''} ${rest
        .slice(ARITY[command])
        .map((r) => JSON.stringify(r))
        .join(' ')}`,
    )
  }
  const misplaced = misplacedOption(command, parsed.values)
  if (misplaced) return usage(io, misplaced)
  return { command, rest, values: parsed.values }
}

/** Options that only some commands take (the rest are everyone's). */
const OPTION_COMMANDS: Record<string, readonly string[]> = {
  port: ['sandbox'],
  'env-out': ['sandbox'],
  slot: ['once'],
  limit: ['history'],
  json: ['once', 'history', 'status'],
}

/** Names an option given to a command that does not take it. */
function misplacedOption(command: string, values: Record<string, unknown>): string | undefined {
  for (const [option, commands] of Object.entries(OPTION_COMMANDS)) {
    if (values[option] !== undefined && !commands.includes(command))
      return `${command}: --${option} belongs to the ${commands.join(' and ')} command${commands.length > 1 ? 's' : ''}`
  }
  return undefined
}

const OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
  config: { type: 'string' },
  port: { type: 'string' },
  'env-out': { type: 'string' },
  slot: { type: 'string' },
  json: { type: 'boolean' },
  limit: { type: 'string' },
} as const

/** Says what was wrong (exit 64), then the help of the command it was meant for, else the overview. */
function usage(io: Io, problem: string, topic = 'main'): number {
  io.err(`leasecron: ${problem}\n\n${HELP[topic] ?? HELP.main}`)
  return EXIT.usage
}

/** parseArgs' refusal in our words: its own message for an unknown option runs on about `--` and quotes. */
function parseArgsProblem(error: unknown): string {
  const { code, message } = error as { code?: string; message: string }
  const option = /'(-[^' ]*)/.exec(message)?.[1]
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && option) return `unknown option ${option}`
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && option) return `${option} needs a value`
  return message
}

/** `once --help`'s list of the nets the configuration module declares (empty when it cannot load). */
async function netList(configPath: string | undefined): Promise<string> {
  try {
    const file = await loadWorkerFile(configPath)
    return `\n\nNets:\n${file.nets.map((n) => `  ${n.name.padEnd(22)} ${n.schedule.padEnd(14)} ${n.description}`).join('\n')}`
  } catch (error) {
    return `\n\n(the nets could not be listed: ${(error as Error).message})`
  }
}

function printConfig(config: WorkerConfig, file: WorkerFileConfig, io: Io): number {
  io.out(
    JSON.stringify(
      {
        ...redactedConfig(config),
        variables: GLOBAL_VARIABLES.map(([name]) => name),
        netPrefixes: file.nets.map((n) => netEnvPrefix(n.name)),
      },
      null,
      2,
    ),
  )
  return EXIT.ok
}

/** `status --json`: the same object `GET /status` serves, read from the shared store and ledger. */
async function statusJson(config: WorkerConfig, io: Io): Promise<number> {
  const { storeStatusSnapshot } = await import('./status/cli-status.js')
  const snapshot = await storeStatusSnapshot(config, new Date())
  io.out(JSON.stringify(snapshot, null, 2))
  return snapshot.store.answering ? EXIT.ok : EXIT.failure
}

async function runWorker(file: WorkerFileConfig, config: WorkerConfig, io: Io): Promise<number> {
  // With neither a GitHub App nor Mongo, seed the sandbox and the sweeper's store so a fresh checkout
  // shows both nets doing real work.
  const demo =
    config.forge.kind === 'sandbox' && !config.mongo
      ? await (await import('./demo.js')).prepareDemo(file.nets, new Date(), config.publicUrl)
      : undefined
  const { createWorker } = await import('./worker.js')
  const worker = createWorker({
    nets: demo?.nets ?? file.nets,
    ...(file.leases ? { leases: file.leases } : {}),
    ...(demo ? { sandbox: demo.sandbox } : {}),
    env: io.env,
  })
  if (demo) worker.logger.info({ gatingRuns: demo.seeded }, 'demo: sandbox forge and gating runs seeded')
  let signals = 0
  const onSignal = (signal: NodeJS.Signals) => {
    signals++
    if (signals > 1) {
      worker.logger.warn({ signal }, 'second signal: exiting at once')
      process.exit(EXIT.interrupted)
    }
    worker.logger.info({ signal }, 'stopping')
    void worker.stop().then(
      () => process.exit(EXIT.ok),
      (error: unknown) => {
        worker.logger.error({ err: error }, 'stop failed')
        process.exit(EXIT.failure)
      },
    )
  }
  process.on('SIGTERM', onSignal)
  process.on('SIGINT', onSignal)
  process.on('unhandledRejection', (reason) =>
    worker.logger.error({ err: reason }, 'unhandled rejection (a bug: please report it); the worker goes on'),
  )
  try {
    await worker.start()
  } catch (error) {
    worker.logger.error({ err: error }, 'start failed')
    await worker.stop().catch(() => undefined)
    return EXIT.failure
  }
  return new Promise<number>(() => {})
}

/** `io` with every line scrubbed of secrets: the CLI's one way out. */
function scrubbedIo(io: Io): Io {
  return {
    out: (line) => io.out(scrubSecrets(line)),
    err: (line) => io.err(scrubSecrets(line)),
    env: io.env,
  }
}

function defaultIo(): Io {
  return {
    out: (l) => process.stdout.write(`${l}\n`),
    err: (l) => process.stderr.write(`${l}\n`),
    env: process.env,
  }
}
