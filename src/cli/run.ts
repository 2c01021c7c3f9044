/**
 * `leasecron run` (the default): the long-running worker (worker/worker.ts) in this process, stopped
 * cleanly by SIGTERM/SIGINT; a second signal exits at once (130). With neither a GitHub App nor Mongo it
 * first seeds the demo (demo.ts).
 */
import type { CommandContext } from './command.js'
import { EXIT } from './exit-codes.js'

/** Starts the worker; resolves to 1 when it cannot start, else never (the signal handlers exit). */
export async function runCommand({ file, config, io }: CommandContext): Promise<number> {
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
