/**
 * A term's ticks: one timer at a time, set for the schedule's next slot in the net's zone (nextFireTime);
 * when it fires, the slot served is slotAtOrBefore(now), handed to the one waiting in `next`, which sets the
 * next timer when it asks again. The DST rule of
 * schedule.ts therefore decides both when a pass starts and which slot it claims.
 *
 * Why not node-cron's own ticks (it still validates schedules): probed under fake timers on real change
 * days, node-cron 4.6 in Europe/Berlin never fires `30 2 * * *` on the spring day, fires it in autumn at the
 * second 02:30 (an hour after the first), and skips the first 02:00–02:59 of a quarter-hourly schedule
 * and of `0 * * * *` altogether; on Lord Howe Island it skips the first 01:30–01:59. Deriving the slot from its
 * tick would still lose the spring slot (no tick comes that day), so the timer is the rule's own.
 *
 * With an offset (a net's JITTER, or a per-installation net's spread: slot-spread.ts) each tick comes
 * `offsetMs` after its slot — or 1 ms before the next slot, where a daylight-saving change made the gap
 * shorter than the offset — and serves the newest slot whose start has passed; the slots themselves do not
 * move.
 *
 * What it is not: a catch-up. A timer that fires late (a blocked event loop, a suspended host) serves the
 * latest slot due, as a tick would; the ledger claim refuses a slot already served (`slot-taken`).
 */
import { type Clock, MAX_TIMER_MS, type TimerHandle } from '../lease/clock.js'
import { nextFireTime, type Schedule, slotAtOrBefore } from '../schedule/schedule.js'
import type { NetWindow } from '../config/net-window.js'
import { passStart } from './slot-spread.js'

export interface SlotTickerOptions {
  schedule: Schedule
  timeZone: string
  clock: Clock
  /** How long after each slot its tick comes (ms, below the gap to the next slot's tick); 0 by default. */
  offsetMs?: number
  /** The net's START_AT and END_AT: no tick serves a slot outside them (config/net-window.ts). */
  window?: NetWindow
}

/**
 * A term's ticks, pulled one at a time (`next`): the first is the schedule's next slot after the clock's
 * instant at construction, the term's catch-up serves the ones at or before it.
 */
export class SlotTicker {
  readonly #options: SlotTickerOptions
  readonly #offset: number
  #due: Date
  #timer: TimerHandle | undefined
  #waiting: ((slot: Date | undefined) => void) | undefined
  #stopped = false
  /** The next slot lies past END_AT: the ticks are over (as if stopped). */
  #ended = false

  constructor(options: SlotTickerOptions) {
    this.#options = options
    this.#offset = options.offsetMs ?? 0
    const now = options.clock.now().getTime()
    const startAt = options.window?.startAt?.getTime()
    // Before START_AT the first tick is START_AT's first slot: the one after the instant before it.
    const from = new Date(startAt !== undefined && startAt - 1 > now ? startAt - 1 : now)
    this.#due = this.#dueAfter(nextFireTime(options.schedule, from, options.timeZone))
  }

  /**
   * Waits for the next tick: resolves the slot it serves, or undefined once stopped or past END_AT. One
   * wait at a time.
   */
  next(): Promise<Date | undefined> {
    if (this.#stopped || this.#ended) return Promise.resolve(undefined)
    return new Promise((resolve) => {
      this.#waiting = resolve
      this.#arm()
    })
  }

  /** The instant on the ticks' clock: which slots are due is judged on it. */
  now(): Date {
    return this.#options.clock.now()
  }

  /** Clears the pending timer; a wait in `next` resolves undefined and no tick follows. */
  stop(): void {
    this.#stopped = true
    if (this.#timer !== undefined) this.#options.clock.clearTimeout(this.#timer)
    this.#timer = undefined
    this.#answer(undefined)
  }

  #arm(): void {
    const { clock } = this.#options
    // Node's timers cannot wait past MAX_TIMER_MS: a longer wait wakes early and re-arms for the same slot.
    const delay = Math.min(Math.max(0, this.#due.getTime() - clock.now().getTime()), MAX_TIMER_MS)
    this.#timer = clock.setTimeout(() => this.#fire(), delay)
  }

  #fire(): void {
    this.#timer = undefined
    if (this.#stopped) return
    const { schedule, timeZone, clock } = this.#options
    const now = clock.now()
    // Woken before the slot (a long wait cut short, or a wall clock set back): wait on for it.
    if (now.getTime() < this.#due.getTime()) {
      this.#arm()
      return
    }
    // The slot whose tick this is: the newest whose start (slot + offset, or just before the next slot) has
    // passed. The one at or before now, else the one before it: that one's start came before this slot.
    const newest = slotAtOrBefore(schedule, now, timeZone)
    const slot =
      this.#startOf(newest).getTime() <= now.getTime()
        ? newest
        : slotAtOrBefore(schedule, new Date(newest.getTime() - 1), timeZone)
    this.#due = this.#dueAfter(nextFireTime(schedule, slot, timeZone))
    this.#answer(slot)
  }

  #answer(slot: Date | undefined): void {
    const waiting = this.#waiting
    this.#waiting = undefined
    waiting?.(slot)
  }

  /** When `next`'s tick is due; marks the ticks ended when that slot is past END_AT. */
  #dueAfter(next: Date): Date {
    const endAt = this.#options.window?.endAt
    if (endAt !== undefined && next.getTime() > endAt.getTime()) this.#ended = true
    return this.#startOf(next)
  }

  #startOf(slot: Date): Date {
    return passStart(this.#options.schedule, this.#options.timeZone, slot, this.#offset)
  }
}
