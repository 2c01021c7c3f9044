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
 * A net's JITTER (`defineNet({ jitter })`, `LEASECRON_NET_<NET>_JITTER`) takes its place, for any net: the
 * offset is then the same hash's share of JITTER, so it is stable too — the same at every tick, on every
 * replica, in every term and in `once` — where a random jitter (Temporal's, systemd's
 * RandomizedDelaySec) would start a slot at one time at its tick and at another when it is run again.
 * The configuration refuses a JITTER that does not fit below the schedule's shortest gap
 * (net-section.ts), and the ticker starts a pass 1 ms before the next slot where a daylight-saving change
 * shortens one gap below it (slot-ticker.ts).
 *
 * Without JITTER, a global net runs at its slot, as configured.
 */
import { createHash } from 'node:crypto'
import type { NetConfig } from '../config/worker-config.js'
import { nextFireTime, type Schedule, scheduleOf } from '../schedule/schedule.js'

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
export function shortestGapMs(schedule: Schedule, timeZone: string, from: Date): number {
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
export function slotSpreadMs(name: string, schedule: Schedule, timeZone: string, from: Date): number {
  const bound = Math.min(SPREAD_FRACTION * shortestGapMs(schedule, timeZone, from), SPREAD_MAX_MS)
  return Math.floor(fractionOf(name) * bound)
}

/**
 * The offset (whole ms) after each slot at which a net with JITTER `jitterMs` starts its pass: in
 * [0, jitterMs), from the hash of `name` (a per-installation copy's `<net>:<installation>`, so each
 * installation has its own). 0 when `jitterMs` is 0.
 */
export function jitterOffsetMs(name: string, jitterMs: number): number {
  return Math.floor(fractionOf(name) * jitterMs)
}

/**
 * How long after each slot the net's passes start: its JITTER's share when set; else the
 * spread of one installation's copy of a per-installation net (`<net>:<installation>`, under
 * GITHUB_INSTALLATION_IDS), so N installations' passes do not reach the store and the forge at one
 * instant. 0 for a global net without JITTER, and for a per-installation net under GITHUB_INSTALLATION_ID
 * (its plain name: one installation, nothing to spread).
 */
export function passOffsetMs(net: NetConfig, at: Date): number {
  if (net.jitterMs > 0) return jitterOffsetMs(net.definition.name, net.jitterMs)
  const scoped = net.installation !== undefined && net.definition.name.endsWith(`:${net.installation}`)
  if ((net.definition.scope ?? 'global') !== 'installation' || !scoped) return 0
  return slotSpreadMs(net.definition.name, scheduleOf(net), net.timeZone, at)
}

/**
 * When the pass of `slot` starts, `offsetMs` after it: 1 ms before the next slot at the latest, where a
 * daylight-saving change made that gap shorter than the offset, so no slot is passed over.
 */
export function passStart(schedule: Schedule, timeZone: string, slot: Date, offsetMs: number): Date {
  if (offsetMs === 0) return slot
  const nextSlot = nextFireTime(schedule, slot, timeZone).getTime()
  return new Date(Math.min(slot.getTime() + offsetMs, nextSlot - 1))
}

/**
 * When `slot`'s pass starts under the net's JITTER (`net` as the pass acts: a per-installation copy by its
 * own name), as the worker's ticker starts it; the slot itself when the net has no JITTER.
 */
export function jitteredStart(net: NetConfig, slot: Date): Date {
  return passStart(scheduleOf(net), net.timeZone, slot, jitterOffsetMs(net.definition.name, net.jitterMs))
}
