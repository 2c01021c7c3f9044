/**
 * What the lease conformance cases share (store-conformance.ts and the case files it registers): the
 * instant every case starts from, and the grant of an acquire that must succeed.
 */
import type { LeaseGrant, LeaseStore } from '../lease/store.js'

/** The instant every conformance case starts from. */
export const t0 = new Date('2026-09-30T15:00:00.000Z')

/** `ms` after t0. */
export const at = (ms: number): Date => new Date(t0.getTime() + ms)

/** The grant of an acquire that must succeed; fails the test naming the consequence otherwise. */
export async function granted(
  answer: Promise<LeaseGrant | false>,
  what = 'the acquire was refused',
): Promise<LeaseGrant> {
  const grant = await answer
  if (!grant) throw new Error(`${what}: no term to test`)
  return grant
}

/**
 * A fresh store from `makeStore` that has the optional `methods`, or the case skipped saying `why not`
 * (a store of your own need not have them; the worker then does without, as `why not` says).
 */
export async function storeWith<K extends keyof LeaseStore>(
  makeStore: () => LeaseStore | Promise<LeaseStore>,
  methods: readonly K[],
  whyNot: string,
  skip: (note: string) => void,
): Promise<LeaseStore & Required<Pick<LeaseStore, K>>> {
  const store = await makeStore()
  const missing = methods.filter((m) => store[m] === undefined)
  if (missing.length > 0)
    skip(`this store has no ${missing.map((m) => `${String(m)}()`).join('/')}: ${whyNot}`)
  return store as LeaseStore & Required<Pick<LeaseStore, K>>
}
