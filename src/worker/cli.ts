/**
 * The command line: `leasecron [run] | once <net> | status | config`, each with `--help`.
 *
 * Exit codes: 0 done (also `once` when another owner holds the lease), 1 failure, 78 invalid
 * configuration (nothing was started), 64 bad usage, 130 a second signal during shutdown.
 */
import { existsSync } from 'node:fs'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { withLane } from '../forge/lane.js'
import { createForge } from '../forge/github-app.js'
import { LEASES, type LeaseDefinition } from '../leases.js'
import { MemoryStore } from '../lease/memory-store.js'
import { MongoStore } from '../lease/mongo-store.js'
import type { LeaseStore } from '../lease/store.js'
import type { NetDefinition, NetLogger } from '../nets/net.js'
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
import { createLogger } from './logger.js'
import { connectMongo } from './mongo-connection.js'
import { ownerId } from './owner-id.js'
import { storeStatusSnapshot } from './status/cli-status.js'
import { createWorker } from './worker.js'

/** What worker.config.ts exports (default export). */
export interface WorkerFileConfig {
  nets: readonly NetDefinition[]
  leases?: readonly LeaseDefinition[]
}

export const EXIT = { ok: 0, failure: 1, usage: 64, config: 78, interrupted: 130 } as const

const HELP: Record<string, string> = {
  main: `leasecron — periodic idempotent nets on cron schedules, one elected replica per net

Usage: leasecron [command] [--config FILE] [--help]

Commands:
  run            run the worker (default)
  once <net>     acquire the net's lease, run one pass, release, exit (serverless)
  status         list the leases in the configured store: name, owner, expires in
                 (--json: the status snapshot a worker serves at GET /status)
  config         print the effective configuration (secrets redacted) or its errors

Options:
  --config FILE  a module whose default export is { nets, leases? } (default: worker.config.js)
  --help         help for a command

Configuration comes from the environment; see the README's configuration table.`,
  run: `Usage: leasecron run [--config FILE]

Runs the worker: campaigns for each enabled net's lease and runs its passes while elected.
SIGTERM/SIGINT stop it cleanly (leases released, forge meter flushed); a second signal exits at once (130).`,
  once: `Usage: leasecron once <net> [--config FILE]

Acquires the net's lease, runs one pass, releases it and exits 0. When another owner holds the lease it
says who and exits 0 without running. Exits 1 when the pass or the store fails, 78 on invalid configuration.`,
  status: `Usage: leasecron status [--json] [--config FILE]

Lists each lease in the configured store (MONGO_URI): name, owner, and how long until it expires.
--json prints the status snapshot (the object a worker answers at GET /status; see the README), read
from the store: replica, skipped ticks and rate limits are null because no worker answered.`,
  config: `Usage: leasecron config [--config FILE]

Prints the effective configuration as JSON with secrets redacted, or every invalid variable (exit 78).`,
}

interface Io {
  out: (line: string) => void
  err: (line: string) => void
  env: NodeJS.ProcessEnv
}

/** Loads the nets module: `--config FILE`, else worker.config.(js|ts) at the package root. */
export async function loadWorkerFile(path: string | undefined): Promise<WorkerFileConfig> {
  const candidates = path
    ? [pathToFileURL(path).href]
    : ['../../worker.config.js', '../../worker.config.ts', '../worker.config.js'].map(
        (p) => new URL(p, import.meta.url).href,
      )
  const found = candidates.find((c) => existsSync(fileURLToPath(c)))
  if (!found)
    throw new Error(
      `no worker configuration module found (looked for ${candidates.map((c) => fileURLToPath(c)).join(', ')})`,
    )
  const module = (await import(found)) as { default?: WorkerFileConfig }
  if (!module.default || !Array.isArray(module.default.nets)) {
    throw new Error(`${fileURLToPath(found)}: its default export must be { nets: NetDefinition[], leases? }`)
  }
  return module.default
}

