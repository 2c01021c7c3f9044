/**
 * `leasecron run` (the default): the long-running worker (worker/worker.ts) in this process, stopped
 * cleanly by SIGTERM, SIGINT or SIGHUP, and, when npm started it (`npx leasecron run &`), by its parent's
 * exit (until-stopped.ts: npm's shell does not pass a SIGTERM on); a second signal exits at once (130).
 * With neither a GitHub App nor Mongo it first seeds the demo (demo.ts).
 */
import type { Worker } from '../worker/worker.js'
import type { CommandContext } from './command.js'
import { EXIT } from './exit-codes.js'
import { exitWhenWritten } from './exit-when-written.js'
import { localConfigHint } from './local-config-hint.js'
import { startedByNpm, untilStopped } from './until-stopped.js'
import { HOLD_FLAG, youngGenerationOutcome } from './young-generation.js'

/** Starts the worker; resolves to 1 when it cannot start, else never (the signal handlers exit). */
export async function runCommand({ file, config, values, io }: CommandContext): Promise<number> {
  // With neither a GitHub App nor Mongo, seed the sandbox and the sweeper's store so a fresh checkout
  // shows both nets doing real work.
  const demo =
    config.forge.kind === 'sandbox' && !config.mongo
      ? await (await import('./demo.js')).prepareDemo(file.nets, new Date(), config.publicUrl)
      : undefined
  const { createWorker } = await import('../worker/worker.js')
  const worker = createWorker({
    nets: demo?.nets ?? file.nets,
    ...(file.leases ? { leases: file.leases } : {}),
    ...(demo ? { sandbox: demo.sandbox } : {}),
    env: io.env,
  })
  logYoungGeneration(worker)
  if (demo) worker.logger.info({ gatingRuns: demo.seeded }, 'demo: sandbox forge and gating runs seeded')
  // A newcomer's `leasecron run` beside the worker.config.ts they wrote runs the built-in nets: say so.
  const hint = localConfigHint(values.config)
  if (hint) worker.logger.warn({ event: 'config_not_loaded' }, `${hint}; running the built-in nets`)
  // Watching from before the start, so that a signal while it starts stops the worker once started.
  void untilStopped({ followParent: startedByNpm(io.env) }).then((reason) => stopAndExit(worker, reason))
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

/** Says at debug level whether the entry (main.ts) held the young generation, and if not, for which flag. */
function logYoungGeneration(worker: Worker): void {
  const youngGeneration = youngGenerationOutcome()
  if (youngGeneration === undefined) return
  worker.logger.debug(
    { youngGeneration },
    youngGeneration.held
      ? `young generation held at 1 MiB semi-spaces (${HOLD_FLAG})`
      : `young generation left to ${youngGeneration.operatorFlag}, the flag this process was started with`,
  )
}

/** Stops the worker (drain, release, flush) and exits 0, or 1 if the stop failed; a second signal exits 130. */
function stopAndExit(worker: Worker, reason: string): void {
  worker.logger.info({ reason }, 'stopping')
  const atOnce = (signal: NodeJS.Signals) => {
    worker.logger.warn({ signal }, 'second signal: exiting at once')
    process.exit(EXIT.interrupted)
  }
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, atOnce)
  worker.stop().then(
    () => exitWhenWritten(EXIT.ok),
    (error: unknown) => {
      worker.logger.error({ err: error }, 'stop failed')
      return exitWhenWritten(EXIT.failure)
    },
  )
}
