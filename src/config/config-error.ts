/**
 * How a rejected configuration is reported: one issue per variable, all of them in one error, so a
 * deployment is fixed in one round. The error's message is scrubbed (scrub.ts) like everything that
 * leaves the process.
 */
import { scrubSecrets } from './scrub.js'

/** One problem with one variable. `value` is omitted for secrets. */
export interface ConfigIssue {
  variable: string
  expected: string
  value?: string
  /** What the value most likely meant (`did you mean skip?`), when a near one is known. */
  hint?: string
}

/** The configuration was rejected; the process must exit 78 without starting anything. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError'
  readonly code = 'CONFIG_INVALID'
  readonly exitCode = 78
  constructor(readonly issues: ConfigIssue[]) {
    super(
      scrubSecrets(
        `invalid configuration (${issues.length} problem${issues.length === 1 ? '' : 's'}):\n${issues
          .map(
            (i) =>
              `  ${i.variable}: expected ${i.expected}${i.value === undefined ? '' : `, got ${JSON.stringify(i.value)}`}${i.hint === undefined ? '' : ` — ${i.hint}`}`,
          )
          .join('\n')}`,
      ),
    )
  }
}
