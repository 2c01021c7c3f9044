/**
 * The command line: `leasecron [run] | once <net> | status | config | sandbox | help`, each with
 * `--help`, and `--version`.
 *
 * Exit codes: 0 done (also `once` when another owner holds the lease), 1 failure, 78 invalid
 * configuration (nothing was started), 64 bad usage, 130 a second signal during shutdown.
 */
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { withLane } from '../forge/lane.js'
import { createForge } from '../forge/github-app.js'
import { LEASES } from '../leases.js'
import { MemoryStore } from '../lease/memory-store.js'
import { MongoStore } from '../lease/mongo-store.js'
import type { LeaseStore } from '../lease/store.js'
import { sandboxForgeConfig, startSandboxForge } from '../sandbox/sandbox-forge.js'
import {
  ConfigError,
  GLOBAL_VARIABLES,
  loadConfig,
  netEnvPrefix,
  redactedConfig,
  type WorkerConfig,
} from './config.js'
import { DEMO_SANDBOX_DATA, prepareDemo } from './demo.js'
import { createLogger, netLogger } from './logger.js'
import { connectMongo, describeMongoError } from './mongo-connection.js'
import { type WorkerFileConfig, loadWorkerFile } from './load-config-file.js'
import { ownerId } from './owner-id.js'
import { runSandbox, SANDBOX_HELP } from './sandbox-command.js'
import { createWorker } from './worker.js'

export type { WorkerFileConfig } from './load-config-file.js'

export const EXIT = { ok: 0, failure: 1, usage: 64, config: 78, interrupted: 130 } as const

