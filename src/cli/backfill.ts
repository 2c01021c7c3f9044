/**
 * `leasecron backfill <net> --from <ISO> --to <ISO> [--dry-run] [--json] [--yes]`: the net's slots in the
 * range (term/backfill-plan.ts), listed (`--dry-run`, marking those the ledger already holds) or run oldest first under one term
 * (term/backfill.ts) in a short-lived process whose store, ledger and forge worker/runtime.ts opens, as
 * for `once`. Progress goes to stderr, one line per slot; the summary to stdout (`--json`: the summary
 * object, and nothing else on stdout). SIGTERM/SIGINT stop it after aborting the pass in flight.
 *
 * When a worker holds the net's lease, nothing runs here: the slots go to that holder as a backfill
 * request (backfill-holder.ts), which it runs between its passes; `--cancel` ends a running one.
 *
 * Exit codes: 0 every slot ran or was already recorded (or the range has none), or the request was left
 * for the holder; 1 a slot failed or timed out, the term ended early, or the store did not answer; 64 bad
 * usage (unknown net, under GITHUB_INSTALLATION_IDS=all an installation the App does not have, an
 * unreadable or reversed range, a --to in the future, too many slots, more than 100 without --yes); 75 a
 * backfill request is still running on the holder (named; nothing changed); 78 invalid configuration;
 * 130 stopped by a signal.
 */
import { ConfigError } from '../config/config-error.js'
import type { NetConfig, WorkerConfig } from '../config/worker-config.js'
import { systemClock } from '../lease/clock.js'
import { ownerId } from '../lease/owner-id.js'
import { type BackfillResult, runBackfill } from '../term/backfill.js'
import { type BackfillPlan, planBackfill } from '../term/backfill-plan.js'
import { createLogger } from '../observe/logger.js'
import { actingNet } from '../worker/installation-nets.js'
import { type ClockCheck, runtimeClockCheck } from '../term/clock-check.js'
import { openRuntime, type StoreRuntime } from '../worker/runtime.js'
import { dryRunLines, noSlotsLine, progressLine, summaryLines } from './backfill-report.js'
import type { CommandContext } from './command.js'
import { EXIT } from './exit-codes.js'
import { findNet } from './find-net.js'
import { clockRefusal } from './clock-refusal.js'
import { undiscoveredInstallation } from './undiscovered-installation.js'
import { connectCause } from '../worker/connect-cause.js'
import { openTerm } from '../nets/net-term.js'
import { askHolderToBackfill, cancelBackfillCommand } from './backfill-holder.js'
import { type RecordedSlot, recordedSlots } from './backfill-recorded.js'
import { withDatabase } from './with-database.js'
import type { BadDocument } from '../store-call/bad-document.js'
import { describeBadDocument } from '../worker/bad-documents.js'

type Plan = Extract<BackfillPlan, { ok: true }>

/** Lists or runs the range; resolves the exit code (see the module doc). */
export async function backfillCommand(context: CommandContext): Promise<number> {
  const { args, values, config, io } = context
  if (values.cancel) return cancelBackfillCommand(context)
  const net = findNet('backfill', args[0], config, io, values.config)
  if (!net) return EXIT.usage
  const now = new Date()
  const dryRun = Boolean(values['dry-run'])
  const plan = planBackfill({
    net,
    from: values.from,
    to: values.to,
    now,
    dryRun,
    yes: Boolean(values.yes),
    runHistory: config.runHistory,
  })
  if (!plan.ok) {
    io.err(`leasecron backfill: ${plan.problem}`)
    return EXIT.usage
  }
  if (dryRun) return dryRunCommand(context, net, plan, now)
  if (plan.slots.length === 0) {
    if (values.json) io.out(JSON.stringify(emptyResult(net)))
    else io.out(noSlotsLine(net, plan.from, plan.to))
    return EXIT.ok
  }
  if (config.forge.kind === 'unchecked') {
    io.err(new ConfigError(config.forge.issues).message)
    return EXIT.config
  }
  return runRange(context, net, plan)
}

/**
 * `--dry-run`: nothing runs and no term is taken. With MONGO_URI the ledger is read, so the list marks the
 * slots already recorded, which a run skips; without it the ledger lives in each worker, and there is none
 * to read. Exit 1 when the ledger does not answer.
 */
async function dryRunCommand(
  context: CommandContext,
  net: NetConfig,
  plan: Plan,
  now: Date,
): Promise<number> {
  const { config, io } = context
  if (!config.mongo) return printDryRun(context, net, plan, now, undefined)
  const onBadDocument = (bad: BadDocument) => io.err(`leasecron backfill: ${describeBadDocument(bad)}`)
  return withDatabase('backfill --dry-run', config, io, onBadDocument, async ({ ledger }, signal) => {
    const recorded = await recordedSlots(ledger, net.definition.name, plan.slots, config.runHistory, signal)
    return printDryRun(context, net, plan, now, recorded)
  })
}

