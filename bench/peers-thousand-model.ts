/**
 * What leasecron's worker should cost its store at rest with N every-minute nets on R replicas, in
 * operations an hour, derived from src/ — printed beside the thousand-schedules scenario's measurement.
 * Each term names where it comes from:
 *
 * - renewals (src/lease/term.ts, renewal-batch.ts): a holder renews every TTL/3 on a replica-wide grid of
 *   RENEWAL_GROUPS phases (a hash of the lease's name picks its group), so its terms of one TTL and group
 *   renew at the same instant and go as one `renewMany`: H·3600/(TTL/3)·b, b the batches a round
 *   (min(RENEWAL_GROUPS, N/H)), H the replicas holding nets (min(R, N) once the elections spread them);
 * - standby reads (src/lease/run.ts, `#stillHeld` and `#pauseMs`; renewal-batch.ts): every replica
 *   campaigns for every net (the fair share is opt-in), and a standby that saw the holder reads the lease
 *   once per attempt, pausing until the expiry it read plus up to a fifth of a retry, at most a retry and a
 *   fifth (mean p̄, `meanStandbyPauseMs`). Its reads wait a renewal window w (TTL/100) and go together in
 *   one `getMany`; a holder's expiries are aligned (its renewals are), so a standby's reads of one holder's
 *   leases fall within the jitter's spread s = retry/5 and take about k = min(N/H, ⌈s/w⌉) reads:
 *   R·(H−1)·k·3600/p̄;
 * - standby looks (src/lease/due-look.ts): a standby also reads 2 s before each slot, whatever expiry it
 *   read; a replica's looks of one instant fall in one renewal window and go as one `getMany`: R·60 for a
 *   minute schedule (an upper bound: a look that lands beside one of the reads above costs nothing more);
 * - the ledger (src/term/slot-pass.ts, src/runs/ledger-batch.ts, mongo-run-ledger.ts): the slots of one
 *   instant are claimed in one `insertMany` and one `deleteMany` of their `#unrun` accounts per holder:
 *   H·60·2·c, c the batches a slot (1 when the passes start within the batch window of one another); each
 *   is finished in an `update` of its own (MongoRunLedger has no `finishMany`: FerretDB stalls on it):
 *   N·60; per net, the newest runs read to close older terms' claims (every
 *   pass until one ends a call bound after the term began, then every 10th: older-claims-look.ts) and the
 *   prune (a find and a delete, a term's first pass and every 50th): N·60·(h + 2·q), h = 1 on a term's
 *   first passes, else 1/10, q = 1/50;
 * - controls (src/term/control-poll.ts): a slot's pause check, read with the other nets' due within 50 ms
 *   (one `getMany` a replica a minute), and the fallback poll of a replica holding nets every 60 s: H·60 + H·60.
 *
 * What it is not: a measurement, nor a bound. It leaves out what happens once (elections, the first
 * renewal's read-back, catch-up reads) and what the status page reads only when asked.
 */
import { leasePacing } from '../src/leases.js'
import { renewalWindowMs } from '../src/lease/renewal-batch.js'
import { RENEWAL_GROUPS } from '../src/lease/term.js'
import { NOTICED_CONTROL_POLL_MS } from '../src/term/control-poll.js'
import { CLOSE_EVERY_PASSES } from '../src/term/older-claims-look.js'

const HOUR_MS = 3_600_000
const JITTER = 0.2
/** src/term/slot-pass.ts: PRUNE_EVERY_PASSES (not exported there). */
const PRUNE_EVERY_PASSES = 50

export interface ModelInputs {
  nets: number
  replicas: number
  /** The schedule's interval (60 s for `* * * * *`). */
  intervalMs: number
  /** Renewal batches a replica sends per round (one a renewal group its terms fall in). */
  batchesPerRound?: number
  /** Ledger batches per slot and holder (1 when the slot's passes start and end together). */
  ledgerBatchesPerSlot?: number
  /** Whether the passes in the window include each term's first ones (a fresh start: h = 1). */
  earlyInTerm?: boolean
  /** Replicas holding at least one net (min(R, N) unless the run says: elections may leave one with none). */
  holders?: number
}

/**
 * The mean pause between a standby's reads of a live holder's lease (run.ts `#pauseMs`): the read finds
 * the expiry TTL − φ ahead (φ uniform over the holder's renewal period TTL/3), and the standby waits
 * min(retry·(1 + 0.2·u₁), TTL − φ + retry·0.2·u₂), u₁, u₂ uniform in [0, 1). Averaged on a grid.
 */
