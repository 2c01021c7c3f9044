/**
 * The slot spread: how long after each of its slots a per-installation net's pass starts. With N
 * installations every `<net>:<installation>` shares one schedule, so without it all N passes fall due at
 * the same instant and N ledger claims, N forge requests and N ledger reads reach the store as one burst
 * (bench/NOTES.md, "Installations": FerretDB on SQLite serialises them and the lease renewals queue behind).
 *
 * The offset is deterministic — a hash of the net's name, so every replica and every term of the net
 * agree — and bounded by SPREAD_FRACTION of the schedule's shortest gap between slots (of the next few)
 * and by SPREAD_MAX_MS. It moves only when the pass starts: the slot, its ledger key and the catch-up
 * are unchanged, and since a net's offset is constant its passes stay one period apart.
 *
 * Not a jitter (nothing random) and not for global nets: a global net runs at its slot, as configured.
 */
import { createHash } from 'node:crypto'
import { nextFireTime } from '../schedule/schedule.js'

/** The share of the shortest gap between slots a pass may start after its slot. */
export const SPREAD_FRACTION = 0.25
/** The most a pass starts after its slot, whatever the schedule's gaps. */
export const SPREAD_MAX_MS = 60_000
/** How many of the schedule's next gaps bound the spread (an irregular schedule's shortest among them). */
const GAPS_LOOKED_AT = 4

/** A fraction in [0, 1) from the name's SHA-256: stable across processes, even across names that differ by one character. */
function fractionOf(name: string): number {
  return createHash('sha256').update(name).digest().readUInt32BE(0) / 2 ** 32
}

/** The shortest gap (ms) between the schedule's next GAPS_LOOKED_AT + 1 slots after `from`. */
export function shortestGapMs(schedule: string, timeZone: string, from: Date): number {
  let previous = nextFireTime(schedule, from, timeZone)
  let shortest = Number.POSITIVE_INFINITY
  for (let i = 0; i < GAPS_LOOKED_AT; i++) {
    const next = nextFireTime(schedule, previous, timeZone)
    shortest = Math.min(shortest, next.getTime() - previous.getTime())
    previous = next
  }
  return shortest
}

/**
 * The offset (whole ms) after each slot at which the pass of the net named `name` starts: in
 * [0, min(SPREAD_FRACTION × the shortest gap, SPREAD_MAX_MS)).
 */
export function slotSpreadMs(name: string, schedule: string, timeZone: string, from: Date): number {
  const bound = Math.min(SPREAD_FRACTION * shortestGapMs(schedule, timeZone, from), SPREAD_MAX_MS)
  return Math.floor(fractionOf(name) * bound)
}
