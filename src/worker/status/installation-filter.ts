/**
 * The installation filter's text, as `?installation=12` on `/status` and the page and
 * `leasecron status --installation 12` give it: one installation id (digits, a positive safe integer).
 * Bad text is an InstallationFilterError naming what was given and what was expected; the HTTP route
 * answers it 400, the CLI exits 64.
 *
 * Not the filtering itself (installation-summary.ts) and not GITHUB_INSTALLATION_IDS (forge/installations/installation-set.ts).
 */

export type InstallationFilterErrorCode = 'INSTALLATION_FILTER_INVALID'

export class InstallationFilterError extends Error {
  override readonly name = 'InstallationFilterError'
  readonly code: InstallationFilterErrorCode = 'INSTALLATION_FILTER_INVALID'

  /** @param given every value given (a repeated filter is refused too). */
  constructor(readonly given: readonly string[]) {
    super(
      `expected one installation id (a positive integer, digits only, e.g. 12); got ${given.map((g) => JSON.stringify(g)).join(', ')}`,
    )
  }
}

const DIGITS = /^[0-9]{1,15}$/

/** The installation `given` names; `null` when none is given. Throws InstallationFilterError otherwise. */
export function parseInstallationFilter(given: readonly string[]): number | null {
  if (given.length === 0) return null
  const text = given.length === 1 ? given[0]!.trim() : ''
  const id = DIGITS.test(text) ? Number(text) : Number.NaN
  if (!(Number.isSafeInteger(id) && id > 0)) throw new InstallationFilterError(given)
  return id
}
