/**
 * `runOnePass`: one pass of a net for one slot, the way the worker runs it, for a net author's tests.
 *
 * It is `leasecron once` in-process: one term on the lease store (a fresh MemoryStore unless given), the
 * slot claimed in the run ledger (a fresh MemoryRunLedger unless given), the net's `setup` and `term`,
 * the pass in the net's forge lane, its outcome recorded — the very code the worker runs (`runOnce` →
 * `runSlotPass`), nothing imitated: a net with a `pingUrl` is pinged, and it resolves once the pings are
 * answered (or timed out); a registered OpenTelemetry SDK sees the pass's span. The pass talks to the forge it is given: a sandbox (from
 * `leasecron/sandbox`) gets a real forge client built for it, closed again after the pass.
 *
 * ```ts
 * const sandbox = await startSandboxForge()
 * const run = await runOnePass(myNet, { forge: sandbox, slot: new Date('2026-09-30T15:05:00Z') })
 * expect(run.record).toMatchObject({ outcome: 'ok' })
 * ```
 *
 * The pass is told what `once` tells it (docs/nets.md, "What a pass knows"): `reason` `tick`, `attempt`, and the
 * `previous` run and `lastSuccess` from the ledger given — pass one ledger to several calls to test a net
 * that works since its last success — and the schedule's `upcoming` slots.
 *
 * Not a scheduler and not a term of many passes: every call is a new term (the net's term state starts
 * fresh, `pass` is 1), and the slot is taken as given (not normalized to the schedule).
 */
import type { Db } from 'mongodb'
import { createForge, type Forge } from '../forge/client/github-app.js'
import { type Clock, systemClock } from '../lease/clock.js'
import { MemoryStore } from '../lease/memory-store.js'
import type { LeaseStore } from '../lease/store.js'
import { leasePacing } from '../leases.js'
import type { NetDefinition, NetOptions, OptionValues } from '../nets/net.js'
import { openTerm } from '../nets/net-term.js'
import { MemoryRunLedger } from '../runs/memory-run-ledger.js'
import type { RunLedger, RunRecord } from '../runs/run-ledger.js'
import { type SandboxForge, sandboxForgeConfig } from '../sandbox/sandbox-forge.js'
import type { AttemptPolicy, NetConfig } from '../config/worker-config.js'
import {
  DEFAULT_CATCH_UP_MAX,
  DEFAULT_CATCH_UP_WINDOW_MS,
  DEFAULT_RETRY_BACKOFF_MS,
} from '../config/net-section.js'
import { createLogger } from '../observe/logger.js'
import { type OnceOutcome, runOnce } from '../term/one-slot.js'
import { netPinger } from '../observe/ping.js'
import { PING_URL_EXPECTED, parsePingUrl } from '../config/ping-url.js'
import { ownerId } from '../lease/owner-id.js'
import { checkSchedule, SCHEDULE_TIME_ZONE, scheduleOf, slotAtOrBefore } from '../schedule/schedule.js'
import { canonicalTimeZone } from '../schedule/zoned-time.js'

/** What `runOnePass` takes besides the net. */
export interface OnePassOptions<S extends NetOptions> {
  /** Where the pass's requests go: a sandbox (a client is built for it) or a forge you built. */
  forge: SandboxForge | Forge
  /** The slot the pass serves; the schedule's most recent slot at `now` when absent. */
  slot?: Date
  /** The net's option values; each one left out takes the net's default (as an unset variable would). */
  options?: Partial<OptionValues<S>>
  /** The lease store the term is elected on; a fresh MemoryStore when absent. */
  store?: LeaseStore
  /** The run ledger the slot is claimed in; a fresh MemoryRunLedger when absent. */
  ledger?: RunLedger
  /** What `setup` gets as the worker's database; absent, the net keeps memory twins of its stores. */
  db?: Db
  /** `PUBLIC_URL`, as `setup` gets it. */
  publicUrl?: string
  /** The wall clock the pass, the lease store and the ledger see; the system clock when absent. */
  now?: () => Date
  /** The owner the term runs as; a fresh owner id when absent. */
  owner?: string
  /** Aborting it aborts the pass (recorded `aborted`), as SIGTERM does to `leasecron once`. */
  signal?: AbortSignal
  /**
   * TIMEOUT, RETRIES and RETRY_BACKOFF in ms, as the net's variables set them; each left out takes its
   * default (the schedule's interval, 0 retries, 10 s).
   */
  attempts?: Partial<AttemptPolicy>
}

/** One line the worker's logger wrote during the pass (pino's JSON: `level`, `msg`, bound fields). */
export interface PassLogLine {
  level: string
  msg: string
  [field: string]: unknown
}

/** What happened. */
export interface OnePass {
  /** `ran` (the pass ran and ended ok), `failed`, `timed-out`, `aborted`, `slot-taken` (the ledger had it), `held`. */
  outcome: OnceOutcome
  slot: Date
  /** The term's fence; null when no term began. */
  fence: number | null
  /** The ledger's record of the slot: outcome, error, requests by lane. */
  record: RunRecord | undefined
  /** Why, for `failed` and `timed-out` (the first line, scrubbed; the full error is on the `pass failed` log line). */
  error?: string
  /** Every log line of the term and the pass, debug and up. */
  log: PassLogLine[]
}

