/**
 * The error the forge raises for a configuration it cannot use. Names each variable and what was
 * expected; never carries a private key's content, so it is safe to log whole.
 */

/** One problem with one variable. `value` is present only for variables that are not secrets. */
export interface ForgeEnvIssue {
  variable: string
  expected: string
  value?: string
}

/** A forge configuration was rejected; `issues` lists every variable at fault. */
export class ForgeConfigError extends Error {
  override readonly name = 'ForgeConfigError'
  readonly code = 'FORGE_CONFIG_INVALID'
  readonly issues: ForgeEnvIssue[]

  constructor(operation: string, issues: ForgeEnvIssue[], options?: { cause?: unknown }) {
    const list = issues
      .map(
        (i) =>
          `${i.variable}: expected ${i.expected}${i.value === undefined ? '' : `, got ${JSON.stringify(i.value)}`}`,
      )
      .join('; ')
    super(`forge ${operation}: invalid configuration — ${list}`, options)
    this.issues = issues
  }
}
