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
 *   campaigns for every net (the fair share is opt-in), so each holder's leases are read by the R − 1
 *   others. After its look before a slot a standby reads at the expiry it saw, plus up to a fifth of a
 *   retry; once the slot has passed and its next look comes within its longest retry pause, it leaves
 *   the rest to that look (issue #39): about m reads an interval besides the look
 *   (`standbyReadsPerInterval`). Its reads wait a renewal window w (TTL/100) and go together in one
 *   `getMany`; a holder's expiries are aligned (its renewals are), so a standby's reads of one holder's
 *   leases fall within the jitter's spread s = retry/5 and take about k = min(N/H, ⌈s/w⌉) reads:
 *   H·(R−1)·k·60·m for a minute schedule;
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
 * A standby's reads of a live holder's lease in one interval, its look before the slot left out
 * (run.ts `#pauseMs`, due-look.ts): from its look `a` before a slot (a = min(2 s, retry/2)), each read
 * finds the expiry TTL − φ ahead (φ uniform over the holder's renewal period TTL/3); the standby waits
 * min(retry·(1 + 0.2·u₁), expiry + retry·0.2·u₂) or until its next look, whichever is sooner; and once the
 * slot has passed and the next look comes within retry·1.2, until that look. Averaged over `cycles`
 * drawn from a fixed sequence, so the model prints the same figure every run.
 */
export function standbyReadsPerInterval(
  intervalMs: number,
  ttlMs: number,
  retryMs: number,
  cycles = 4_000,
): number {
  const aheadMs = Math.min(2_000, retryMs / 2)
  let seed = 12_345
  const draw = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31
    return seed / 2 ** 31
  }
  let reads = 0
  for (let i = 0; i < cycles; i++) {
    let t = -aheadMs
    const nextLook = intervalMs - aheadMs
    for (;;) {
      const expiry = t + ttlMs - draw() * (ttlMs / 3)
      const retry = retryMs * (1 + JITTER * draw())
      const expiryPause = Math.min(retry, expiry - t + retryMs * JITTER * draw())
      const look = nextLook - t
      const skip = t >= 0 && look <= retryMs * (1 + JITTER)
      t += skip || look < expiryPause ? look : expiryPause
      if (t >= nextLook) break
      reads++
    }
  }
  return reads / cycles
}

/** The model's terms (operations an hour) and their sum, with the formula in words. */
export function leasecronOpsModel(inputs: ModelInputs) {
  const { nets: n, replicas: r, intervalMs } = inputs
  const { ttlMs, retryMs } = leasePacing(intervalMs)
  const b =
    inputs.batchesPerRound ??
    Math.min(RENEWAL_GROUPS, Math.ceil(n / Math.max(1, inputs.holders ?? Math.min(r, n))))
  const c = inputs.ledgerBatchesPerSlot ?? 1
  const readsPerInterval = standbyReadsPerInterval(intervalMs, ttlMs, retryMs)
  const passesPerHour = HOUR_MS / intervalMs
  const closeReads = inputs.earlyInTerm ? 1 : 1 / CLOSE_EVERY_PASSES
  const prunes = inputs.earlyInTerm ? 0 : 1 / PRUNE_EVERY_PASSES
  // Only a replica that holds nets renews, checks pauses and polls controls: one net has one holder.
  const holders = inputs.holders ?? Math.min(r, n)
  const perHolder = n / Math.max(1, holders)
  const readsPerHolder = Math.min(perHolder, Math.ceil((JITTER * retryMs) / renewalWindowMs(ttlMs)))
  const terms = {
    renewals: holders * (HOUR_MS / (ttlMs / 3)) * b,
    // Each holder's leases are read by the other R − 1 replicas; a replica's looks of one instant are one read.
    standbyReads: holders * (r - 1) * readsPerHolder * readsPerInterval * passesPerHour,
    standbyLooks: (holders > 1 ? r : r - holders) * passesPerHour,
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
      standbyReadsPerInterval: Number(readsPerInterval.toFixed(2)),
    },
    terms: Object.fromEntries(Object.entries(terms).map(([k, v]) => [k, Math.round(v)])),
    perHour: Math.round(total),
    formula:
      `ops/h ≈ H·3600/(TTL/3)·b [renewals] + H·(R−1)·k·60·m [standby reads between looks, k = min(N/H, ⌈(retry/5)/(TTL/100)⌉)] + R·60 [standby looks before each slot] + H·60·2·c + N·60·(1 + h + 2q) [ledger: claim insert + delete per batch; per net its finish, newest-runs read h, prune q] + H·60 [pause checks] + H·60 [control fallback poll], H replicas holding nets; ` +
      `here N = ${n}, R = ${r}, H = ${holders}, TTL = ${ttlMs / 1000} s, retry = ${retryMs / 1000} s, b = ${b}, c = ${c}, k = ${readsPerHolder}, m = ${readsPerInterval.toFixed(2)}, ` +
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
