/**
 * `leasecron once <net> [--slot X] [--json]`: one term, one pass, one slot (worker/one-slot-on-runtime.ts),
 * in a short-lived process whose store, ledger and forge worker/runtime.ts opens, as for `run`. Returns its exit code; never throws for an
 * expected outcome (a held lease, a taken slot). SIGTERM/SIGINT abort the pass.
 */
import { createLogger } from '../observe/logger.js'
import { describeMongoError } from '../worker/mongo-connection.js'
import { describeOnce, type OnceResult, parseSlotOption } from '../term/one-slot.js'
import { runOnceOnRuntime } from '../worker/one-slot-on-runtime.js'
import { ownerId } from '../lease/owner-id.js'
import { openRuntime } from '../worker/runtime.js'
import type { CommandContext, OptionValues } from './command.js'
import { requestRun } from '../control/control-actions.js'
import type { NetControlStore } from '../control/net-control-store.js'
import { author } from './control-options.js'
import { EXIT } from './exit-codes.js'
import { clockRefusal } from './clock-refusal.js'
import { findNet } from './find-net.js'
import { noticingControls } from '../worker/noticing-controls.js'
import { operatorNotice } from './operator-notice.js'
import { undiscoveredInstallation } from './undiscovered-installation.js'
import { scheduleOf } from '../schedule/schedule.js'
import { netEnvPrefix } from '../config/variables.js'

const ONCE_EXIT: Record<OnceResult['outcome'], number> = {
  ran: EXIT.ok,
  requested: EXIT.ok,
  'slot-taken': EXIT.ok,
  held: EXIT.ok,
  failed: EXIT.failure,
  'timed-out': EXIT.failure,
  aborted: EXIT.interrupted,
  missed: EXIT.ok,
  paused: EXIT.ok,
  'outside-window': EXIT.ok,
  finished: EXIT.ok,
}

/**
 * Runs one pass of the named net for its slot; exit 0 ran/slot-taken/held, 1 failed, 64 usage (an unknown
 * net, or under GITHUB_INSTALLATION_IDS=all an installation the App does not have), 130 aborted.
 */
export async function onceCommand({ args, values, config, io }: CommandContext): Promise<number> {
  const net = findNet('once', args[0], config, io, values.config)
  if (!net) return EXIT.usage
  // Asked by name, it runs; but the operator who disabled it for the workers should hear that it did.
  if (!net.enabled)
    io.err(
      `leasecron once: ${net.definition.name} is disabled (${netEnvPrefix(net.definition.name)}ENABLED=false): the workers do not run it; running this one slot as asked`,
    )
  if (values.now && values.slot !== undefined) {
    io.err('leasecron once: --now and --slot: expected one of them (--now runs a manual slot), not both')
    return EXIT.usage
  }
  const slot = values.now
    ? { ok: true as const, slot: new Date() }
    : parseSlotOption(values.slot, scheduleOf(net), new Date(), net.timeZone)
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
    net: net.definition.name,
    lease: net.definition.lease,
  })
  const interrupt = new AbortController()
  const onSignal = (signal: NodeJS.Signals) => interrupt.abort(new Error(`${signal}: once stopping`))
  process.on('SIGTERM', onSignal)
  process.on('SIGINT', onSignal)
  const runtime = await openRuntime({ config, log })
  try {
    const refused = undiscoveredInstallation('once', net, config, runtime.installationIds())
    if (refused !== undefined) {
      io.err(refused)
      return EXIT.usage
    }
    const result = await runOnceOnRuntime({
      runtime,
      config,
      net,
      slot: slot.slot,
      owner,
      log,
      signal: interrupt.signal,
      ...(values.now ? { manual: true } : { waitForJitter: true }),
    })
      .then((r) =>
        values.now
          ? askHolder(
              r,
              noticingControls(
                runtime.controls,
                operatorNotice(runtime.store, net, (line) => io.err(line)),
              ),
              values,
            )
          : r,
      )
      .catch((error: unknown) => clockRefusal(error, io))
    if (typeof result === 'number') return result
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
 * request in the shared store (it hears of it at its next renewal: the notice on its lease); the answer says so (`requested`).
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
