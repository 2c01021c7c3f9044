/**
 * A configuration value that is not what was expected, in words for an error's "got …": `null`, `the number
 * 3600000`, `an object with keys name`. Not a printer of values in general: strings are named by kind only
 * (a caller that may print one quotes it itself), so that no secret is repeated.
 */
export function describeValue(value: unknown): string {
  if (value === null || value === undefined) return String(value)
  if (typeof value === 'object') return `an object with keys ${Object.keys(value).join(', ') || '(none)'}`
  if (typeof value === 'number') return `the number ${value}`
  return `a ${typeof value}`
}
