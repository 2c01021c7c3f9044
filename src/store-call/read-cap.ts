/**
 * The count bound of one store read that a writer or bad data could grow without limit (live replicas,
 * board cards, forge hours): each twin takes its cap as an option (smaller in tests) and checks it here,
 * so every store refuses a bad cap the same way. Not the cap itself: each store's contract names its own.
 */

/**
 * `value` when it is a whole number ≥ 1, `fallback` when it is undefined; otherwise a RangeError naming the
 * component, the option and what it got (a cap of 0 or 1.5 would read nothing, or throw at the driver).
 */
export function checkReadCap(component: string, option: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1)
    throw new RangeError(`${component}: ${option} must be a whole number ≥ 1, got ${String(value)}`)
  return value
}
