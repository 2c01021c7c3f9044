/**
 * A net's term opened the one way every path opens it — the worker's scheduler, `once`, `backfill`,
 * `runOnePass` — with what `term` returned checked to be the pass function. Not the pass's running
 * (term/slot-pass.ts) nor the set-up before it.
 *
 * TypeScript holds `term` to return a `Pass`; a JavaScript net does not, and an `async term` (a Promise of
 * the pass) ran under `once` and `runOnePass`, which await what they build, while the worker failed every
 * pass with "spec.pass is not a function". Now each path refuses it alike, naming the net and the fix.
 */
import type { Pass } from './net.js'

/** What `term` returned was not the pass function. */
export class NetTermError extends Error {
  override readonly name = 'NetTermError'
  readonly code = 'NET_TERM_NOT_A_PASS'
  readonly component = 'nets'
  constructor(
    readonly net: string,
    returned: string,
  ) {
    super(
      `net "${net}": term() returned ${returned}; expected the pass function, returned at once ` +
        `(term: (resources, context) => async (pass) => { … })` +
        (returned === 'a Promise'
          ? ': an async term returns a Promise of it, so make term itself not async'
          : ''),
    )
  }
}

/** Calls the net's `term` and returns its pass; throws NetTermError when it returned anything else. */
export function openTerm<R, C>(
  net: { name: string; term(resources: R, context: C): Pass },
  resources: R,
  context: C,
): Pass {
  const pass: unknown = net.term(resources, context)
  if (typeof pass === 'function') return pass as Pass
  throw new NetTermError(net.name, describeReturned(pass))
}

function describeReturned(value: unknown): string {
  if (value instanceof Promise) return 'a Promise'
  if (value === null || value === undefined) return String(value)
  return `a ${typeof value}`
}
