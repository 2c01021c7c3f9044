/**
 * A net's option helper called with bounds or a default it can never honour (`integerOption(5, { min: 10,
 * max: 1 })`, a default outside its bounds, a duration default without a unit): a mistake in the net's
 * code, thrown when the net's module defines the option, so it shows at start-up rather than as an
 * environment value that no setting could satisfy. Not a ConfigError: no variable is wrong.
 */
export class OptionDefinitionError extends Error {
  override readonly name = 'OptionDefinitionError'
  readonly code = 'NET_OPTION_INVALID'
  readonly component = 'nets'
  constructor(
    readonly helper: string,
    problem: string,
  ) {
    super(`${helper}: ${problem}`)
  }
}
