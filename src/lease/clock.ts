/**
 * The one place the campaign reads time and sets timers, so tests can drive it (fake timers, or a clock
 * of their own with a skewed wall time). Wall time stamps store calls; monotonic time measures deadlines.
 */

/** Node's timers cannot wait longer than this; a longer delay fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1

export type TimerHandle = { readonly __timer: unique symbol } | ReturnType<typeof setTimeout>

export interface Clock {
  /** Wall-clock instant, as sent to the store. */
  now(): Date
  /** Monotonic milliseconds (performance.now() scale); only differences mean anything. */
  monotonic(): number
  setTimeout(fn: () => void, ms: number): TimerHandle
  clearTimeout(handle: TimerHandle): void
}

/** The process clock. Each method reads the global at call time, so fake timers installed later apply. */
export const systemClock: Clock = {
  now: () => new Date(),
  monotonic: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
}
