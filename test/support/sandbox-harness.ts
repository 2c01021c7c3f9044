/**
 * The one sandbox harness of the tests: a sandbox forge plus a real forge client authenticated against it,
 * for tests that must go over HTTP (never a stubbed Octokit). `requests()` reads the sandbox's own ground
 * truth, by route; `log` holds what the forge logged. Test support, not a test.
 */
import { createForge, type Forge, type ForgeOptions } from '../../src/forge/client/github-app.js'
import {
  type SandboxForge,
  type SandboxForgeOptions,
  sandboxForgeConfig,
  startSandboxForge,
} from '../../src/sandbox/sandbox-forge.js'
import { captureLogs, type LogCapture } from './log-capture.js'

export interface SandboxHarnessOptions extends SandboxForgeOptions {
  /** How the forge client is built; no retries and the harness's log capture unless given. */
  forge?: Partial<Omit<ForgeOptions, 'config'>>
  /** Sends `GET /rate_limit` first so the token is minted and the counts start clean; true by default. */
  warm?: boolean
}

export interface SandboxHarness {
  sandbox: SandboxForge
  forge: Forge
  /** What the forge (and every other one of this harness) logged. */
  log: LogCapture
  /** Another client of the same installation, as a second replica would have. */
  secondForge(): Forge
  /** Forge requests the sandbox received since the last `reset`, as `route → count` (token mints left out). */
  requests(): Record<string, number>
  /** Forgets the counts. */
  reset(): void
  close(): Promise<void>
}

const MINT = 'POST /app/installations/:installation_id/access_tokens'

/** Starts a sandbox and a forge for it (warmed up, unless `warm: false`). */
export async function startSandboxHarness(options: SandboxHarnessOptions = {}): Promise<SandboxHarness> {
  const { forge: forgeOptions = {}, warm = true, ...sandboxOptions } = options
  const sandbox = await startSandboxForge(sandboxOptions)
  const log = captureLogs()
  const forges: Forge[] = []
  const make = () => {
    const forge = createForge({
      logger: log.logger,
      retry: { retries: 0, retryBaseDelayMs: 1, rateLimitRetries: 0 },
      ...forgeOptions,
      config: sandboxForgeConfig(sandbox),
    })
    forges.push(forge)
    return forge
  }
  const forge = make()
  if (warm) {
    await forge.octokit.request('GET /rate_limit')
    sandbox.resetStats()
  }
  return {
    sandbox,
    forge,
    log,
    secondForge: make,
    requests() {
      const counts: Record<string, number> = {}
      for (const e of sandbox.stats().entries) {
        if (e.route === MINT) continue
        counts[e.route] = (counts[e.route] ?? 0) + e.count
      }
      return counts
    },
    reset: () => sandbox.resetStats(),
    async close() {
      for (const f of forges) await f.close()
      await sandbox.close()
    },
  }
}