/**
 * Runs one pass of `net` for one slot and resolves what happened once the lease is released. Rejects
 * only for a net this helper cannot run (a schedule that does not parse, an option with no default left
 * out); a pass that throws resolves `failed`.
 */
export async function runOnePass<S extends NetOptions, R>(
  net: NetDefinition<S, R>,
  given: OnePassOptions<S>,
): Promise<OnePass> {
  const clock: Clock = given.now ? { ...systemClock, now: given.now } : systemClock
  const schedule = checkSchedule(scheduleOf(net))
  if (!schedule.ok) throw new Error(`runOnePass(${net.name}): schedule: ${schedule.expected}`)
  const timeZone = canonicalTimeZone(net.timeZone ?? SCHEDULE_TIME_ZONE)
  if (!timeZone)
    throw new Error(
      `runOnePass(${net.name}): timeZone ${JSON.stringify(net.timeZone)} is not an IANA time zone`,
    )
  if (net.pingUrl !== undefined && !parsePingUrl(net.pingUrl))
    throw new Error(`runOnePass(${net.name}): pingUrl: expected ${PING_URL_EXPECTED}`)
  const options = optionValues(net, given.options ?? {})
  const slot = given.slot ?? slotAtOrBefore(scheduleOf(net), clock.now(), timeZone)
  const owner = given.owner ?? ownerId()
  const ledger = given.ledger ?? new MemoryRunLedger()
  const lines: PassLogLine[] = []
  const root = createLogger({
    level: 'debug',
    destination: { write: (line: string) => void lines.push(JSON.parse(line) as PassLogLine) },
  })
  const log = root.child({ net: net.name, owner })
  const forge = 'octokit' in given.forge ? given.forge : forgeFor(given.forge, log)
  const config = netConfig(net, schedule.intervalMs, timeZone, options, given.attempts)
  try {
    const result = await runOnce({
      net: config,
      slot,
      owner,
      store: given.store ?? new MemoryStore(),
      ledger,
      runHistory: Number.MAX_SAFE_INTEGER,
      pass: async (term, stepDownAt) => {
        const context = { options, db: given.db, log, publicUrl: given.publicUrl, now: () => clock.now() }
        return openTerm(net, await net.setup(context), { options, log, signal: term, stepDownAt })
      },
      forge,
      pinger: netPinger(config, log),
      log,
      clock,
      signal: given.signal ?? new AbortController().signal,
    })
    const record = await ledger.get(net.name, slot)
    return {
      outcome: result.outcome,
      slot,
      fence: result.fence,
      record,
      ...(result.error === undefined ? {} : { error: result.error }),
      log: lines,
    }
  } finally {
    if (forge !== given.forge) await forge.close()
  }
}

/** A forge client for a sandbox, as the worker builds one when it runs on the local sandbox. */
function forgeFor(sandbox: SandboxForge, log: ReturnType<typeof createLogger>): Forge {
  return createForge({ config: sandboxForgeConfig(sandbox), logger: log.child({ component: 'forge' }) })
}

/** The net's option values: each given one as it is, every other one its default (the unset variable). */
function optionValues<S extends NetOptions>(
  net: NetDefinition<S, unknown>,
  given: Partial<OptionValues<S>>,
): OptionValues<S> {
  const values: Record<string, unknown> = {}
  for (const [key, option] of Object.entries(net.options)) {
    if (key in given) {
      values[key] = given[key as keyof S]
      continue
    }
    const parsed = option.schema.safeParse(undefined)
    if (!parsed.success)
      throw new Error(`runOnePass(${net.name}): option ${key} has no default; give it (${option.expected})`)
    values[key] = parsed.data
  }
  return values as OptionValues<S>
}

/** The net as the worker would run it with no variables set, but for the attempts the test gives. */
function netConfig(
  net: NetDefinition,
  intervalMs: number,
  timeZone: string,
  options: Record<string, unknown>,
  attempts: Partial<AttemptPolicy> = {},
): NetConfig {
  return {
    definition: net,
    enabled: true,
    schedule: net.schedule,
    dayMatch: net.dayMatch,
    timeZone,
    intervalMs,
    pacing: leasePacing(intervalMs),
    catchUp: net.catchUp ?? 'latest',
    catchUpWindowMs: DEFAULT_CATCH_UP_WINDOW_MS,
    catchUpMax: DEFAULT_CATCH_UP_MAX,
    overlap: net.overlap ?? 'buffer-one',
    // One pass, run when called: no tick for an offset to move.
    jitterMs: 0,
    pingUrl: net.pingUrl,
    attempts: {
      timeoutMs: attempts.timeoutMs ?? intervalMs,
      retries: attempts.retries ?? 0,
      retryBackoffMs: attempts.retryBackoffMs ?? DEFAULT_RETRY_BACKOFF_MS,
      // One pass, no takeover: nothing of a cut-off pass to run again.
      retakes: 0,
    },
    options,
  }
}
