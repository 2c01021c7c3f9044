/**
 * `leasecron config`: the effective configuration as JSON, secrets redacted (config/redacted-config.ts),
 * with the global variables the worker reads (the GitHub App's among them) and each net's variable prefix. An invalid configuration
 * never reaches it: the CLI prints every issue and exits 78 first.
 */
import { redactedConfig } from '../config/redacted-config.js'
import { GLOBAL_VARIABLES, netEnvPrefix } from '../config/variables.js'
import { GITHUB_APP_VARIABLES } from '../config/forge-env.js'
import type { CommandContext } from './command.js'
import { EXIT } from './exit-codes.js'
import { localConfigHint } from './local-config-hint.js'

/**
 * Prints the configuration; exit 0, or 78 when the GitHub App's variables are set but `run` and `once`
 * would refuse them (listed under `forge.issues`; this command itself needs no forge, so it still prints).
 * The `--config` hint and that refusal go to stderr: stdout stays JSON.
 */
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
  if (config.forge.kind === 'unchecked' && config.forge.issues.length > 0) {
    // Validating the environment with `leasecron config` must fail where the worker would refuse to start.
    const names = config.forge.issues.map((i) => i.variable).join(', ')
    io.err(
      `leasecron config: run and once would refuse the GitHub App variables (${names}): see forge.issues`,
    )
    return EXIT.config
  }
  return EXIT.ok
}
