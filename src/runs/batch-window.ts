/**
 * A batch window: calls of one kind that arrive within a short window wait together, then go to the
 * store in one send, and each caller gets its own item's answer back (ledger-batch.ts holds one window
 * for claims and one for finishes).
 *
 * What it is not: a queue or a retry. The window opens with its first call and closes after `windowMs`
 * (timed on the Clock, so tests drive it), or at once when `max` calls have joined; a call arriving later
 * opens the next window. A caller whose signal aborts leaves: before the send it is taken out of the batch,
 * after it its answer is dropped (the write may still land, as a direct call's would); either way it
 * rejects at once with the error `aborted` builds.
 */
import type { Clock, TimerHandle } from '../lease/clock.js'
import type { RunBatchAnswer } from './run-ledger.js'
import { RunLedgerError } from './run-ledger-error.js'

/** Sends a closed window's items in one call: one answer each, in their order. */
export type BatchSend<T> = (items: T[]) => Promise<RunBatchAnswer[]>

/** How a waiting caller's abort is rejected: `detail` says whether it was sent. */
export type AbortedError = (detail: string, reason: unknown) => unknown

interface Waiting<T> {
  item: T
  settle(answer: RunBatchAnswer): void
}

export interface BatchWindowOptions<T> {
  send: BatchSend<T>
  clock: Clock
  /** How long a window stays open after its first call (ms). */
  windowMs: number
  /** The most calls one send carries; a full window goes at once. */
  max: number
}

/** See the module's doc. */
export class BatchWindow<T> {
  readonly #options: BatchWindowOptions<T>
  #open: Set<Waiting<T>> | undefined
  #timer: TimerHandle | undefined

  constructor(options: BatchWindowOptions<T>) {
    this.#options = options
  }

  /** Waits in the open window with `item`; resolves or rejects as its item's answer (see the module's doc). */
  join(item: T, signal: AbortSignal | undefined, aborted: AbortedError): Promise<boolean> {
    if (signal?.aborted)
      return Promise.reject(aborted('the call was aborted before it was sent', signal.reason))
    return new Promise<boolean>((resolve, reject) => {
      const batch = this.#batch()
      const onAbort = () => {
        const waiting = batch.delete(entry)
        reject(
          aborted(
            `the call was aborted before ${waiting ? 'it was sent' : 'its answer arrived'}`,
            signal?.reason,
          ),
        )
      }
      const entry: Waiting<T> = {
        item,
        settle: (answer) => {
          signal?.removeEventListener('abort', onAbort)
          if (answer.status === 'fulfilled') resolve(answer.value)
          else reject(answer.reason)
        },
      }
      batch.add(entry)
      signal?.addEventListener('abort', onAbort, { once: true })
      if (batch.size >= this.#options.max) void this.#flush()
    })
  }

  #batch(): Set<Waiting<T>> {
    if (this.#open) return this.#open
    const batch = new Set<Waiting<T>>()
    this.#open = batch
    this.#timer = this.#options.clock.setTimeout(() => void this.#flush(), this.#options.windowMs)
    return batch
  }

  /** Closes the open window and sends its items; answers each caller still waiting. */
  async #flush(): Promise<void> {
    const batch = this.#open
    this.#open = undefined
    if (this.#timer !== undefined) this.#options.clock.clearTimeout(this.#timer)
    this.#timer = undefined
    const waiting = [...(batch ?? [])]
    // Taken out now: an abort from here on finds its caller sent (batch.delete answers false).
    batch?.clear()
    if (waiting.length === 0) return
    try {
      const answers = await this.#options.send(waiting.map((w) => w.item))
      for (const [i, w] of waiting.entries()) w.settle(answers[i] ?? unanswered())
    } catch (error) {
      for (const w of waiting) w.settle({ status: 'rejected', reason: error })
    }
  }
}

/** The answer of a call the ledger's batch method left out (a ledger breaking its contract). */
function unanswered(): RunBatchAnswer {
  const context = { component: 'ledger-batch', operation: 'batch' }
  const reason = new RunLedgerError('RUN_LEDGER_FAILED', context, 'the ledger answered fewer calls than sent')
  return { status: 'rejected', reason }
}
