/**
 * How `once` and `backfill` end when their clock check refuses (term/clock-check.ts): the reason on
 * stderr and exit 75 (EX_TEMPFAIL: nothing was done, for something that passes once the clock is right).
 * Not the check itself.
 */
import { ClockSkewError } from '../term/clock-check.js'
import type { Io } from './io.js'

/** A ClockSkewError said on stderr, resolving its exit code; any other error is rethrown. */
export function clockRefusal(error: unknown, io: Pick<Io, 'err'>): number {
  if (!(error instanceof ClockSkewError)) throw error
  io.err(`leasecron: ${error.message}`)
  return error.exitCode
}
