/**
 * What the lease conformance cases share (store-conformance.ts and the case files it registers): the
 * instant every case starts from, and the grant of an acquire that must succeed.
 */
import type { LeaseGrant } from '../lease/store.js'

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
