/**
 * A sandbox forge plus a real forge client authenticated against it, for net tests that must go over HTTP
 * (never a stubbed Octokit). `requests()` reads the sandbox's own ground truth, by route.
 */
import { createForge, type Forge } from '../../src/forge/github-app.js'
import {
  type SandboxForge,
  type SandboxForgeOptions,
  startSandboxForge,
} from '../../src/sandbox/sandbox-forge.js'

export interface SandboxHarness {
  sandbox: SandboxForge
  forge: Forge
  /** Another client of the same installation, as a second replica would have. */
  secondForge(): Forge
  /** Forge requests the sandbox received since the last `reset`, as `route → count` (token mints left out). */
  requests(): Record<string, number>
  /** Forgets the counts. */
  reset(): void
  close(): Promise<void>
}

const MINT = 'POST /app/installations/:installation_id/access_tokens'

/** Starts a sandbox and a forge for it; mints the installation token up front so counts start clean. */
export async function startSandboxHarness(options: SandboxForgeOptions = {}): Promise<SandboxHarness> {
  const sandbox = await startSandboxForge(options)
  const forges: Forge[] = []
  const make = () => {
    const forge = createForge({
      config: {
        appId: sandbox.appId,
        installationId: sandbox.installationId,
        privateKey: sandbox.privateKey,
        apiUrl: sandbox.url,
      },
      logger: { info: () => {}, warn: () => {}, error: () => {} },
      retry: { retries: 0, retryBaseDelayMs: 1, rateLimitRetries: 0 },
    })
    forges.push(forge)
    return forge
  }
  const forge = make()
  await forge.octokit.request('GET /rate_limit')
  sandbox.resetStats()
  return {
    sandbox,
    forge,
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
