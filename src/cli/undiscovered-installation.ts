/**
 * Under GITHUB_INSTALLATION_IDS=all a command takes `<net>:<installation>` before it knows the App's
 * installations (find-net.ts): reading an installation's history needs no listing, and an uninstalled
 * installation's history is still there. A command that runs a pass (`once`, `backfill`) checks the name
 * against the installations the runtime discovered, so it never claims slots for, or mints a token as, an
 * installation the App does not have.
 *
 * Not the discovery itself (forge/installation-discovery.ts) and not the net lookup (find-net.ts).
 */
import type { NetConfig, WorkerConfig } from '../config/worker-config.js'

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
  const base = net.net.name.slice(0, net.net.name.lastIndexOf(':'))
  const names = discovered.map((id) => `${base}:${id}`).join(', ')
  return (
    `leasecron ${command}: ${net.net.name}: the GitHub App has no active installation ${installation} ` +
    `(GITHUB_INSTALLATION_IDS=all discovered ${discovered.join(', ')} through GET /app/installations); ` +
    `expected one of ${names}`
  )
}