/** Runs the CLI with `argv` (without node and script); resolves to the exit code, or never for `run`. */
export async function main(argv: string[], io: Io = defaultIo()): Promise<number> {
  let parsed: ReturnType<typeof parseArgs>
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        help: { type: 'boolean', short: 'h' },
        config: { type: 'string' },
        json: { type: 'boolean' },
      },
    })
  } catch (error) {
    io.err(`leasecron: ${(error as Error).message}\n\n${HELP.main}`)
    return EXIT.usage
  }
  const [command = 'run', ...rest] = parsed.positionals
  if (!(command in HELP) || command === 'main') {
    io.err(`leasecron: unknown command "${command}"\n\n${HELP.main}`)
    return EXIT.usage
  }
  if (parsed.values.help) {
    io.out(HELP[argv.length === 1 ? 'main' : command] ?? HELP.main!)
    return EXIT.ok
  }
  let file: WorkerFileConfig
  try {
    file = await loadWorkerFile(parsed.values.config as string | undefined)
  } catch (error) {
    io.err(`leasecron: ${(error as Error).message}`)
    return EXIT.config
  }
  const leases = file.leases ?? LEASES
  const loaded = loadConfig(io.env, file.nets, leases)
  if (!loaded.ok) {
    io.err(new ConfigError(loaded.issues).message)
    return EXIT.config
  }
  const config = loaded.config
  switch (command) {
    case 'config':
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
    case 'status':
      if (parsed.values.json) return statusJson(config, io)
      return status(config.mongo, io)
    case 'once':
      return once(rest[0], config, io)
    default:
      return runWorker(file, config, io)
  }
}

async function status(mongo: { uri: string; db: string } | undefined, io: Io): Promise<number> {
  if (!mongo) {
    io.out('no MONGO_URI: leases live inside each worker process (single-process mode); nothing to list')
    return EXIT.ok
  }
  const stop = new AbortController()
  const connection = connectMongo(mongo.uri, mongo.db, createLogger({ level: 'silent' }), stop.signal)
  try {
    const records = await new MongoStore(connection.db).list({ signal: AbortSignal.timeout(10_000) })
    const now = Date.now()
    if (records.length === 0) io.out('no leases held')
    for (const r of records) {
      const left = r.expiresAt.getTime() - now
      io.out(
        `${r.name.padEnd(28)} ${r.owner.padEnd(40)} ${left > 0 ? `expires in ${(left / 1000).toFixed(1)} s` : `expired ${(-left / 1000).toFixed(1)} s ago`}`,
      )
    }
    return EXIT.ok
  } catch (error) {
    io.err(`leasecron status: the lease store did not answer: ${(error as Error).message}`)
    return EXIT.failure
  } finally {
    stop.abort()
    await connection.close().catch(() => undefined)
  }
}

async function statusJson(config: WorkerConfig, io: Io): Promise<number> {
  const snapshot = await storeStatusSnapshot(config, new Date())
  io.out(JSON.stringify(snapshot, null, 2))
  return snapshot.store.answering ? EXIT.ok : EXIT.failure
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
  const sandbox =
    config.forge.kind === 'sandbox'
      ? await startSandboxForge({ generate: { ...DEMO_SANDBOX_DATA } })
      : undefined
  const forge = createForge({
    config: config.forge.kind === 'github' ? config.forge.config : sandboxForgeConfig(sandbox!),
    logger: log.child({ component: 'forge' }),
  })
  try {
    const bound = () => ({ signal: AbortSignal.timeout(Math.max(1_000, net.pacing.ttlMs / 3)) })
    const elected = await store.acquire(net.net.lease, owner, new Date(), net.pacing.ttlMs, bound())
    if (!elected) {
      const holder = (await store.list(bound())).find((r) => r.name === net.net.lease)
      io.out(`lease "${net.net.lease}" is held by ${holder?.owner ?? 'another owner'}; nothing to do`)
      return EXIT.ok
    }
    try {
      if (connection) await connection.connected
      const resources = await net.net.setup({
        options: net.options as never,
        db: connection?.db,
        log: log as unknown as NetLogger,
        publicUrl: config.publicUrl,
        now: () => new Date(),
      })
      const pass = net.net.term(resources, {
        options: net.options as never,
        log: log as unknown as NetLogger,
      })
      const startedAt = new Date()
      await withLane(net.net.name, () =>
        pass({
          signal: stop.signal,
          log: log as unknown as NetLogger,
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
        .release(net.net.lease, owner, { signal: AbortSignal.timeout(5_000) })
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