/**
 * The slots as local and UTC time, or with `--json` `{net, schedule, timeZone, from, to, slots}` and, when
 * the ledger was read, `recorded` (`[{slot, outcome}]`: the slots a run skips).
 */
function printDryRun(
  { values, io }: CommandContext,
  net: NetConfig,
  plan: Plan,
  now: Date,
  recorded: RecordedSlot[] | undefined,
): number {
  if (values.json)
    io.out(
      JSON.stringify({
        net: net.definition.name,
        schedule: net.schedule,
        timeZone: net.timeZone,
        from: plan.from.toISOString(),
        to: plan.to.toISOString(),
        slots: plan.slots.map((s) => s.toISOString()),
        ...(recorded === undefined ? {} : { recorded }),
      }),
    )
  else for (const line of dryRunLines(net, plan, now, recorded)) io.out(line)
  return EXIT.ok
}

/** A range with no slot, as `--json` reports it: nothing ran, no term was taken. */
function emptyResult(net: NetConfig): BackfillResult {
  const counts = { ok: 0, 'slot-taken': 0, failed: 0, 'timed-out': 0, aborted: 0, 'not-run': 0 }
  return { net: net.definition.name, owner: '', fence: null, end: 'done', counts, slots: [] }
}

const END_EXIT: Record<BackfillResult['end'], number> = {
  done: EXIT.ok,
  // Not printed: a held lease leaves the range to its holder (backfill-holder.ts).
  held: EXIT.tempfail,
  failed: EXIT.failure,
  interrupted: EXIT.interrupted,
  'term-ended': EXIT.failure,
}

/** Runs the plan's slots under one term; prints progress and the summary. */
async function runRange(context: CommandContext, net: NetConfig, plan: Plan): Promise<number> {
  const { config, io } = context
  const owner = ownerId(config.workerId)
  // stdout carries the summary alone (with --json a script pipes it to jq): the log goes to stderr.
  const log = createLogger({ level: config.logLevel, toStderr: true }).child({
    owner,
    net: net.definition.name,
    lease: net.definition.lease,
  })
  const interrupt = new AbortController()
  const onSignal = (signal: NodeJS.Signals) => interrupt.abort(new Error(`${signal}: backfill stopping`))
  process.on('SIGTERM', onSignal)
  process.on('SIGINT', onSignal)
  const runtime = await openRuntime({ config, log })
  try {
    const refused = undiscoveredInstallation('backfill', net, config, runtime.installationIds())
    if (refused !== undefined) {
      io.err(refused)
      return EXIT.usage
    }
    // The installation the pass acts as (recorded on its run), and that installation's forge.
    const acting = actingNet(net, runtime.installations)
    const forge = acting.installation === undefined ? runtime.forge : runtime.forgeFor(acting.installation)
    const ran = await runBackfill({
      net: acting,
      slots: plan.slots,
      owner,
      store: runtime.store,
      ledger: runtime.ledger,
      runHistory: config.runHistory,
      pass: async (term, stepDownAt) =>
        openTerm(net.definition, await runtime.setUpNet(net, log, term), {
          options: net.options,
          log,
          signal: term,
          stepDownAt,
        }),
      forge,
      log,
      clock: systemClock,
      signal: interrupt.signal,
      onSlot: (index, slot) => io.err(progressLine(net, index, plan.slots.length, slot)),
      ...clockCheck(runtime, config),
    }).catch((error: unknown) => clockRefusal(error, io))
    if (typeof ran === 'number') return ran
    // A worker holds the net: its holder runs the slots, asked through a request (backfill-holder.ts).
    // Awaited here: the runtime's store closes in the `finally` below.
    if (ran.end === 'held') return await askHolderToBackfill(context, net, plan, ran, runtime)
    return printSummary(context, net, ran, runtime)
  } finally {
    process.off('SIGTERM', onSignal)
    process.off('SIGINT', onSignal)
    await runtime.close()
  }
}

/** The summary of a backfill this command ran (or could not begin); resolves the exit code. */
async function printSummary(
  { values, io }: CommandContext,
  net: NetConfig,
  ran: BackfillResult,
  runtime: StoreRuntime,
): Promise<number> {
  const cause = ran.end === 'failed' ? await connectCause(runtime.mongo) : undefined
  const result = cause === undefined ? ran : { ...ran, error: cause }
  if (values.json) io.out(JSON.stringify(result))
  else for (const line of summaryLines(net, result)) io.out(line)
  const failed = result.counts.failed + result.counts['timed-out'] > 0
  return result.end === 'done' && failed ? EXIT.failure : END_EXIT[result.end]
}

/** The clock check against the runtime's Mongo server, when there is one (clock-check.ts). */
function clockCheck(runtime: StoreRuntime, config: WorkerConfig): { clockCheck?: ClockCheck } {
  const check = runtimeClockCheck(runtime, config)
  return check ? { clockCheck: check } : {}
}
