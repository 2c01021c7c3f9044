/**
 * `leasecron once <net>`: one term, one pass, one slot — for serverless triggers and cron jobs, which
 * deliver at least once.
 *
 * It goes through lease.run like the worker does (the attempt bounded by ttl/3, the release after an
 * unanswered attempt, renewals and the step-down deadline while the pass runs, the release at the end),
 * with two differences: the campaign gives up after its first attempt (a held lease is an answer, `held`,
 * not a reason to wait), and the work is exactly one pass for one slot, claimed in the run ledger like
 * every pass of the worker — so five triggers of one slot run it once. The caller's signal (SIGTERM,
 * SIGINT) aborts the pass, which is recorded `aborted`, and the lease is released before it resolves.
 *
 * Not a scheduler: which slot to run is the caller's (`--slot`), normalized to the schedule.
 */
import { run } from '../lease/run.js'
import type { LeaseStore } from '../lease/store.js'
import type { Pass } from '../nets/net.js'
import { slotAtOrBefore } from '../schedule.js'
import { scrubSecrets } from '../config/scrub.js'
import { type PassSetting, runSlotPass, type SlotPassResult, slotPassSpec } from './slot-pass.js'

/**
 * What `once` did: `aborted` when the caller's signal stopped the pass (it is recorded so in the ledger);
 * `timed-out` when its last attempt ran past the net's TIMEOUT.
 */
export type OnceOutcome = 'ran' | 'slot-taken' | 'held' | 'requested' | 'failed' | 'timed-out' | 'aborted'

/** The one object `once --json` prints. */
export interface OnceResult {
  net: string
  slot: string
  outcome: OnceOutcome
  owner: string
  /** The term's fence; null when no term began (`held`, or the store failed). */
  fence: number | null
  /** Who holds the lease, for `held` (when the store said). */
  holder?: string
  /** Why, for `failed` and `timed-out` (the last attempt's error). */
  error?: string
  /** Attempts the pass made for the slot (1 + retries), when it ran. */
  attempts?: number
  /** `once --now` only: true for a manual run. */
  manual?: boolean
}

/** One `once` pass: what every pass of the net shares (PassSetting, built by slotPassSpec) and more. */
export interface OnceSpec extends PassSetting {
  slot: Date
  /** A manual run (`once --now`): `slot` is now, keyed `<net>@manual@<ISO>` apart from the schedule's slots. */
  manual?: boolean
  store: LeaseStore
  /** Builds the net's pass for the term; called only once the slot is claimed (it may open stores). */
  pass(term: AbortSignal, stepDownAt: () => number): Promise<Pass>
  /** SIGTERM/SIGINT: aborts the pass, which is then recorded `aborted`; the lease is released. */
  signal: AbortSignal
}

/**
 * How far after now a `--slot` may be: a trigger's clock a little ahead of this process's. A slot further
 * ahead would be claimed before it comes, and the worker's own tick would then find it taken.
 */
export const SLOT_SKEW_ALLOWANCE_MS = 60_000

const SLOT_FORM = 'an ISO 8601 instant with a time zone (e.g. 2026-09-30T15:05:00Z) or "auto"'
const ISO_INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-](\d{2}):?(\d{2}))$/i

/**
 * `--slot` as given: `auto` (or absent) is now; anything else must be a real calendar instant (no
 * 2026-02-30 rolling over to March) written in full ISO 8601 with a zone, and at most
 * SLOT_SKEW_ALLOWANCE_MS after `now`. The slot is the schedule's most recent fire time at or before it,
 * read in `timeZone` (the net's; UTC by default) by the DST rule of schedule.ts.
 */
