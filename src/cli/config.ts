/**
 * `leasecron config`: the effective configuration as JSON, secrets redacted (config/redacted-config.ts),
 * with the global variables the worker reads (the GitHub App's among them) and each net's variable prefix. An invalid configuration
 * never reaches it: the CLI prints every issue and exits 78 first.
 */
import { redactedConfig } from '../config/redacted-config.js'
import { GLOBAL_VARIABLES, netEnvPrefix } from '../config/variables.js'
import { GITHUB_APP_VARIABLES } from '../forge/forge-config.js'
import type { CommandContext } from './command.js'
import { EXIT } from './exit-codes.js'
import { localConfigHint } from './local-config-hint.js'

/** Prints the configuration; exit 0. The `--config` hint, if any, goes to stderr: stdout stays JSON. */
export async function configCommand({ file, config, values, io }: CommandContext): Promise<number> {
  const hint = localConfigHint(values.config)
  if (hint) io.err(`leasecron config: ${hint}`)
  io.out(
    JSON.stringify(
      {
        ...redactedConfig(config),
        // The App's too: they choose GitHub over the sandbox, so a list without them misleads.
        variables: [...GLOBAL_VARIABLES.map(([name]) => name), ...GITHUB_APP_VARIABLES, 'GITHUB_API_URL'],
        netPrefixes: file.nets.map((n) => netEnvPrefix(n.name)),
      },
      null,
      2,
    ),
  )
  return EXIT.ok
}