export function meanStandbyPauseMs(ttlMs: number, retryMs: number, steps = 40): number {
  let sum = 0
  for (let a = 0; a < steps; a++)
    for (let b = 0; b < steps; b++)
      for (let c = 0; c < steps; c++) {
        const phase = ((a + 0.5) / steps) * (ttlMs / 3)
        const retry = retryMs * (1 + JITTER * ((b + 0.5) / steps))
        sum += Math.min(retry, ttlMs - phase + retryMs * JITTER * ((c + 0.5) / steps))
      }
  return sum / steps ** 3
}

/** The model's terms (operations an hour) and their sum, with the formula in words. */
export function leasecronOpsModel(inputs: ModelInputs) {
  const { nets: n, replicas: r, intervalMs } = inputs
  const { ttlMs, retryMs } = leasePacing(intervalMs)
  const b =
    inputs.batchesPerRound ??
    Math.min(RENEWAL_GROUPS, Math.ceil(n / Math.max(1, inputs.holders ?? Math.min(r, n))))
  const c = inputs.ledgerBatchesPerSlot ?? 1
  const pauseMs = meanStandbyPauseMs(ttlMs, retryMs)
  const passesPerHour = HOUR_MS / intervalMs
  const closeReads = inputs.earlyInTerm ? 1 : 1 / CLOSE_EVERY_PASSES
  const prunes = inputs.earlyInTerm ? 0 : 1 / PRUNE_EVERY_PASSES
  // Only a replica that holds nets renews, checks pauses and polls controls: one net has one holder.
  const holders = inputs.holders ?? Math.min(r, n)
  const perHolder = n / Math.max(1, holders)
  const readsPerHolder = Math.min(perHolder, Math.ceil((JITTER * retryMs) / renewalWindowMs(ttlMs)))
  const terms = {
    renewals: holders * (HOUR_MS / (ttlMs / 3)) * b,
    standbyReads: r * Math.max(0, holders - 1) * readsPerHolder * (HOUR_MS / pauseMs),
    standbyLooks: holders > 1 ? r * passesPerHour : 0,
    ledger: holders * passesPerHour * 2 * c + n * passesPerHour * (1 + closeReads + 2 * prunes),
    pauseChecks: holders * passesPerHour,
    controlFallbackPoll: holders * (HOUR_MS / NOTICED_CONTROL_POLL_MS),
  }
  const total = Object.values(terms).reduce((s, v) => s + v, 0)
  return {
    inputs: {
      ...inputs,
      holders,
      ttlMs,
      retryMs,
      batchesPerRound: b,
      ledgerBatchesPerSlot: c,
      meanStandbyPauseMs: Math.round(pauseMs),
    },
    terms: Object.fromEntries(Object.entries(terms).map(([k, v]) => [k, Math.round(v)])),
    perHour: Math.round(total),
    formula:
      `ops/h ≈ H·3600/(TTL/3)·b [renewals] + R·(H−1)·k·3600/p̄ [standby reads, k = min(N/H, ⌈(retry/5)/(TTL/100)⌉)] + R·60 [standby looks before each slot] + H·60·2·c + N·60·(1 + h + 2q) [ledger: claim insert + delete per batch; per net its finish, newest-runs read h, prune q] + H·60 [pause checks] + H·60 [control fallback poll], H replicas holding nets; ` +
      `here N = ${n}, R = ${r}, H = ${holders}, TTL = ${ttlMs / 1000} s, retry = ${retryMs / 1000} s, b = ${b}, c = ${c}, k = ${readsPerHolder}, p̄ = ${(pauseMs / 1000).toFixed(1)} s, ` +
      `h = ${inputs.earlyInTerm ? "1 (each term's first passes)" : `1/${CLOSE_EVERY_PASSES}`}, q = ${prunes === 0 ? '0 (after its first pass)' : `1/${PRUNE_EVERY_PASSES}`}`,
  }
}

/**
 * The measured operations sorted under the model's terms, by the command and collection each one is
 * (renewals: `update`/`findAndModify leases`; standby reads: `find leases`; ledger: `net_runs`; controls:
 * `find net_controls`), the rest under `other`.
 */
export function measuredByTerm(byCommand: Record<string, number>): Record<string, number> {
  const terms: Record<string, number> = {
    renewals: 0,
    standbyReads: 0,
    ledger: 0,
    controls: 0,
    other: 0,
  }
  for (const [key, count] of Object.entries(byCommand)) {
    const [command, collection] = key.split(' ')
    const term =
      collection === 'leases'
        ? command === 'find'
          ? 'standbyReads'
          : 'renewals'
        : collection === 'net_runs'
          ? 'ledger'
          : collection === 'net_controls'
            ? 'controls'
            : 'other'
    terms[term]! += count
  }
  return terms
}