export function parseSlotOption(
  value: string | undefined,
  schedule: string,
  now: Date,
  timeZone?: string,
): { ok: true; slot: Date } | { ok: false; expected: string } {
  const text = (value ?? 'auto').trim()
  if (text === 'auto') return { ok: true, slot: slotAtOrBefore(schedule, now, timeZone) }
  const refuse = (why: string) => ({
    ok: false as const,
    expected: `--slot: expected ${SLOT_FORM}; got ${JSON.stringify(text)}${why}`,
  })
  const match = ISO_INSTANT.exec(text)
  if (!match) return refuse('')
  const impossible = impossibleField(match)
  if (impossible) return refuse(`, which is not a real instant: ${impossible}`)
  const instant = new Date(text)
  if (!Number.isFinite(instant.getTime())) return refuse(', which is not a real instant')
  const ahead = instant.getTime() - now.getTime()
  if (ahead > SLOT_SKEW_ALLOWANCE_MS)
    return refuse(
      `, ${Math.round(ahead / 1000)} s after now (${now.toISOString()}): a slot may be at most ${SLOT_SKEW_ALLOWANCE_MS / 1000} s ahead (clock skew); a later one would be claimed before it comes`,
    )
  return { ok: true, slot: slotAtOrBefore(schedule, instant, timeZone) }
}

/** The first field of a matched instant outside its calendar range (day 30 of February, hour 24…). */
function impossibleField(match: RegExpExecArray): string | undefined {
  const [year, month, day, hour, minute, second = 0, , offsetHours = 0, offsetMinutes = 0] = match
    .slice(1)
    .map((part) => (part === undefined || /^z$/i.test(part) || /^[+-]/.test(part) ? undefined : Number(part)))
  // Round trip: the fields must name a day that exists, not one Date would roll over.
  const daysInMonth = new Date(Date.UTC(year!, month!, 0)).getUTCDate()
  if (month! < 1 || month! > 12) return `month ${month} (expected 01–12)`
  if (day! < 1 || day! > daysInMonth)
    return `day ${day} (${year}-${String(month).padStart(2, '0')} has ${daysInMonth} days)`
  if (hour! > 23) return `hour ${hour} (expected 00–23)`
  if (minute! > 59) return `minute ${minute} (expected 00–59)`
  if (second > 59) return `second ${second} (expected 00–59)`
  if (offsetHours > 23 || offsetMinutes > 59) return 'its zone offset (expected ±HH:MM up to 23:59)'
  return undefined
}

/** Runs one term with one pass for `spec.slot`; resolves what happened, after the lease is released. */
export async function runOnce(spec: OnceSpec): Promise<OnceResult> {
  const base = { net: spec.net.net.name, slot: spec.slot.toISOString(), owner: spec.owner, fence: null }
  const campaign = new AbortController()
  const stop = () => campaign.abort(spec.signal.reason)
  spec.signal.addEventListener('abort', stop, { once: true })
  if (spec.signal.aborted) stop()
  const attempt = firstAttemptOnly(spec.store, campaign)
  let fence: number | null = null
  let result: SlotPassResult | undefined
  try {
    await run(
      attempt.store,
      {
        name: spec.net.net.lease,
        owner: spec.owner,
        ttlMs: spec.net.pacing.ttlMs,
        retryMs: spec.net.pacing.retryMs,
        signal: campaign.signal,
        clock: spec.clock,
        log: spec.log,
      },
      async (term, info) => {
        fence = info.fence
        result = await runSlotPass(oncePass(spec, term, info.live, info.stepDownAt, info.fence))
        campaign.abort()
      },
    )
  } finally {
    spec.signal.removeEventListener('abort', stop)
  }
  const withFence = { ...base, fence }
  if (attempt.refused()) return { ...base, outcome: 'held', ...(await holderOf(spec)) }
  if (attempt.error() !== undefined) return { ...base, outcome: 'failed', error: message(attempt.error()) }
  return { ...withFence, ...describeResult(result, spec.signal) }
}

function oncePass(
  spec: OnceSpec,
  term: AbortSignal,
  live: () => boolean,
  stepDownAt: () => number,
  fence: number,
) {
  // The net's setup runs only for a claimed slot: a trigger that finds its slot taken opens nothing.
  const pass: Pass = async (context) => (await spec.pass(term, stepDownAt))(context)
  const built = slotPassSpec(spec, { fence, term, live, stepDownAt }, pass, spec.slot, () => 1)
  return spec.manual ? { ...built, manual: true } : built
}

