/**
 * The worker's configuration, read from the environment and validated with zod before anything starts.
 *
 * Every invalid variable is reported at once — its name, what was expected and the value unless it is a
 * secret — so a deployment is fixed in one round, and the process exits with code 78 (EX_CONFIG) rather
 * than crash-looping. Every unknown `LEASECRON_*` variable is an error: a typo must not silently leave the
 * worker or a net on its defaults. One parser per section (store, process, forge, nets; each in its own
 * file) feeds one list of issues (env-reader.ts).
 */
import type { LeaseDefinition } from '../leases.js'
import type { NetDefinition } from '../nets/net.js'
import type { ConfigIssue } from './config-error.js'
import { envReader } from './env-reader.js'
import { readForge, readForgeCacheMb, readForgeReserve, readInstallationsRefresh } from './forge-section.js'
import { readNet } from './net-section.js'
import { readReplicas } from './replica-section.js'
import { readAdminToken, readProcess, readRunHistory, readStatusPage } from './process-section.js'
import { checkRegistry } from './registry-check.js'
import { netDefinitionIssues } from './net-definition-check.js'
import { checkNetScopes } from './scope-check.js'
import { rememberSecrets } from './scrub.js'
import { readStore } from './store-section.js'
import { refuseUnknownVariables } from './typo-hints.js'
import { netEnvPrefix } from './variables.js'
import type { LoadConfigOptions, WorkerConfig } from './worker-config.js'

/**
 * Reads the configuration from `env` for the given nets and lease registry. Returns every problem at
 * once; never throws for bad input (a net's invalid schedule in the configuration module is a problem too).
 * Remembers the secret variables' values for scrub.ts, so nothing printed afterwards carries them.
 */
export function loadConfig(
  env: NodeJS.ProcessEnv,
  nets: readonly NetDefinition[],
  leases: readonly LeaseDefinition[],
  options: LoadConfigOptions = {},
): { ok: true; config: WorkerConfig } | { ok: false; issues: ConfigIssue[] } {
  // Before anything reads a net's fields (its options' secrets first): a malformed one is named, not a TypeError.
  const shapeIssues = netDefinitionIssues(nets)
  if (shapeIssues.length > 0) return { ok: false, issues: shapeIssues }
  // Before anything can print a value: every later line, error and ledger entry is scrubbed of these.
  rememberSecrets(env, secretOptionVariables(nets))
  const reader = envReader(env)
  const mongo = readStore(reader)
  const process_ = readProcess(reader)
  const forge = readForge(reader, options.needsForge ?? true)
  const runHistory = readRunHistory(reader)
  const statusPage = readStatusPage(reader)
  const adminToken = readAdminToken(reader)
  const forgeCacheMb = readForgeCacheMb(reader)
  const replicas = readReplicas(reader)
  const forgeReserve = readForgeReserve(reader)
  const installationsRefreshMs = readInstallationsRefresh(reader)
  const known = new Set<string>()
  const netConfigs = nets.map((net) => readNet(reader, net, known))
  refuseUnknownVariables(reader, nets, known)
  checkRegistry(reader, nets, leases)
  checkNetScopes(reader, forge, netConfigs)
  if (reader.issues.length > 0) return { ok: false, issues: reader.issues }
  return {
    ok: true,
    config: {
      mongo,
      ...process_,
      forge,
      forgeCacheMb,
      forgeReserve,
      installationsRefreshMs,
      runHistory,
      statusPage,
      adminToken,
      replicas,
      nets: netConfigs,
    },
  }
}

/** The variables of the nets' options marked secret, whose values must never leave the process. */
function secretOptionVariables(nets: readonly NetDefinition[]): string[] {
  return nets.flatMap((net) =>
    Object.entries(net.options)
      .filter(([, option]) => option.secret)
      .map(([suffix]) => netEnvPrefix(net.name) + suffix),
  )
}
