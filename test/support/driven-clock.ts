/**
 * A Clock the test drives: its wall and monotonic time stand still until the test moves them, and its
 * timers fire only when the test says. Unlike fake timers it leaves the process's own timers and Date alone,
 * so a real Mongo driver (its socket and its own timeouts) works while the scheduler's time is frozen.
 */
import type { Clock, TimerHandle } from '../../src/lease/clock.js'

interface Timer {
  id: number
  at: number
  fn: () => void
  handle: TimerHandle
}

export class DrivenClock implements Clock {
  #wall: number
  #mono = 1_000_000
  #next = 1
  readonly #timers: Timer[] = []

  constructor(wall: string) {
    this.#wall = Date.parse(wall)
  }

  now(): Date {
    return new Date(this.#wall)
  }

  monotonic(): number {
    return this.#mono
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    // Any object serves as a handle: only this clock reads it back.
    const handle = Object.freeze({}) as TimerHandle
    this.#timers.push({ id: this.#next++, at: this.#mono + Math.max(0, ms), fn, handle })
    return handle
  }

  clearTimeout(handle: TimerHandle): void {
    const index = this.#timers.findIndex((t) => t.handle === handle)
    if (index >= 0) this.#timers.splice(index, 1)
  }

  /** Moves monotonic time (and wall time, unless `wall` is false) ahead with no timer firing: a stall. */
  jump(ms: number, { wall = true } = {}): void {
    this.#mono += ms
    if (wall) this.#wall += ms
  }

  /** Fires every timer due by now, in order (a timer set meanwhile and due fires too). */
  fireDue(): void {
    for (;;) {
      this.#timers.sort((a, b) => a.at - b.at || a.id - b.id)
      const due = this.#timers[0]
      if (!due || due.at > this.#mono) return
      this.#timers.shift()
      due.fn()
    }
  }
}
