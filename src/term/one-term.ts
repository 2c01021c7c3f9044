/**
 * One campaign attempt and, when it wins, one term serving the caller's work: what `once` (one slot) and
 * `backfill` (a range of slots) both run under. It goes through lease.run like the worker does — the
 * attempt bounded by ttl/3, the release after an unanswered attempt, renewals every ttl/3 and the step-down
 * deadline for as long as the work runs (so a long backfill keeps its term), the release at the end — with
 * two differences: the campaign gives up after its first attempt (a held lease is an answer, `held`, not a
 * reason to wait), and it ends when the work returns.
 *
 * The caller's signal (SIGTERM, SIGINT) ends the campaign, which aborts the term: the work sees its term's
 * signal abort (a pass in flight is then recorded `aborted` by slot-pass.ts), and the lease is released
 * before `serveOneTerm` resolves. Not a pass and not a claim: what the term does is the work's.
 */
import type { NetConfig } from '../config/worker-config.js'
import type { Clock } from '../lease/clock.js'
import { run } from '../lease/run.js'
import type { LeaseStore } from '../lease/store.js'
import type { Logger } from '../observe/logger.js'
import type { PassTerm } from './slot-pass.js'
import { OlderClaimsLook } from './older-claims-look.js'
import { termCallBoundMs } from '../lease/call-bound.js'
import { callBoundSignal } from './term-call-bound.js'
import type { RunLedger } from '../runs/run-ledger.js'
import { RunMemory } from './run-memory.js'

export interface OneTermSpec {
  net: NetConfig
  owner: string
  store: LeaseStore
  /** The run ledger the term's passes claim in; the term reaches it through its RunMemory. */
  ledger: RunLedger
  clock: Clock
  /** Bound to the net (and owner): the term's events are logged here. */
  log: Logger
  /** SIGTERM/SIGINT: ends the campaign and aborts the term; the lease is released. */
  signal: AbortSignal
}

/**
 * What came of the attempt: `held` (another owner holds the lease; who, when the store said), `failed`
 * (the store did not answer the acquire, or the work threw — after the term was released), or `served`: the term's fence and what the work returned — both
 * absent when no term began (the signal came first) and the value absent when the term ended before the
 * work could start.
 */
export type OneTermResult<T> =
  | { kind: 'held'; holder?: string }
  | { kind: 'failed'; error: unknown }
  | { kind: 'served'; fence: number | null; value: T | undefined }

/** Campaigns once for the net's lease; elected, runs `work` in the term. Resolves after the release. */
export async function serveOneTerm<T>(
  spec: OneTermSpec,
  work: (term: PassTerm) => Promise<T>,
): Promise<OneTermResult<T>> {
  const campaign = new AbortController()
  const stop = () => campaign.abort(spec.signal.reason)
  spec.signal.addEventListener('abort', stop, { once: true })
  if (spec.signal.aborted) stop()
  const attempt = firstAttemptOnly(spec.store, campaign)
  let fence: number | null = null
  let value: T | undefined
  let workError: { error: unknown } | undefined
  try {
    const { ttlMs, retryMs } = spec.net.pacing
    const lease = { name: spec.net.definition.lease, owner: spec.owner, ttlMs, retryMs }
    await run(
      attempt.store,
      { ...lease, signal: campaign.signal, clock: spec.clock, log: spec.log },
      async (term, info) => {
        fence = info.fence
        try {
          let passes = 0
          const { live, stepDownAt } = info
          const boundMs = termCallBoundMs(ttlMs)
          const nextPassNumber = () => ++passes
          const olderClaims = new OlderClaimsLook(spec.clock, boundMs)
          const looksForOlderClaims = (number: number) => olderClaims.due(number)
          // The term's ledger: its first pass's look tells it the net's history (run-memory.ts).
          const runs = new RunMemory(spec.ledger, { countRuns: spec.net.maxRuns !== undefined })
          const passTerm = { fence: info.fence, term, live, stepDownAt, boundMs, runs }
          value = await work({ ...passTerm, nextPassNumber, looksForOlderClaims })
        } catch (error) {
          workError = { error }
        } finally {
          // One term only, whatever the work did: a work that threw must not start a second campaign.
          campaign.abort()
        }
      },
    )
  } finally {
    spec.signal.removeEventListener('abort', stop)
  }
  if (attempt.refused()) return { kind: 'held', ...(await holderOf(spec)) }
  if (attempt.error() !== undefined) return { kind: 'failed', error: attempt.error() }
  if (workError) return { kind: 'failed', error: workError.error }
  return { kind: 'served', fence, value }
}

/**
 * The store as run() sees it here: the first acquire's refusal or failure ends the campaign (run() still
 * releases after an unanswered attempt, so a grant that landed without its answer is given up).
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

/** Who holds the lease, when the store answers within a bound (the answer only names it). */
async function holderOf(spec: OneTermSpec): Promise<{ holder?: string }> {
  try {
    const signal = callBoundSignal(Math.max(1_000, termCallBoundMs(spec.net.pacing.ttlMs)))
    const record = await spec.store.get(spec.net.definition.lease, { signal })
    return record?.owner ? { holder: record.owner } : {}
  } catch {
    return {}
  }
}
