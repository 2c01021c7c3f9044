import { getEventListeners } from 'node:events'
import { afterEach, describe, expect, it } from 'vitest'
import { anyDependants } from '../../support/abort-dependants.js'
import { quietLog } from '../../support/log-capture.js'
import { ForgeUnreachableError } from '../../../src/forge/client/forge-unreachable-error.js'
import { createForge, type Forge } from '../../../src/forge/client/github-app.js'
import {
  type SandboxForge,
  sandboxForgeConfig,
  startSandboxForge,
} from '../../../src/sandbox/sandbox-forge.js'
import { generateAppKeyPair } from '../../../src/sandbox/sandbox-keys.js'
import { serializeError } from '../../../src/observe/logger.js'
import { freePort as closedPort } from '../../support/free-port.js'
import { captureLogs, type LogCapture } from '../../support/log-capture.js'

const { privateKey } = generateAppKeyPair('pkcs1')
let forge: Forge | undefined
let sandbox: SandboxForge | undefined
afterEach(async () => {
  await forge?.close()
  await sandbox?.close()
  forge = undefined
  sandbox = undefined
})

/** A forge for `apiUrl` whose log lines go into `log`. */
function forgeAt(apiUrl: string, log: LogCapture, signal?: AbortSignal) {
  forge = createForge({
    config: { appId: 1, installationId: 2, privateKey, apiUrl },
    logger: log.logger,
    retry: { retries: 3, retryBaseDelayMs: 20 },
    ...(signal ? { signal } : {}),
  })
  return forge
}

async function failure(f: Forge): Promise<unknown> {
  return f.octokit.request('GET /repos/{owner}/{repo}', { owner: 'o', repo: 'r' }).then(
    () => {
      throw new Error('the request to an unreachable forge succeeded')
    },
    (error: unknown) => error,
  )
}

function unreachableIn(error: unknown): ForgeUnreachableError | undefined {
  for (let e = error; e instanceof Error; e = e.cause) if (e instanceof ForgeUnreachableError) return e
  return undefined
}

describe('a forge that cannot be reached', () => {
  it('logs a refused connection once, at once, naming where and until when it retries', async () => {
    const port = await closedPort()
    const log = captureLogs()
    const error = await failure(forgeAt(`http://127.0.0.1:${port}`, log))
    const found = unreachableIn(error)
    expect(found, 'the error does not say the forge was unreachable').toMatchObject({
      code: 'FORGE_UNREACHABLE',
      where: `127.0.0.1:${port}`,
      reason: 'ECONNREFUSED',
      permanent: false,
    })
    const warnings = log.lines.filter((l) => l.level === 'warn' && l.fields.reason === 'ECONNREFUSED')
    expect(warnings, 'each retry of one outage was logged, or none was').toHaveLength(1)
    expect(warnings[0]!.message).toMatch(
      new RegExp(
        `cannot reach 127\\.0\\.0\\.1:${port} \\(connection refused\\); retrying this request until \\d{4}-`,
      ),
    )
    const serialized = JSON.stringify(serializeError(error))
    expect(serialized, 'the logged error lost its cause chain').toMatch(/"code":"ECONNREFUSED".*"port":\d+/)
  })

  it('gives up at once, without a retry, on a port fetch refuses to use', async () => {
    const log = captureLogs()
    const started = Date.now()
    const error = await failure(forgeAt('http://127.0.0.1:6000', log))
    expect(unreachableIn(error)).toMatchObject({ reason: 'BAD_PORT', permanent: true })
    expect(Date.now() - started, 'a bad port was retried').toBeLessThan(2_000)
    expect(log.lines.filter((l) => l.level === 'error' && /not retrying/.test(l.message))).toHaveLength(1)
    const again = await failure(forge!)
    expect(unreachableIn(again)?.permanent, 'a known-bad port was tried again').toBe(true)
  })

  it('gives up on a host DNS does not know after a few tries, then fails at once', async () => {
    const log = captureLogs()
    const error = await failure(forgeAt('http://leasecron-no-such-host.invalid', log))
    const found = unreachableIn(error)
    expect(found?.where).toBe('leasecron-no-such-host.invalid:80')
    // Without a resolver at all the lookup fails as EAI_AGAIN (retryable); with one, ENOTFOUND.
    if (found?.reason === 'ENOTFOUND') {
      expect(found.permanent, 'an unknown host was retried to the end').toBe(true)
      const started = Date.now()
      expect(unreachableIn(await failure(forge!))?.permanent).toBe(true)
      expect(Date.now() - started).toBeLessThan(500)
    } else expect(found?.reason).toBe('EAI_AGAIN')
  })
})

/** A forge on a fresh sandbox that stops when `stopping` aborts. */
async function sandboxForgeUntil(stopping: AbortSignal): Promise<Forge> {
  sandbox = await startSandboxForge({ generate: { repos: 1, pullsPerRepo: 1, issuesPerRepo: 1, seed: 2 } })
  return createForge({ config: sandboxForgeConfig(sandbox), logger: quietLog(), signal: stopping })
}

describe('a forge told to stop', () => {
  it('rejects its queued writes at once instead of sending them a second apart', async () => {
    const stopping = new AbortController()
    forge = await sandboxForgeUntil(stopping.signal)
    const octokit = forge.octokit
    await octokit.request('GET /repos/{owner}/{repo}', { owner: 'sandbox-org', repo: 'repo-1' })
    // The throttling plugin spaces writes a second apart: ten queued writes would drain for ~10 s.
    const writes = Array.from({ length: 10 }, (_, i) =>
      octokit
        .request('POST /repos/{owner}/{repo}/statuses/{sha}', {
          owner: 'sandbox-org',
          repo: 'repo-1',
          sha: 'a'.repeat(40),
          state: 'success',
          context: `queued-${i}`,
        })
        .then(
          () => 'sent',
          (error: Error) => error.name,
        ),
    )
    await new Promise((resolve) => setTimeout(resolve, 200))
    const stoppedAt = Date.now()
    stopping.abort(new Error('worker stopping'))
    const outcomes = await Promise.all(writes)
    expect(Date.now() - stoppedAt, 'the queued writes drained after the stop').toBeLessThan(1_000)
    expect(
      outcomes.filter((o) => o === 'AbortError').length,
      'no queued write was cut short',
    ).toBeGreaterThanOrEqual(7)
  })

  it('keeps nothing on its stopping signal of requests that have settled', async () => {
    const stopping = new AbortController()
    forge = await sandboxForgeUntil(stopping.signal)
    const listenersBefore = getEventListeners(stopping.signal, 'abort').length
    for (let i = 0; i < 50; i++) {
      const pass = new AbortController()
      await forge.octokit.request('GET /repos/{owner}/{repo}', {
        owner: 'sandbox-org',
        repo: 'repo-1',
        request: { signal: pass.signal },
      })
    }
    expect(
      anyDependants(stopping.signal),
      'each request would stay on the forge for its life (Node 20)',
    ).toBe(0)
    expect(
      getEventListeners(stopping.signal, 'abort').length,
      'a settled request left its listener on the forge',
    ).toBe(listenersBefore)
  })
})
