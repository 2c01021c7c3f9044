/**
 * Fault injection by wrapping a real LeaseStore: every call still reaches the real store unless the fault
 * says the request never arrived. Faults are chosen per call by a function the test controls.
 */
import type {
  AcquireOptions,
  LeaseCallOptions,
  LeaseGrant,
  LeaseRecord,
  LeaseStore,
  LeaseTerm,
} from '../../src/index.js'

export type StoreOp = 'acquire' | 'renew' | 'release' | 'list' | 'get'

export type Fault =
  | { kind: 'pass' }
  /** The request reaches the store after `ms`. */
  | { kind: 'delay-request'; ms: number }
  /** The store answers at once, the answer arrives `ms` later. */
  | { kind: 'delay-answer'; ms: number }
  /** The write lands, the answer never arrives (rejects only when the caller's signal aborts). */
  | { kind: 'lose-answer' }
  /** The request never arrives and no answer comes (rejects only when the caller's signal aborts). */
  | { kind: 'hang' }
  /** The call fails at once without reaching the store. */
  | { kind: 'fail' }
  /** The store refuses: acquire/renew answer false without reaching the store. */
  | { kind: 'refuse' }

export interface CallRecord {
  op: StoreOp
  name: string
  owner: string
  fault: Fault['kind']
  outcome?: 'answered' | 'rejected'
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

/** A LeaseStore that applies `faultFor(op, owner)` to every call and records what happened. */
export class FaultyStore implements LeaseStore {
  readonly calls: CallRecord[] = []
  constructor(
    readonly inner: LeaseStore,
    public faultFor: (op: StoreOp, owner: string) => Fault = () => ({ kind: 'pass' }),
  ) {}

  acquire(
    name: string,
    owner: string,
    now: Date,
    ttlMs: number,
    options?: AcquireOptions,
  ): Promise<LeaseGrant | false> {
    const token = options?.token
    return this.#apply('acquire', name, owner, options, false, () =>
      this.inner.acquire(name, owner, now, ttlMs, token === undefined ? {} : { token }),
    )
  }
  renew(grant: LeaseTerm, now: Date, ttlMs: number, options?: LeaseCallOptions): Promise<boolean> {
    return this.#apply('renew', grant.name, grant.owner, options, false, () =>
      this.inner.renew(grant, now, ttlMs),
    )
  }
  release(grant: LeaseTerm, options?: LeaseCallOptions): Promise<void> {
    return this.#apply('release', grant.name, grant.owner, options, undefined, () =>
      this.inner.release(grant),
    )
  }
  list(options?: LeaseCallOptions): Promise<LeaseRecord[]> {
    return this.#apply('list', '', '', options, [], () => this.inner.list())
  }
  get(name: string, options?: LeaseCallOptions): Promise<LeaseRecord | undefined> {
    return this.#apply('get', name, '', options, undefined, () => this.inner.get(name))
  }

  async #apply<T>(
    op: StoreOp,
    name: string,
    owner: string,
    options: LeaseCallOptions | undefined,
    refused: T,
    call: () => Promise<T>,
  ): Promise<T> {
    const fault = this.faultFor(op, owner)
    const record: CallRecord = { op, name, owner, fault: fault.kind }
    this.calls.push(record)
    if (options?.signal?.aborted) {
      record.outcome = 'rejected'
      throw new Error(`${op} aborted before it was sent`)
    }
    const untilAborted = () =>
      new Promise<never>((_, reject) => {
        options?.signal?.addEventListener('abort', () => reject(new Error(`${op}: no answer (aborted)`)), {
          once: true,
        })
      })
    try {
      let result: T
      switch (fault.kind) {
        case 'pass':
          result = await call()
          break
        case 'delay-request':
          await Promise.race([sleep(fault.ms), untilAborted()])
          result = await call()
          break
        case 'delay-answer': {
          const answer = call()
          answer.catch(() => undefined)
          await Promise.race([sleep(fault.ms), untilAborted()])
          result = await answer
          break
        }
        case 'lose-answer':
          await call().catch(() => undefined)
          return await untilAborted()
        case 'hang':
          return await untilAborted()
        case 'fail':
          throw new Error(`${op}: injected failure`)
        case 'refuse':
          result = refused
          break
      }
      record.outcome = 'answered'
      return result
    } catch (error) {
      record.outcome = 'rejected'
      throw error
    }
  }
}