function describeResult(
  result: SlotPassResult | undefined,
  signal: AbortSignal,
): Pick<OnceResult, 'outcome' | 'error' | 'attempts'> {
  if (!result) {
    if (signal.aborted) return { outcome: 'aborted' }
    return {
      outcome: 'failed',
      error: 'the term ended before its pass could start (a grant that arrived too late)',
    }
  }
  if (result.kind === 'slot-taken') return { outcome: 'slot-taken' }
  if (result.kind === 'claim-failed') return { outcome: 'failed', error: message(result.error) }
  const attempts = { attempts: result.attempts }
  if (result.outcome === 'ok') return { outcome: 'ran', ...attempts }
  if (result.outcome === 'aborted') return { outcome: 'aborted', ...attempts }
  return { outcome: result.outcome, error: message(result.error), ...attempts }
}

/**
 * The store as run() sees it for `once`: the first acquire's refusal or failure ends the campaign (run()
 * still releases after an unanswered attempt, so a grant that landed without its answer is given up).
 */
function firstAttemptOnly(store: LeaseStore, campaign: AbortController) {
  let refused = false
  let error: unknown
  const wrapped: LeaseStore = {
    acquire: async (...args: Parameters<LeaseStore['acquire']>) => {
      try {
        const grant = await store.acquire(...args)
        if (grant === false) {
          refused = true
          campaign.abort()
        }
        return grant
      } catch (failure) {
        error = failure
        campaign.abort()
        throw failure
      }
    },
    renew: (...args: Parameters<LeaseStore['renew']>) => store.renew(...args),
    release: (...args: Parameters<LeaseStore['release']>) => store.release(...args),
    get: (...args: Parameters<LeaseStore['get']>) => store.get(...args),
    list: (...args: Parameters<LeaseStore['list']>) => store.list(...args),
  }
  return { store: wrapped, refused: () => refused, error: () => error }
}

async function holderOf(spec: OnceSpec): Promise<{ holder?: string }> {
  try {
    const signal = AbortSignal.timeout(Math.max(1_000, spec.net.pacing.ttlMs / 3))
    const record = await spec.store.get(spec.net.net.lease, { signal })
    return record?.owner ? { holder: record.owner } : {}
  } catch {
    return {}
  }
}

/** The first line of an error, scrubbed: `once` prints it and `--json` carries it. */
function message(error: unknown): string {
  return scrubSecrets(error instanceof Error ? error.message.split('\n')[0]! : String(error))
}

/** One readable line of a result (`once` without --json). */
export function describeOnce(result: OnceResult): string {
  const fence = result.fence === null ? '' : ` (fence ${result.fence})`
  switch (result.outcome) {
    case 'ran':
      return `${result.net}: ran slot ${result.slot} as ${result.owner}${fence}`
    case 'slot-taken':
      return `${result.net}: slot ${result.slot} already ran (or runs) elsewhere; nothing to do`
    case 'held':
      return `${result.net}: lease held by ${result.holder ?? 'another owner'}; slot ${result.slot} not run here`
    case 'requested':
      return `${result.net}: lease held by ${result.holder ?? 'another owner'}; asked it to run now (its poll picks the request up within seconds; see leasecron history)`
    case 'timed-out':
      return `${result.net}: slot ${result.slot} timed out${fence}${tries(result)}: ${result.error ?? 'unknown error'}`
    case 'aborted':
      return `${result.net}: slot ${result.slot} aborted by a signal${fence}; recorded as aborted, lease released`
    default:
      return `${result.net}: slot ${result.slot} failed${fence}${tries(result)}: ${result.error ?? 'unknown error'}`
  }
}

/** ` after N attempts` when the slot took more than one. */
function tries(result: OnceResult): string {
  return result.attempts !== undefined && result.attempts > 1 ? ` after ${result.attempts} attempts` : ''
}
