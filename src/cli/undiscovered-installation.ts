/**
 * Under GITHUB_INSTALLATION_IDS=all a command takes `<net>:<installation>` before it knows the App's
 * installations (find-net.ts): reading an installation's history needs no listing, and an uninstalled
 * installation's history is still there. A command that runs a pass (`once`, `backfill`) checks the name
 * against the installations the runtime discovered, so it never claims slots for, or mints a token as, an
 * installation the App does not have. A command that writes a net's controls (`pause`, `resume`) opens no
 * pass runtime: it lists the App's installations itself, only when the name carries an installation under
 * `all`, so it never pauses a net no replica runs while saying it did.
 *
 * Not the discovery itself (forge/installations/installation-discovery.ts) and not the net lookup (find-net.ts).
 */
import type { NetConfig, WorkerConfig } from '../config/worker-config.js'
import type { ForgeAppConfig } from '../forge/forge-config.js'
import { createLogger } from '../observe/logger.js'

/** How long `pause`/`resume` wait for GitHub's list of the App's installations. */
const LISTING_BOUND_MS = 10_000

/**
 * Why `net` may not run: under `all`, its installation is not one the App lists (active) now; undefined
 * otherwise. The message names the installation, the discovered ones and the names that would run.
 */
export function undiscoveredInstallation(
  command: string,
  net: NetConfig,
  config: WorkerConfig,
  discovered: readonly number[],
): string | undefined {
  const forge = config.forge
  if (forge.kind !== 'github' || forge.installations.kind !== 'all') return undefined
  const installation = net.installation
  if (installation === undefined || discovered.includes(installation)) return undefined
  const base = net.definition.name.slice(0, net.definition.name.lastIndexOf(':'))
  const names = discovered.map((id) => `${base}:${id}`).join(', ')
  return (
    `leasecron ${command}: ${net.definition.name}: the GitHub App has no active installation ${installation} ` +
    `(GITHUB_INSTALLATION_IDS=all discovered ${discovered.join(', ')} through GET /app/installations); ` +
    `expected one of ${names}`
  )
}

/**
 * For `pause` and `resume`: under `all`, lists the App's installations now (GET /app/installations,
 * bounded) and says why `net` may not be named, as undiscoveredInstallation does; undefined when it may
 * or when there is nothing to check. When GitHub does not answer, `warn` says the check was not made and
 * the command goes on: pausing must still work while GitHub is down, and a control written for an
 * installation no replica acts as changes nothing.
 */
export async function undiscoveredInstallationNow(
  command: string,
  net: NetConfig,
  config: WorkerConfig,
  warn: (line: string) => void,
): Promise<string | undefined> {
  const forge = config.forge
  if (forge.kind !== 'github' || forge.installations.kind !== 'all' || net.installation === undefined)
    return undefined
  let discovered: number[]
  try {
    discovered = await listAppInstallations(forge.app, AbortSignal.timeout(LISTING_BOUND_MS))
  } catch (error) {
    warn(
      `leasecron ${command}: ${net.definition.name}: could not check installation ${net.installation} against the ` +
        `App's installations (${error instanceof Error ? error.message : String(error)}); going on as named`,
    )
    return undefined
  }
  return undiscoveredInstallation(command, net, config, discovered)
}

/** The App's active installations, through a client of its own closed after the one listing. */
async function listAppInstallations(app: ForgeAppConfig, signal: AbortSignal): Promise<number[]> {
  // Loaded here: pause and resume load the forge client only when there is an installation to check.
  const [{ createAppForge, createForgeMeter }, { discoverInstallations }] = await Promise.all([
    import('../worker/forge-kit.js'),
    import('../forge/installations/installation-discovery.js'),
  ])
  const logger = createLogger({ level: 'silent' })
  const appForge = createAppForge({ app, logger, meter: createForgeMeter({ logger }), signal })
  try {
    return await discoverInstallations(appForge.octokit, signal)
  } finally {
    await appForge.close()
  }
}
