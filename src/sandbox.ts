/**
 * `leasecron/sandbox`: the sandbox forge — a local HTTP server that answers the GitHub REST routes the
 * nets use as GitHub's published description says, with a GitHub App's authentication, rate-limit
 * headers, conditional requests and an admin API — for tests, demos and benchmarks of nets.
 *
 * Not a GitHub replacement: it binds loopback and has no real security. Its own entry (not in
 * `leasecron`) so that a worker that talks to GitHub never loads it.
 *
 * ```ts
 * import { createForge } from 'leasecron'
 * import { sandboxForgeConfig, startSandboxForge } from 'leasecron/sandbox'
 *
 * const sandbox = await startSandboxForge({ generate: { repos: 2, pullsPerRepo: 3, issuesPerRepo: 5, seed: 1 } })
 * const forge = createForge({ config: sandboxForgeConfig(sandbox), logger: console })
 * // … run a net's pass against `forge`, then read what it did: sandbox.stats(), sandbox.admin
 * await forge.close()
 * await sandbox.close()
 * ```
 */
export {
  startSandboxForge,
  sandboxForgeConfig,
  type SandboxForge,
  type SandboxForgeOptions,
} from './sandbox/sandbox-forge.js'
export { createSandboxAdmin, SandboxAdminError, type SandboxAdmin } from './sandbox/sandbox-admin.js'
export type {
  SandboxInstallation,
  SandboxInstallationInput,
  SandboxInstallations,
} from './sandbox/sandbox-installations.js'
export type { SandboxStatsSnapshot, SandboxStatsEntry } from './sandbox/sandbox-stats.js'
export { generateSandboxFixture, type SandboxGeneratorOptions } from './sandbox/sandbox-generator.js'
export {
  loadSandboxFixture,
  parseSandboxFixture,
  type SandboxFixtureInput,
} from './sandbox/sandbox-fixture.js'
export { SandboxError } from './sandbox/sandbox-error.js'