const HELP: Record<string, string> = {
  main: `leasecron — periodic idempotent nets on cron schedules, one elected replica per net

Usage: leasecron [command] [--config FILE] [--help] [--version]

Commands:
  run            run the worker (default)
  once <net>     acquire the net's lease, run one pass, release, exit (serverless)
  status         list the leases in the configured store: name, owner, expires in
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
  once: `Usage: leasecron once <net> [--config FILE]

Acquires the net's lease, runs one pass, releases it and exits 0. When another owner holds the lease it
says who and exits 0 without running. Exits 1 when the pass or the store fails, 78 on invalid configuration.`,
  status: `Usage: leasecron status [--config FILE]

Lists each lease in the configured store (MONGO_URI): name, owner, and how long until it expires.`,
  config: `Usage: leasecron config [--config FILE]

Prints the effective configuration as JSON with secrets redacted, or every invalid variable (exit 78).
The GitHub App variables are not required (this command uses no forge); their problems are shown.`,
  sandbox: SANDBOX_HELP,
  help: `Usage: leasecron help [command]

Prints the overview, or the help of one command.`,
}

/** How many positional arguments each command takes after its name. */
const ARITY: Record<string, number> = { run: 0, once: 1, status: 0, config: 0, sandbox: 0, help: 1 }

interface Io {
  out: (line: string) => void
  err: (line: string) => void
  env: NodeJS.ProcessEnv
}

/** Runs the CLI with `argv` (without node and script); resolves to the exit code, or never for `run`. */
export async function main(argv: string[], io: Io = defaultIo()): Promise<number> {
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
  const config = loaded.config
  if (command === 'config') return printConfig(config, file, io)
  if (command === 'sandbox') return runSandbox(config, { port: values.port, envFile: values['env-out'] }, io)
  if (command === 'status') return status(config.mongo, io)
  if (command === 'once') return once(rest[0], config, io)
  return runWorker(file, config, io)
}

interface CommandLine {
  command: string
  rest: string[]
  values: { help?: boolean; version?: boolean; config?: string; port?: string; 'env-out'?: string }
}

/** The command, its arguments and options; an exit code (64) when they are not usable. */
function parseCommandLine(argv: string[], io: Io): CommandLine | number {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: OPTIONS })
  } catch (error) {
    return usage(io, (error as Error).message)
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
  if (command !== 'sandbox' && (parsed.values.port !== undefined || parsed.values['env-out'] !== undefined))
    return usage(io, `${command}: --port and --env-out belong to the sandbox command`)
  return { command, rest, values: parsed.values }
}

const OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
  config: { type: 'string' },
  port: { type: 'string' },
  'env-out': { type: 'string' },
} as const

function usage(io: Io, problem: string): number {
  io.err(`leasecron: ${problem}\n\n${HELP.main}`)
  return EXIT.usage
}

/** The package's version, from its package.json (two levels above this file, in src/ and in dist/src/). */
function packageVersion(): string {
  for (const relative of ['../../package.json', '../../../package.json']) {
    const path = fileURLToPath(new URL(relative, import.meta.url))
    if (!existsSync(path)) continue
    const pkg = JSON.parse(readFileSync(path, 'utf8')) as { name?: string; version?: string }
    if (pkg.name === 'leasecron' && pkg.version) return pkg.version
  }
  return 'unknown'
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

async function status(mongo: { uri: string; db: string } | undefined, io: Io): Promise<number> {
  if (!mongo) {
    io.out('no MONGO_URI: leases live inside each worker process (single-process mode); nothing to list')
    return EXIT.ok
  }
  const stop = new AbortController()
  const connection = connectMongo(mongo.uri, mongo.db, createLogger({ level: 'silent' }), stop.signal)
  try {
    // Connect first: a failed connect says why (refused, unknown host); a later call only "topology closed".
    await connection.client.connect()
    const records = await new MongoStore(connection.db).list({ signal: AbortSignal.timeout(10_000) })
    const now = Date.now()
    if (records.length === 0) io.out('no leases held')
    else io.out(`${'LEASE'.padEnd(28)} ${'OWNER'.padEnd(40)} ${'FENCE'.padEnd(12)} EXPIRES`)
    for (const r of records) {
      const left = r.expiresAt === undefined ? undefined : r.expiresAt.getTime() - now
      const state =
        left === undefined
          ? 'free (released)'
          : left > 0
            ? `expires in ${(left / 1000).toFixed(1)} s`
            : `expired ${(-left / 1000).toFixed(1)} s ago`
      io.out(
        `${r.name.padEnd(28)} ${(r.owner ?? '-').padEnd(40)} fence ${String(r.fence).padEnd(6)} ${state}`,
      )
    }
    return EXIT.ok
  } catch (error) {
    io.err(`leasecron status: the lease store did not answer: ${describeMongoError(error)}`)
    return EXIT.failure
  } finally {
    stop.abort()
    await connection.close().catch(() => undefined)
  }
}

async function once(netName: string | undefined, config: WorkerConfig, io: Io): Promise<number> {
  const net = config.nets.find((n) => n.net.name === netName)
  if (!net) {
    io.err(
      `leasecron once: expected one of ${config.nets.map((n) => n.net.name).join(', ')}; got ${netName ?? 'nothing'}`,
    )
    return EXIT.usage
  }
  const logger = createLogger({ level: config.logLevel })
  const owner = ownerId(config.workerId)
  const log = logger.child({ owner, net: net.net.name, lease: net.net.lease })
  const stop = new AbortController()
  const connection = config.mongo
    ? connectMongo(config.mongo.uri, config.mongo.db, log, stop.signal)
    : undefined
  const store: LeaseStore = connection ? new MongoStore(connection.db) : new MemoryStore()
  if (!connection)
    log.warn({}, 'single-process mode: no MONGO_URI, so this process elects itself (in-memory store)')
  const sandbox =
    config.forge.kind === 'github'
      ? undefined
      : await startSandboxForge({ generate: { ...DEMO_SANDBOX_DATA } })
  if (sandbox && config.forge.kind === 'sandbox')
    log.warn({ url: sandbox.url, reason: config.forge.reason }, 'using the local sandbox forge, not GitHub')
  const forge = createForge({
    config: config.forge.kind === 'github' ? config.forge.config : sandboxForgeConfig(sandbox!),
    logger: log.child({ component: 'forge' }),
  })
  try {
    const bound = () => ({ signal: AbortSignal.timeout(Math.max(1_000, net.pacing.ttlMs / 3)) })
    const grant = await store.acquire(net.net.lease, owner, new Date(), net.pacing.ttlMs, bound())
    if (!grant) {
      const holder = (await store.list(bound())).find((r) => r.name === net.net.lease)
      io.out(`lease "${net.net.lease}" is held by ${holder?.owner ?? 'another owner'}; nothing to do`)
      return EXIT.ok
    }
    try {
      if (connection) await connection.connected
      const resources = await net.net.setup({
        options: net.options,
        db: connection?.db,
        log: netLogger(log),
        publicUrl: config.publicUrl,
        now: () => new Date(),
      })
      const pass = net.net.term(resources, {
        options: net.options,
        log: netLogger(log),
      })
      const startedAt = new Date()
      await withLane(net.net.name, () =>
        pass({
          signal: stop.signal,
          log: netLogger(log),
          forge: forge.octokit,
          pass: 1,
          startedAt,
          now: () => new Date(),
        }),
      )
      log.info({}, 'one pass done')
      return EXIT.ok
    } finally {
      await store
        .release(grant, { signal: AbortSignal.timeout(5_000) })
        .catch((error: unknown) => log.warn({ err: error }, 'could not release'))
    }
  } catch (error) {
    log.error({ err: error }, 'once failed')
    return EXIT.failure
  } finally {
    stop.abort()
    await forge.close()
    await sandbox?.close()
    await connection?.close().catch(() => undefined)
  }
}

async function runWorker(file: WorkerFileConfig, config: WorkerConfig, io: Io): Promise<number> {
  // With neither a GitHub App nor Mongo, seed the sandbox and the sweeper's store so a fresh checkout
  // shows both nets doing real work.
  const demo =
    config.forge.kind === 'sandbox' && !config.mongo
      ? await prepareDemo(file.nets, new Date(), config.publicUrl)
      : undefined
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

function defaultIo(): Io {
  return {
    out: (l) => process.stdout.write(`${l}\n`),
    err: (l) => process.stderr.write(`${l}\n`),
    env: process.env,
  }
}
