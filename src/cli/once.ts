/**
 * `leasecron once <net> [--slot X] [--json]`: one term, one pass, one slot (worker/once.ts), in a
 * short-lived process whose store, ledger and forge worker/runtime.ts opens, as for `run`. Returns its exit code; never throws for an
 * expected outcome (a held lease, a taken slot). SIGTERM/SIGINT abort the pass.
 */
import { systemClock } from '../lease/clock.js'
import { waitFor } from '../lease/wait.js'
import { createLogger } from '../worker/logger.js'
import { describeMongoError, type MongoConnection } from '../worker/mongo-connection.js'
import { describeOnce, type OnceResult, parseSlotOption, runOnce } from '../worker/once.js'
import { ownerId } from '../lease/owner-id.js'
import { netPinger } from '../worker/ping.js'
import { actingNet } from '../worker/installation-nets.js'
import { openRuntime } from '../worker/runtime.js'
import type { CommandContext, OptionValues } from './command.js'
import { requestRun } from '../control/control-actions.js'
import type { NetControlStore } from '../control/net-control-store.js'
import { author } from './control-options.js'
import { EXIT } from './exit-codes.js'
import { findNet } from './find-net.js'

const ONCE_EXIT: Record<OnceResult['outcome'], number> = {
  ran: EXIT.ok,
  requested: EXIT.ok,
  'slot-taken': EXIT.ok,
  held: EXIT.ok,
  failed: EXIT.failure,
  'timed-out': EXIT.failure,
  aborted: EXIT.interrupted,
}

/** Runs one pass of the named net for its slot; exit 0 ran/slot-taken/held, 1 failed, 64 usage, 130 aborted. */
export async function onceCommand({ args, values, config, io }: CommandContext): Promise<number> {
  const net = findNet('once', args[0], config, io, values.config)
  if (!net) return EXIT.usage
  if (values.now && values.slot !== undefined) {
    io.err('leasecron once: --now and --slot: expected one of them (--now runs a manual slot), not both')
    return EXIT.usage
  }
  const slot = values.now
    ? { ok: true as const, slot: new Date() }
    : parseSlotOption(values.slot, net.schedule, new Date(), net.timeZone)
  if (!slot.ok) {
    io.err(`leasecron once: ${slot.expected}`)
    return EXIT.usage
  }
  const owner = ownerId(config.workerId)
  // With --json, or when stdout is a pipe or a file, stdout carries the answer alone (a trigger pipes it to
  // jq, a cron job mails it) and the log goes to stderr; on a terminal both share it, in order.
  const toStderr = Boolean(values.json) || io.outIsTerminal !== true
  const log = createLogger({ level: config.logLevel, toStderr }).child({
    owner,
    net: net.net.name,
    lease: net.net.lease,
  })
  const interrupt = new AbortController()
  const onSignal = (signal: NodeJS.Signals) => interrupt.abort(new Error(`${signal}: once stopping`))
  process.on('SIGTERM', onSignal)
  process.on('SIGINT', onSignal)
  const runtime = await openRuntime({ config, log })
  // The installation the pass acts as (recorded on its run), and that installation's forge.
  const acting = actingNet(net, runtime.installations)
  const forge = acting.installation === undefined ? runtime.forge : runtime.forgeFor(acting.installation)
  try {
    const result = await runOnce({
      net: acting,
      slot: slot.slot,
      owner,
      store: runtime.store,
      ledger: runtime.ledger,
      runHistory: config.runHistory,
      // The net's set-up, then its term: only for a claimed slot (once.ts).
      pass: async (term, stepDownAt) =>
        net.net.term(await runtime.setUpNet(net, log, term), {
          options: net.options,
          log,
          signal: term,
          stepDownAt,
        }),
      // Its client is built only if the pass runs and asks for it (slot-pass.ts).
      forge,
      pinger: netPinger(net, log),
      log,
      clock: systemClock,
      signal: interrupt.signal,
      ...(values.now ? { manual: true } : {}),
    })
      .then((r) => withConnectCause(r, runtime.mongo))
      .then((r) => (values.now ? askHolder(r, runtime.controls, values) : r))
    io.out(values.json ? JSON.stringify(result) : describeOnce(result))
    return ONCE_EXIT[result.outcome]
  } finally {
    process.off('SIGTERM', onSignal)
    process.off('SIGINT', onSignal)
    await runtime.close()
  }
}

/**
 * `once --now` that found the lease held: the holder runs the manual slot instead, asked through a run
 * request in the shared store (its poll picks it up); the answer says so (`requested`).
 */
async function askHolder(
  result: OnceResult,
  controls: NetControlStore,
  values: OptionValues,
): Promise<OnceResult> {
  const manual = { ...result, manual: true }
  if (result.outcome !== 'held') return manual
  try {
    const input = { ...author(values), reason: values.reason ?? 'leasecron once --now' }
    const { request } = await requestRun(controls, result.net, input, new Date(), {
      signal: AbortSignal.timeout(10_000),
    })
    return { ...manual, outcome: 'requested', slot: request.at.toISOString() }
  } catch (error) {
    return {
      ...manual,
      outcome: 'failed',
      error: `could not ask the holder to run: ${describeMongoError(error)}`,
    }
  }
}

/** How long a failed `once` waits for the connect attempt's verdict (its own bound is 5 s). */
const CONNECT_VERDICT_MS = 6_000

/**
 * A failed `once` whose Mongo never connected fails with "Topology is closed" or an unanswered call: the
 * real cause (connection refused at host:port, host not found, authentication) is the connect
 * attempt's, awaited (bounded) when it has not ended yet.
 */
async function withConnectCause(
  result: OnceResult,
  connection: MongoConnection | undefined,
): Promise<OnceResult> {
  if (result.outcome !== 'failed') return result
  const cause = await connectCause(connection)
  return cause === undefined ? result : { ...result, error: cause }
}

/**
 * Why Mongo (MONGO_URI) never connected, when it did not: the connect attempt's own cause, awaited up to
 * CONNECT_VERDICT_MS; undefined when it connected, or without Mongo. `once` and `backfill` say it in place
 * of the failed call's "Topology is closed".
 */
export async function connectCause(connection: MongoConnection | undefined): Promise<string | undefined> {
  if (!connection) return undefined
  const done = new AbortController()
  const failure =
    connection.connectFailure() ??
    (await Promise.race([
      connection.firstAttempt,
      waitFor(CONNECT_VERDICT_MS, done.signal).then(() => undefined),
    ]).finally(() => done.abort()))
  if (failure === undefined) return undefined
  return `MongoDB (MONGO_URI) did not answer: ${describeMongoError(failure)}`
}
