/**
 * The replica's poll of its nets' controls: every CONTROL_POLL_MS, one read (NetControlStore.getMany) of
 * the controls of every net whose holder waits for its next notice (holder-controls.ts) — so a replica
 * holding a thousand nets reads their run-now, catch-up and `pause --abort` requests in one call per
 * interval, not a thousand. A net waits at most one interval and one read, as with a read of its own.
 *
 * A round reads only the nets waiting when it starts; a net that starts waiting during a read waits for
 * the next round. With no net waiting, no timer runs and nothing is read. A read that fails is every
 * waiting net's failure (each holder logs it and runs as scheduled: fail open, holder-controls.ts).
 *
 * The tick's pause check (`read`) is not a round: each slot reads its own net's controls when it falls
 * due, so a pause takes effect at the next slot. But the nets whose slots fall due together (a thousand
 * every-minute nets at the turn of the minute) are read together: the checks asked within
 * TICK_READ_WINDOW_MS of one another go in one getMany.
 *
 * What it is not: a cache. Every answer comes from a read made after it was asked for.
 */
import type { Clock } from '../lease/clock.js'
import { waitFor } from '../lease/wait.js'
import { MAX_NETS_PER_READ, type NetControl, type NetControlStore } from '../control/net-control-store.js'
import { callBoundSignal } from './term-call-bound.js'

/** How often a holder's net's controls are read between ticks (a run-now request waits at most this). */
export const CONTROL_POLL_MS = 5_000

/**
 * The poll's interval when the lease store tells holders of control changes (LeaseStore.notify, heard at
 * the next renewal, which `wake`s the poll): only a fallback then, for a control written without a
 * notice (an older leasecron, a notice that failed, a hand edit).
 */
export const NOTICED_CONTROL_POLL_MS = 60_000

/**
 * How long a tick's pause check waits for other nets' before its read goes (renewal-batch.ts's idea): a
 * thousand nets' ticks take longer than 10 ms to reach their checks on one core, so 10 ms made about ten
 * reads a minute of them (issue #39); a pass waits at most this.
 */
export const TICK_READ_WINDOW_MS = 50

/** One net's wait for the next round: its answer, or the read's error. */
interface Waiter {
  net: string
  /** The bound of the holder's own store calls (its term's): the round's read takes the smallest. */
  boundMs: number
  settle(answer: { control: NetControl } | { error: unknown } | undefined): void
}

export class ControlPoll {
  readonly #controls: NetControlStore
  readonly #clock: Clock
  readonly #pollMs: number
  readonly #waiting = new Set<Waiter>()
  /** Ends the round's wait when no net waits any more, so no timer outlives the terms. */
  #round: AbortController | undefined
  /** A notice came (`wake`): the next round reads at once. */
  #woken = false
  /** The tick checks asked within the current window, read together when it closes. */
  #asked: Waiter[] | undefined

  constructor(controls: NetControlStore, clock: Clock, pollMs = CONTROL_POLL_MS) {
    this.#controls = controls
    this.#clock = clock
    this.#pollMs = pollMs
  }

  /**
   * Waits for the next round to read `net`'s controls, and answers them. Rejects with the read's error
   * when the round's read failed; resolves undefined once `serving` aborts (the term ended).
   */
  next(net: string, serving: AbortSignal, boundMs: number): Promise<NetControl | undefined> {
    if (serving.aborted) return Promise.resolve(undefined)
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        net,
        boundMs,
        settle: (answer) => {
          serving.removeEventListener('abort', onAbort)
          this.#waiting.delete(waiter)
          if (answer === undefined) resolve(undefined)
          else if ('error' in answer) reject(answer.error)
          else resolve(answer.control)
        },
      }
      const onAbort = () => {
        waiter.settle(undefined)
        if (this.#waiting.size === 0) this.#round?.abort()
      }
      serving.addEventListener('abort', onAbort, { once: true })
      this.#waiting.add(waiter)
      if (!this.#round) void this.#run()
    })
  }

  /**
   * Reads `net`'s controls now, in one getMany with the other nets' asked within TICK_READ_WINDOW_MS:
   * a slot's pause check. Rejects with the read's error (the holder fails open, holder-controls.ts), and
   * with `serving`'s reason at once when the term ends meanwhile.
   */
  read(net: string, boundMs: number, serving: AbortSignal): Promise<NetControl> {
    if (serving.aborted) return Promise.reject(serving.reason)
    return new Promise((resolve, reject) => {
      // The term's end answers at once (as an error: the holder says nothing then), the read goes on.
      const onAbort = () => reject(serving.reason)
      serving.addEventListener('abort', onAbort, { once: true })
      const settle: Waiter['settle'] = (answer) => {
        serving.removeEventListener('abort', onAbort)
        if (answer && 'error' in answer) reject(answer.error)
        else resolve(answer?.control ?? { net })
      }
      if (!this.#asked) {
        const asked: Waiter[] = []
        this.#asked = asked
        this.#clock.setTimeout(() => {
          this.#asked = undefined
          void this.#read(asked)
        }, TICK_READ_WINDOW_MS)
      }
      this.#asked.push({ net, boundMs, settle })
    })
  }

  /**
   * Reads the waiting nets' controls now rather than at the end of the interval: a renewal heard a notice
   * (an operator wrote a control). Nothing when no net waits (a term reads its controls as it starts).
   */
  wake(): void {
    if (this.#waiting.size === 0) return
    this.#woken = true
    this.#round?.abort()
  }

  /** Rounds while nets wait: wait the interval (or a `wake`), then read the nets waiting then. */
  async #run(): Promise<void> {
    while (this.#waiting.size > 0) {
      if (!this.#woken) {
        const round = new AbortController()
        this.#round = round
        const waited = await waitFor(this.#pollMs, round.signal, this.#clock)
        if (!waited && !this.#woken) continue
      }
      this.#woken = false
      await this.#read([...this.#waiting])
    }
    this.#round = undefined
  }

  /** Reads `waiters`' nets, at most MAX_NETS_PER_READ to a call, and answers each. Never rejects. */
  async #read(waiters: Waiter[]): Promise<void> {
    const boundMs = Math.min(...waiters.map((w) => w.boundMs))
    const nets = [...new Set(waiters.map((w) => w.net))]
    const byNet = new Map<string, NetControl>()
    try {
      for (let from = 0; from < nets.length; from += MAX_NETS_PER_READ) {
        const part = nets.slice(from, from + MAX_NETS_PER_READ)
        const signal = callBoundSignal(boundMs)
        const read = await this.#controls.getMany(part, this.#clock.now(), { signal })
        for (const control of read) byNet.set(control.net, control)
      }
    } catch (error) {
      for (const waiter of waiters) waiter.settle({ error })
      return
    }
    for (const waiter of waiters) waiter.settle({ control: byNet.get(waiter.net) ?? { net: waiter.net } })
  }
}
