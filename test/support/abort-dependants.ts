/**
 * How many signals Node keeps on `source` for `AbortSignal.any` (its internal kDependantSignals set): what
 * grows without end on Node 20 when a long-lived signal is combined per call (lease/follow-abort.ts). The
 * probe checks itself first and throws when this Node keeps no such set where it looks, so a test built on
 * it fails rather than passes blind.
 */
function dependantsSymbol(signal: AbortSignal): symbol | undefined {
  return Object.getOwnPropertySymbols(signal).find((s) => s.description === 'kDependantSignals')
}

function sizeOf(signal: AbortSignal): number {
  const symbol = dependantsSymbol(signal)
  const set: { size?: number } | undefined = symbol ? Reflect.get(signal, symbol) : undefined
  return set?.size ?? 0
}

/** The entries `AbortSignal.any` left on `source`; throws when the probe cannot see them on this Node. */
export function anyDependants(source: AbortSignal): number {
  const control = new AbortController()
  // Observed, so that a Node that follows sources only for observed signals still counts it.
  AbortSignal.any([control.signal]).addEventListener('abort', () => undefined)
  if (sizeOf(control.signal) !== 1)
    throw new Error(
      `${process.version} keeps no kDependantSignals the probe can read: it cannot see the leak`,
    )
  return sizeOf(source)
}
