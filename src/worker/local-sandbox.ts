/**
 * The sandbox forge a worker or a `once` process starts in itself when no GitHub App is configured (and
 * the data it seeds). The sandbox's modules load here on demand, so a worker that talks to GitHub never
 * loads them: part of keeping an idle worker's memory small (docs/decisions/0003-load-only-what-a-command-uses.md).
 *
 * Not the shared sandbox of `leasecron sandbox` (cli/sandbox.ts), which outlives any one worker.
 */
import type { ForgeConfig } from '../forge/forge-config.js'
import type { SandboxForge, SandboxForgeOptions } from '../sandbox/sandbox-forge.js'

/** The sandbox's data when a worker starts it: a few repositories with pull requests and issues. */
export const DEMO_SANDBOX_DATA = { repos: 3, pullsPerRepo: 12, issuesPerRepo: 20, seed: 1 } as const

export interface LocalSandbox {
  sandbox: SandboxForge
  /** The forge configuration that points a client at it, as the GitHub App's would. */
  config: ForgeConfig
}

/**
 * Starts a sandbox forge on loopback in this process (seeded with `DEMO_SANDBOX_DATA` unless `options`
 * say otherwise). Rejects as `startSandboxForge` does: an invalid fixture or a port it cannot bind.
 */
export async function startLocalSandbox(options?: SandboxForgeOptions): Promise<LocalSandbox> {
  const { sandboxForgeConfig, startSandboxForge } = await import('../sandbox/sandbox-forge.js')
  const sandbox = await startSandboxForge(options ?? { generate: { ...DEMO_SANDBOX_DATA } })
  return { sandbox, config: sandboxForgeConfig(sandbox) }
}
