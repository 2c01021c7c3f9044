/**
 * Nets against the installations: a net declared `scope: 'one-installation'` (a user's net whose work
 * names no installation; the shipped nets, the merge-gate sweeper included, run per installation) acts as
 * one installation, so it may not run while the worker acts as several, or as every installation (`all`). A fault here is a configuration error (78) naming the net's ENABLED variable and the way out.
 */
import type { ForgeChoice, NetConfig } from './worker-config.js'
import type { EnvReader } from './env-reader.js'
import { netEnvPrefix } from './variables.js'

/** Pushes one issue per enabled one-installation net when the forge acts as more than one installation. */
export function checkNetScopes(r: EnvReader, forge: ForgeChoice, nets: readonly NetConfig[]): void {
  if (forge.kind !== 'github') return
  const set = forge.installations
  const several = set.kind === 'all' || (set.kind === 'list' && set.ids.length > 1)
  if (!several) return
  const acting =
    set.kind === 'all'
      ? 'every installation (`all`)'
      : `${set.kind === 'list' ? set.ids.length : 1} installations`
  for (const n of nets) {
    if (!n.enabled || n.definition.scope !== 'one-installation') continue
    r.issues.push({
      variable: `${netEnvPrefix(n.definition.name)}ENABLED`,
      expected: `false while GITHUB_INSTALLATION_IDS names ${acting}: net "${n.definition.name}" acts as one installation and its work names repositories of any installation, which it must not act on as the wrong one — disable it here and run it in a deployment with GITHUB_INSTALLATION_ID`,
    })
  }
}
