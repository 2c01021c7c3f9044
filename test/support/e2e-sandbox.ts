/**
 * The sandbox forge that a real-process test points the built worker at as its GitHub App: started once
 * per test file, after checking that the global setup could build dist/ (a spawned worker runs dist/),
 * and closed after the file. Not a harness for in-process forges: test/support/sandbox-harness.ts is.
 */
import { afterAll, beforeAll, inject } from 'vitest'
import { type SandboxForge, startSandboxForge } from '../../src/sandbox/sandbox-forge.js'

export interface E2eSandbox {
  /** The running sandbox (read inside a test or a hook, once the file's beforeAll ran). */
  readonly sandbox: SandboxForge
  /** The GitHub App variables that make a spawned worker use this sandbox. */
  githubEnv(): Record<string, string>
}

/** Registers the file's beforeAll/afterAll for one small seeded sandbox (`seed` picks its data). */
export function useE2eSandbox(seed = 5): E2eSandbox {
  let sandbox: SandboxForge | undefined
  beforeAll(async () => {
    const buildError = inject('buildError')
    if (buildError) throw new Error(`dist/ could not be built: ${buildError}`)
    sandbox = await startSandboxForge({ generate: { repos: 1, pullsPerRepo: 1, issuesPerRepo: 1, seed } })
  })
  afterAll(() => sandbox?.close())
  const running = (): SandboxForge => {
    if (!sandbox) throw new Error('the e2e sandbox is read before its beforeAll ran')
    return sandbox
  }
  return {
    get sandbox() {
      return running()
    },
    githubEnv: () => ({
      GITHUB_APP_ID: String(running().appId),
      GITHUB_INSTALLATION_ID: String(running().installationId),
      GITHUB_APP_PRIVATE_KEY: running().privateKey,
      GITHUB_API_URL: running().url,
    }),
  }
}
